/**
 * GET /keyword-tool/related-keywords (pool `related-keywords`): the seed first, then up to
 * the plan's related-keywords-rows (never more than 10,000).
 */
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { MAX_RELATED_KEYWORDS_ROWS } from '../../policy/plans.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses } from '../common/schemas.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { keywordTags as tags, RelatedKeywordsAnswer, RelatedKeywordsQuery } from './schemas.js';
import { relatedLookupId } from './lookupIds.js';

type RelatedParams = Required<Static<typeof RelatedKeywordsQuery>>;

export async function relatedKeywordsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { search, sources, locations } = app.quarry;

  const paid: PaidOperation<RelatedParams, RelatedKeywordsAnswer> = {
    pool: 'related-keywords',
    history: (p, body, at) => {
      const seed = body.keywords[0];
      return [
        {
          tool: 'keyword',
          entry: {
            _id: body._id,
            t: 0,
            kw: p.kw.trim().replace(/\s+/g, ' '),
            // The id asked; the history shows it resolved as the lookup resolved it.
            language: p.language_id,
            rank: seed?.seo ?? null,
            rank_ts: seed?.seo_ts ?? null,
            location: body.location,
            created: unixSeconds(at.nowMs),
          },
        },
      ];
    },
  };

  app.get(
    '/related-keywords',
    {
      config: { paid },
      schema: {
        tags,
        summary: 'Related keywords of a seed, seed first',
        description: 'Up to the plan’s related-keywords-rows (at most 10,000); `language_id` 0 means the location’s main language.',
        querystring: RelatedKeywordsQuery,
        response: { 200: RelatedKeywordsAnswer, ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req) => {
      // Defaults (0) are filled in by the schema.
      const { kw, location_id = 0, language_id = 0 } = req.query;
      requireLocation(locations, location_id);
      requireLanguage(language_id);
      const limit = Math.min(req.paid!.plan.relatedKeywordsRows, MAX_RELATED_KEYWORDS_ROWS);
      const provider = sources.providerKeywords;
      // Real mode: the seed and the keyword provider's ideas for it, nothing of the sandbox's.
      const related = provider
        ? { ...(await provider.related(kw, location_id, language_id, limit)), provisional: false }
        : await search.relatedKeywords(kw, location_id, language_id, limit);
      const keywords = await sources.settleDifficulty(related.keywords);
      // Rows whose difficulty the market's ranking (under way) will give soon: not for the 24-hour cache.
      if (related.provisional && keywords.some((k) => k.seo === null)) req.paid!.doNotCache();
      return {
        keywords,
        language: search.languageFor(location_id, language_id),
        location: search.shortLocation(location_id),
        countKeywordsBeforeLimit: related.countKeywordsBeforeLimit,
        _id: relatedLookupId(kw, location_id, language_id),
        // Names the keyword provider in real mode; null for a sandbox lookup.
        source: provider ? provider.name : null,
      };
    },
  );
}
