/**
 * HTTP helpers for the link-tool tests: a client per API key, pool state from
 * GET /keyword-tool/limits, pacing under the burst window, spending a pool down directly
 * in the policy store, and an embedded export worker.
 */
import type { Res } from '../../support/requests.js';
import type { TestApp } from '../../support/app.js';
import { SECOND } from '../../../src/lib/clock.js';
import { POOL_PERIODS, type PoolName } from '../../../src/policy/pools.js';

export type { Res } from '../../support/requests.js';
export { pace, query as q } from '../../support/requests.js';

export interface LinkClient {
  id: string;
  key: string;
  get(path: string): Promise<Res>;
  post(path: string, payload?: unknown): Promise<Res>;
  patch(path: string, payload?: unknown): Promise<Res>;
  del(path: string): Promise<Res>;
  pool(name?: string): Promise<{ limit: number; remaining: number; reset: number | null }>;
}

export function linkClient(t: TestApp, id: string, key: string): LinkClient {
  const url = (path: string) => `/v3/link-tool${path}`;
  const headers = { 'x-access-token': key };
  const withBody = (payload: unknown) =>
    payload === undefined
      ? {}
      : typeof payload === 'string'
        ? { payload, headers: { ...headers, 'content-type': 'application/json' } }
        : { payload: payload as object };
  return {
    id,
    key,
    get: (path) => t.app.inject({ method: 'GET', url: url(path), headers }),
    post: (path, payload) => t.app.inject({ method: 'POST', url: url(path), headers, ...withBody(payload) }),
    patch: (path, payload) => t.app.inject({ method: 'PATCH', url: url(path), headers, ...withBody(payload) }),
    del: (path) => t.app.inject({ method: 'DELETE', url: url(path), headers }),
    async pool(name = 'links') {
      const res = await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers });
      return res.json().resources[name];
    },
  };
}

export async function newLinkClient(t: TestApp, plan = 'premium'): Promise<LinkClient> {
  const { id, key } = await t.account(plan);
  return linkClient(t, id, key);
}

/**
 * Spends `units` of an account's pool directly in the policy store (as a web-class
 * client, so the API key's burst window is untouched).
 */
export async function spend(t: TestApp, accountId: string, units: number, pool: PoolName = 'links', plan = 'premium'): Promise<void> {
  const store = t.ctx.policy.store;
  const nowMs = t.clock.now();
  const admission = await store.admit({
    accountId,
    clientClass: 'web',
    pool,
    period: POOL_PERIODS[pool],
    poolLimit: t.ctx.plans[plan].pools[pool],
    nowMs,
    windowMs: 1,
    burstSize: 1_000_000,
    cost: units,
  });
  if (!admission.ok) throw new Error(`could not spend ${units} of ${pool}: ${admission.type}`);
  await store.commit(admission.reservation, { nowMs, cost: units });
}

export const SECONDS = SECOND;
