/**
 * HTTP helpers for the SERP- and site-tool tests: a client per API key, the pool state
 * from GET /keyword-tool/limits, the contract's pacing, and the exact error object.
 */
import assert from 'node:assert/strict';
import type { Res } from '../../support/requests.js';
import type { TestApp } from '../../support/app.js';

export type { Res } from '../../support/requests.js';
export { pace, query as qs } from '../../support/requests.js';
export type PoolState = { limit: number; remaining: number; reset: number | null };

export interface ToolClient {
  id: string;
  key: string;
  /** GET /v3<path>. */
  get(path: string): Promise<Res>;
  pool(name: string): Promise<PoolState>;
  /** Limit and remaining of every pool (not `reset`, which moves with the clock): a free operation changes none. */
  pools(): Promise<Record<string, Omit<PoolState, 'reset'>>>;
}

export async function newClient(t: TestApp, plan = 'premium'): Promise<ToolClient> {
  const { id, key } = await t.account(plan);
  const get = (path: string) => t.app.inject({ method: 'GET', url: `/v3${path}`, headers: { 'x-access-token': key } });
  const resources = async () => (await get('/keyword-tool/limits')).json().resources as Record<string, PoolState>;
  const pools = async () => Object.fromEntries(Object.entries(await resources()).map(([name, p]) => [name, { limit: p.limit, remaining: p.remaining }]));
  return { id, key, get, pools, pool: async (name) => (await resources())[name] };
}

/** Asserts the exact JSON error of the contract (no extra members, JSON content type). */
export function assertError(res: Res, status: number, type: string, message: string): void {
  assert.equal(res.statusCode, status, `${status} expected, got ${res.statusCode}: ${res.body.slice(0, 200)}`);
  assert.match(String(res.headers['content-type']), /application\/json/);
  assert.deepEqual(res.json(), { error: { type, message } });
}

/** `Parameter <name> is invalid` (422 InvalidInput). */
export function assertInvalid(res: Res, name: string): void {
  assertError(res, 422, 'InvalidInput', `Parameter ${name} is invalid`);
}
