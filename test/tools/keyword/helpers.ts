/**
 * Small HTTP helpers for the keyword-tool tests: one client per API key, the pool state
 * from GET /keyword-tool/limits, and pacing that keeps a test under the burst window.
 */
import type { Res } from '../../support/requests.js';
import type { TestApp } from '../../support/app.js';

export type { Res } from '../../support/requests.js';
export { pace, query as q } from '../../support/requests.js';

export interface KeywordClient {
  key: string;
  get(path: string, headers?: Record<string, string>): Promise<Res>;
  post(path: string, payload?: unknown, headers?: Record<string, string>): Promise<Res>;
  patch(path: string, payload?: unknown): Promise<Res>;
  del(path: string, payload?: unknown): Promise<Res>;
  /** The state of one quota pool. */
  pool(name?: string): Promise<{ limit: number; remaining: number; reset: number | null }>;
}

/** A client of /v3/keyword-tool for one key; `path` starts after the tool prefix. */
export function client(t: TestApp, key: string): KeywordClient {
  const url = (path: string) => `/v3/keyword-tool${path}`;
  const headers = (extra?: Record<string, string>) => ({ 'x-access-token': key, ...extra });
  return {
    key,
    get: (path, extra) => t.app.inject({ method: 'GET', url: url(path), headers: headers(extra) }),
    post: (path, payload, extra) =>
      t.app.inject({ method: 'POST', url: url(path), headers: headers(extra), ...(payload === undefined ? {} : { payload: payload as object }) }),
    patch: (path, payload) =>
      t.app.inject({ method: 'PATCH', url: url(path), headers: headers(), ...(payload === undefined ? {} : { payload: payload as object }) }),
    del: (path, payload) =>
      t.app.inject({ method: 'DELETE', url: url(path), headers: headers(), ...(payload === undefined ? {} : { payload: payload as object }) }),
    async pool(name = 'related-keywords') {
      const res = await t.app.inject({ method: 'GET', url: url('/limits'), headers: headers() });
      return res.json().resources[name];
    },
  };
}

/** A new account on a plan and its client. */
export async function newClient(t: TestApp, plan = 'premium'): Promise<KeywordClient & { id: string }> {
  const { id, key } = await t.account(plan);
  return { ...client(t, key), id };
}

/** The contract's error object exactly: type, message, and retry_after only on RateLimit. */
export function errorOf(res: Res): { type: string; message: string; retry_after?: number } {
  const body = res.json();
  return body.error;
}
