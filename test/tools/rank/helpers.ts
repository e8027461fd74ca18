/** HTTP helpers for the rank-tool tests: one client per API key, paths after /v3/rank-tool. */
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../../support/app.js';

export type Res = LightMyRequestResponse;

export interface RankClient {
  id: string;
  key: string;
  get(path: string): Promise<Res>;
  post(path: string, payload?: unknown): Promise<Res>;
  patch(path: string, payload?: unknown): Promise<Res>;
  put(path: string, payload?: unknown): Promise<Res>;
  del(path: string, payload?: unknown): Promise<Res>;
}

export async function rankClient(t: TestApp, plan = 'premium', email?: string): Promise<RankClient> {
  const { id, key } = await t.account(plan, email);
  const send = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE') => (path: string, payload?: unknown) =>
    t.app.inject({ method, url: `/v3/rank-tool${path}`, headers: { 'x-access-token': key }, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { id, key, get: send('GET'), post: send('POST'), patch: send('PATCH'), put: send('PUT'), del: send('DELETE') };
}

export const trackingBody = (over: Record<string, unknown> = {}) => ({
  domain: 'example.com',
  location_id: 2840,
  platform_id: 1,
  keywords: ['hiking boots', 'tent'],
  ...over,
});
