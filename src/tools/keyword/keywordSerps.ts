/**
 * GET /keyword-tool/serps (pool `serps`): the SERP of a keyword with difficulty, keyword
 * opportunities, search intent, content types and features. Location 0 or missing means 2840.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, LanguageId, LocationId } from '../common/schemas.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { KeywordText } from './schemas.js';
import { relatedLookupId } from './lookupIds.js';

export const DEFAULT_SERP_LOCATION = 2840;

export const PlatformId = Type.Union([Type.Literal(1), Type.Literal(2)], { default: 1, description: '1 desktop, 2 mobile' });

interface SerpParams {
  kw: string;
  location_id?: number;
  language_id: number;
  platform_id: 1 | 2;
  page: number;
}

export async function keywordSerpRoutes(app: FastifyInstance): Promise<void> {
  const { search, locations } = app.quarry;
  app.get(
    '/serps',
    {
      config: { paid: { pool: 'serps' } },
      schema: {
        tags: ['keyword-tool'],
        summary: 'SERP detail of a keyword: difficulty, organic results with metrics, CTRs, intent, features',
        querystring: Type.Object({
          kw: KeywordText,
          // A default makes a missing location and 0 one request (one cache entry, one charge): both mean 2840.
          location_id: Type.Optional({ ...LocationId, default: 0 }),
          language_id: Type.Optional({ ...LanguageId, default: 0 }),
          platform_id: Type.Optional(PlatformId),
          page: Type.Optional(Type.Integer({ minimum: 0, maximum: 9, default: 0 })),
        }),
        response: errorResponses(401, 422, 429),
      },
    },
    async (req) => {
      const q = req.query as SerpParams;
      const locationId = q.location_id ? q.location_id : DEFAULT_SERP_LOCATION;
      requireLocation(locations, locationId);
      requireLanguage(q.language_id);
      const detail = search.keywordDetail({ kw: q.kw, locationId, languageId: q.language_id, platform: q.platform_id, page: q.page });
      return { rkID: relatedLookupId(q.kw, locationId, q.language_id), ...detail };
    },
  );
}
