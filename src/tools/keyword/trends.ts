/**
 * GET /keyword-tool/trends: deprecated (no fresh data since January 2025), `data` always
 * empty, yet a real paid operation on pool `trends`, cached like any other.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { unixSeconds } from '../../lib/clock.js';
import { errorResponses } from '../common/schemas.js';
import { KeywordText } from './schemas.js';

export async function trendsRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/trends',
    {
      config: { paid: { pool: 'trends' } },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Deprecated: always empty; use the search volume history of keyword imports',
        deprecated: true,
        querystring: Type.Object({ kw: KeywordText }),
        response: {
          200: Type.Object({
            created_at: Type.Integer(),
            data: Type.Array(Type.Object({ t: Type.Integer(), v: Type.Integer() })),
          }),
          ...errorResponses(401, 422, 429),
        },
      },
    },
    async (req) => ({ created_at: unixSeconds(req.paid!.nowMs), data: [] }),
  );
}
