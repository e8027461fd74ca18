/**
 * GET /keyword-tool/serps (pool `serps`): the SERP of a keyword with difficulty, keyword
 * opportunities, search intent, content types and features. Location 0 or missing means 2840.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../common/schemas.js';
import { requireLanguage, requireLocation } from '../common/params.js';
import { presentSerp } from '../serp/presenters.js';
import { KeywordSerpAnswer, KeywordSerpQuery, keywordTags as tags } from './schemas.js';
import { relatedLookupId } from './lookupIds.js';

export { PlatformId } from './schemas.js';

export const DEFAULT_SERP_LOCATION = 2840;

export async function keywordSerpRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { sources, locations } = app.quarry;
  app.get(
    '/serps',
    {
      config: { paid: { pool: 'serps' } },
      schema: {
        tags,
        summary: 'SERP detail of a keyword: difficulty, organic results with metrics, CTRs, intent, features',
        description: 'Location 0 or missing means 2840. `serp` is the same SERP object the serp tool answers.',
        querystring: KeywordSerpQuery,
        response: { 200: KeywordSerpAnswer, ...errorResponses(401, 422, 424, 429) },
      },
    },
    async (req) => {
      // Defaults are filled in by the schema.
      const { kw, location_id = 0, language_id = 0, platform_id = 1, page = 0 } = req.query;
      const locationId = location_id ? location_id : DEFAULT_SERP_LOCATION;
      requireLocation(locations, locationId);
      requireLanguage(language_id);
      const { serp, ...detail } = await sources.serp.keywordDetail({ kw, locationId, languageId: language_id, platform: platform_id, page });
      // The SERP in the serp tool's shape (integer coverage, browser, wrapper edges, …).
      return { rkID: relatedLookupId(kw, locationId, language_id), serp: presentSerp(serp), ...detail };
    },
  );
}
