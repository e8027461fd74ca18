/**
 * POST /keyword-tool/keyword-imports (pool `related-keywords`): metrics for a set of
 * keywords. Never cached (each request is one lookup), one per 30 s for API-key clients,
 * and at most the plan's related-keywords-rows keywords (more answers 400).
 */
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { cleanText, hasForbiddenChars } from '../../lib/text.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses } from '../common/schemas.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { KeywordImportAnswer, KeywordImportBody, keywordTags as tags } from './schemas.js';

export async function keywordImportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { search, sources, locations } = app.quarry;
  const paid: PaidOperation<Static<typeof KeywordImportBody>> = {
    pool: 'related-keywords',
    cacheable: false,
    cooldown: 'keyword-import',
    // A set larger than the plan's rows is a 400 whatever the counters say: refused before
    // the cooldown, burst window and pool, it is never charged and starts no cooldown.
    answerWithoutCharge: (body, { plan }) => {
      const max = plan.relatedKeywordsRows;
      if (body.keywords.length > max) throw errors.badRequest(`At most ${max} keywords can be imported at once`);
      return undefined;
    },
  };
  app.post(
    '/keyword-imports',
    {
      config: { paid },
      schema: {
        tags,
        summary: 'Metrics, difficulty, history and organic results for a set of keywords',
        description:
          'At most the plan’s related-keywords-rows keywords (more answers 400). Never answered from cache; API-key clients may import once per 30 seconds (429 RateLimit with retry_after).',
        body: KeywordImportBody,
        response: { 200: KeywordImportAnswer, ...errorResponses(400, 401, 422, 424, 429) },
      },
    },
    async (req) => {
      const body = req.body;
      // Blank and invisible texts are dropped like repeats; control characters are refused.
      const bad = body.keywords.findIndex(hasForbiddenChars);
      if (bad >= 0) throw errors.invalidBody([`body.keywords/${bad} holds control characters, a lone surrogate or a bidirectional override`]);
      body.keywords = body.keywords.map((k) => cleanText(k) ?? '');
      requireLocation(locations, body.location_id);
      requireLanguage(body.language_id);
      // Keywords the sandbox lacks get the keyword provider's metrics (when one is configured).
      await sources.fillKeywords(body.keywords, body.location_id, body.language_id);
      const keywords = await sources.settleDifficulty(search.importKeywords(body.keywords, body.location_id, body.language_id));
      return {
        language: search.languageFor(body.location_id, body.language_id),
        location: search.shortLocation(body.location_id),
        keywords,
        countKeywordsBeforeLimit: keywords.length,
      };
    },
  );
}
