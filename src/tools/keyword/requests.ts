/**
 * GET /keyword-tool/requests and /keyword-tool/kd/requests (free): the account's last 100
 * keyword lookups and kd URL-metrics lookups, oldest first, as the policy recorded them.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../common/schemas.js';
import { presentKeywordRequest } from './presenters.js';
import { KdRequests, keywordTags as tags, KeywordToolRequests } from './schemas.js';

export async function requestHistoryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { policy, search } = app.quarry;

  app.get(
    '/requests',
    {
      schema: {
        tags,
        summary: 'Request history: the last 100 related-keywords, competitor-keywords and gap lookups, oldest first',
        response: { 200: KeywordToolRequests, ...errorResponses(401) },
      },
    },
    async (req) => (await policy.history(req.account!.id, 'keyword')).map((entry) => presentKeywordRequest(entry, search)),
  );

  app.get(
    '/kd/requests',
    {
      schema: {
        tags,
        summary: 'Request history: the last 100 kd URL-metrics lookups, oldest first',
        response: { 200: KdRequests, ...errorResponses(401) },
      },
    },
    // Stored as answered: { _id, t, url, lps, created } (see kdUrlMetrics.ts).
    async (req) => (await policy.history(req.account!.id, 'kd')) as typeof KdRequests.static,
  );
}
