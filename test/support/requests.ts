/**
 * What the tool tests share about talking to the API: the response type, the contract's
 * pacing between paid requests, query strings, and the check that an answer to hostile input
 * is never a 5xx and, when an error, the contract's JSON error object.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';
import { SECOND } from '../../src/lib/clock.js';

export type Res = LightMyRequestResponse;

/** The contract's pacing: 11 s between paid requests to one pool keeps three in any 30-second window. */
export function pace(t: TestApp): void {
  t.clock.advance(11 * SECOND);
}

/** `a=1&b=x%20y`: every name and value percent-encoded. */
export const query = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');

/**
 * Never a 5xx, one of the `allowed` statuses, and an error is the contract's JSON error object;
 * a 422's type is one of `unprocessableTypes`.
 */
export function assertSane(res: Res, what: string, allowed: number[], unprocessableTypes = ['InvalidInput', 'ValidationError']): void {
  assert.ok(res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  assert.ok(allowed.includes(res.statusCode), `${what}: ${res.statusCode} not in ${allowed} — ${res.body.slice(0, 200)}`);
  if (res.statusCode >= 400) {
    assert.match(String(res.headers['content-type']), /^application\/json/, what);
    const e = res.json().error;
    assert.equal(typeof e?.type, 'string', what);
    assert.equal(typeof e?.message, 'string', what);
    if (res.statusCode === 422) assert.ok(unprocessableTypes.includes(e.type), `${what}: ${e.type}`);
  }
}
