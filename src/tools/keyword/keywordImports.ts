/**
 * POST /keyword-tool/keyword-imports (pool `related-keywords`): metrics for a set of
 * keywords. Never cached (each request is one lookup), one per 30 s for API-key clients,
 * and at most the plan's related-keywords-rows keywords (more answers 400).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../http/errors.js';
import { MAX_RELATED_KEYWORDS_ROWS } from '../../policy/plans.js';
import { errorResponses, LanguageId, LocationId } from '../shared/schemas.js';
import { requireLanguage, requireLocation } from '../shared/params.js';

interface ImportBody {
  keywords: string[];
  location_id: number;
  language_id: number;
}

export async function keywordImportRoutes(app: FastifyInstance): Promise<void> {
  const { search, locations } = app.quarry;
  app.post(
    '/keyword-imports',
    {
      config: { paid: { pool: 'related-keywords', cacheable: false, cooldown: 'keyword-import' } },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Metrics, difficulty, history and organic results for a set of keywords',
        body: Type.Object({
          // The schema bounds the work of a hostile body; the plan's size answers 400 below it.
          keywords: Type.Array(Type.String({ maxLength: 255 }), { maxItems: MAX_RELATED_KEYWORDS_ROWS * 10 }),
          location_id: LocationId,
          language_id: LanguageId,
        }),
        response: errorResponses(400, 401, 422, 429),
      },
    },
    async (req) => {
      const body = req.body as ImportBody;
      const max = req.paid!.plan.relatedKeywordsRows;
      if (body.keywords.length > max) throw errors.badRequest(`At most ${max} keywords can be imported at once`);
      requireLocation(locations, body.location_id);
      requireLanguage(body.language_id);
      const keywords = search.importKeywords(body.keywords, body.location_id, body.language_id);
      return {
        language: search.languageFor(body.location_id, body.language_id),
        location: search.shortLocation(body.location_id),
        keywords,
        countKeywordsBeforeLimit: keywords.length,
      };
    },
  );
}
