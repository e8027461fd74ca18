/**
 * GET /keyword-tool/trends: deprecated (no fresh data since January 2025), `data` always
 * empty, yet a real paid operation on pool `trends`, cached like any other.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { errorResponses } from '../common/schemas.js';
import { keywordTags as tags, TrendsAnswer, TrendsQuery } from './schemas.js';

export async function trendsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/trends',
    {
      config: { paid: { pool: 'trends' } },
      schema: {
        tags,
        summary: 'Deprecated: always empty; use the search volume history of keyword imports',
        deprecated: true,
        querystring: TrendsQuery,
        response: { 200: TrendsAnswer, ...errorResponses(401, 422, 429) },
      },
    },
    async (req) => ({ created_at: unixSeconds(req.paid!.nowMs), data: [] }),
  );
}
