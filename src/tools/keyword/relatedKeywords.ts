/**
 * GET /keyword-tool/related-keywords (pool `related-keywords`): the seed first, then up to
 * the plan's related-keywords-rows (never more than 10,000).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { MAX_RELATED_KEYWORDS_ROWS } from '../../policy/plans.js';
import type { PaidOperation } from '../../policy/accessPolicy.js';
import { errorResponses, LanguageId, LocationId } from '../common/schemas.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { KeywordText } from './schemas.js';
import { relatedLookupId } from './lookupIds.js';

interface RelatedParams {
  kw: string;
  location_id: number;
  language_id: number;
}

export async function relatedKeywordsRoutes(app: FastifyInstance): Promise<void> {
  const { search, locations } = app.quarry;

  const paid: PaidOperation<RelatedParams> = {
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
        tags: ['keyword-tool'],
        summary: 'Related keywords of a seed, seed first',
        querystring: Type.Object({
          kw: KeywordText,
          location_id: Type.Optional({ ...LocationId, default: 0 }),
          language_id: Type.Optional({ ...LanguageId, default: 0 }),
        }),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const q = req.query as RelatedParams;
      requireLocation(locations, q.location_id);
      requireLanguage(q.language_id);
      const limit = Math.min(req.paid!.plan.relatedKeywordsRows, MAX_RELATED_KEYWORDS_ROWS);
      const { keywords, countKeywordsBeforeLimit } = await search.relatedKeywords(q.kw, q.location_id, q.language_id, limit);
      return {
        keywords,
        language: search.languageFor(q.location_id, q.language_id),
        location: search.shortLocation(q.location_id),
        countKeywordsBeforeLimit,
        _id: relatedLookupId(q.kw, q.location_id, q.language_id),
        source: null,
      };
    },
  );
}
