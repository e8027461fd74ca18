/** GET /keyword-tool/limits: the account's plan and every pool's state. Works without a key. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { POOL_PERIODS, POOLS } from '../../policy/pools.js';

const PoolState = Type.Object({
  limit: Type.Integer(),
  remaining: Type.Integer(),
  reset: Type.Union([Type.Integer(), Type.Null()], { description: 'seconds until the pool is full again (relative)' }),
});

const LimitsBody = Type.Object({
  'related-keywords-rows': Type.Integer(),
  'competitor-keywords-rows': Type.Integer(),
  'reqs-per-short-period': Type.Integer(),
  'tracked-keywords': Type.Integer(),
  plan: Type.Union([Type.String(), Type.Null()]),
  resources: Type.Record(Type.String(), PoolState),
});

export async function limitsRoutes(app: FastifyInstance): Promise<void> {
  const { policy, clock } = app.quarry;
  app.get(
    '/limits',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['keyword-tool'],
        summary: 'Plan limits and the state of every quota pool (authentication optional)',
        security: [{ ApiKeyAuth: [] }, {}],
        response: { 200: LimitsBody },
      },
    },
    async (req) => {
      const account = req.account;
      const resources: Record<string, { limit: number; remaining: number; reset: number | null }> = {};
      if (!account) {
        // Never a way to validate a key: an unknown key looks exactly like no key.
        for (const pool of POOLS) resources[pool] = { limit: 0, remaining: 0, reset: null };
        return {
          'related-keywords-rows': 0,
          'competitor-keywords-rows': 0,
          'reqs-per-short-period': 3,
          'tracked-keywords': 0,
          plan: null,
          resources,
        };
      }
      const plan = policy.planOf(account);
      const now = clock.now();
      for (const pool of POOLS) {
        resources[pool] = policy.store.poolState(account.id, pool, POOL_PERIODS[pool], plan.pools[pool], now);
      }
      return {
        'related-keywords-rows': plan.relatedKeywordsRows,
        'competitor-keywords-rows': plan.competitorKeywordsRows,
        'reqs-per-short-period': plan.reqsPerShortPeriod,
        'tracked-keywords': plan.trackedKeywords,
        plan: plan.name,
        resources,
      };
    },
  );
}
