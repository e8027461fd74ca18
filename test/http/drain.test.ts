/**
 * Draining at close (http/drain.ts): an answer sent after `close()` has begun says
 * `Connection: close` and its socket ends with it, so the close ends once the requests in
 * flight are answered, instead of waiting out the keep-alive timeout (65 s) of their sockets.
 * A bare Fastify with the hooks and one route held by the test: the request is in flight
 * when the close begins, deterministically.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { closeConnectionsWhenDraining } from '../../src/http/drain.js';
import { httpTimeouts } from '../../src/http/app.js';

test('a request in flight at close is answered with Connection: close, and the close then ends', async () => {
  const app = Fastify({ keepAliveTimeout: httpTimeouts(30_000).keepAlive });
  closeConnectionsWhenDraining(app);
  let arrived!: () => void;
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  app.get('/held', async () => {
    arrived();
    await held;
    return { ok: true };
  });
  app.get('/before', async () => ({ ok: true }));
  // Registered after the drain's own: when it runs, the drain knows the close has begun.
  let closing!: () => void;
  const closeBegun = new Promise<void>((resolve) => (closing = resolve));
  app.addHook('preClose', (done) => {
    closing();
    done();
  });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });

  // Before the close, answers keep their sockets alive.
  const before = await fetch(`${origin}/before`);
  await before.text();
  assert.equal(before.headers.get('connection'), 'keep-alive');

  const answer = fetch(`${origin}/held`);
  await inFlight;
  const closed = app.close();
  await closeBegun;
  release();
  const res = await answer;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true });
  assert.equal(res.headers.get('connection'), 'close');
  await closed;
});
