/** HTTP helpers for the answer-tool tests: one client per API key, paths after /v3/answer-tool. */
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../../support/app.js';
import { answerServices } from '../../../src/answers/answerService.js';

export type Res = LightMyRequestResponse;

export interface AnswerClient {
  id: string;
  key: string;
  get(path: string): Promise<Res>;
  post(path: string, payload?: unknown): Promise<Res>;
  put(path: string, payload?: unknown): Promise<Res>;
  del(path: string, payload?: unknown): Promise<Res>;
}

export async function answerClient(t: TestApp, plan = 'premium'): Promise<AnswerClient> {
  const { id, key } = await t.account(plan);
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE') => (path: string, payload?: unknown) =>
    t.app.inject({
      method,
      url: `/v3/answer-tool${path}`,
      headers: { 'x-access-token': key },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return { id, key, get: send('GET'), post: send('POST'), put: send('PUT'), del: send('DELETE') };
}

export const monitorBody = (over: Record<string, unknown> = {}) => ({
  location_id: 2840,
  platform_id: 1,
  brand: 'Openpedia',
  domain: 'openpedia.org',
  models: [1, 2, 3],
  prompts: ['What are the best running shoes?', 'How do I start running?'],
  ...over,
});

/** Creates a monitor and waits for its first check. */
export async function createChecked(t: TestApp, c: AnswerClient, over: Record<string, unknown> = {}): Promise<string> {
  const res = await c.post('/monitor', monitorBody(over));
  if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
  await answerServices(t.ctx).checks.idle();
  return res.json()._id as string;
}
