/**
 * Fair use at the door (issue 28, item 2): budgets, bulk slots and the requests in flight of
 * an account are decided from the key and the route before the body is read, so a refused
 * request is never parsed or validated; export suggestions and tracking stats take bulk
 * slots; one account's requests in flight are capped, others' are not held back.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_REQUESTS_IN_FLIGHT } from '../../src/policy/fairUse.js';
import { SECOND } from '../../src/lib/clock.js';
import { testApp, type TestApp } from '../support/app.js';
import { newClient } from '../tools/keyword/helpers.js';
import { rankClient, trackingBody } from '../tools/rank/helpers.js';

let t: TestApp;

/**
 * Sends only the head of a request announcing a large body over a real socket, and reads the
 * status line of the answer. A server that reads the body before deciding answers only when
 * the request timeout ends (408), since the body never comes.
 */
async function statusBeforeBody(port: number, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-access-token: ${key}\r\ncontent-type: application/json\r\ncontent-length: 5000000\r\n\r\n{"name":`,
      );
    });
    let head = '';
    socket.on('data', (d) => {
      head += d;
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without an answer: ${head}`)));
  });
}

describe('fair use at the door: decided before the body is read', () => {
  before(async () => {
    // A short request timeout: without the door, the head-only requests below end in 408 quickly.
    t = await testApp({ env: { QUARRY_FREE_WRITES_PER_MINUTE: '12', QUARRY_REQUEST_TIMEOUT_MS: '1500' } });
  });
  after(() => t.close());

  test('a free write past the budget is refused with RateLimit whatever its body: malformed, invalid, oversized, or not sent yet', async () => {
    const c = await newClient(t);
    await t.ctx.fairUse.writes.spend(c.id, 12);
    const bodies: [string, string][] = [
      ['malformed JSON', '{"name": "x", "keyword_ids": ['],
      ['invalid fields', JSON.stringify({ name: 5, keyword_ids: 'none' })],
      ['past the body limit', `{"name":"${'x'.repeat(t.ctx.config.bodyLimit)}","keyword_ids":[]}`],
    ];
    for (const [what, payload] of bodies) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v3/keyword-tool/lists',
        headers: { 'x-access-token': c.key, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 429, `${what}: ${res.body.slice(0, 200)}`);
      assert.equal(res.json().error.type, 'RateLimit', what);
      assert.ok(res.json().error.retry_after >= 1, what);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    assert.equal(await statusBeforeBody(port, '/v3/keyword-tool/lists', c.key), 429, 'answered before the body came');
    // With room in the budget the same malformed body is the contract's validation error.
    t.clock.advance(60 * SECOND);
    const invalid = await c.post('/lists', { name: 5, keyword_ids: 'none' });
    assert.equal(invalid.statusCode, 422, invalid.body);
  });

  test('a write refused for the ids it carries has spent its first unit at the door', async () => {
    const c = await newClient(t);
    await t.ctx.fairUse.writes.spend(c.id, 10);
    // 2 units left: a list of 2,000 ids needs 3 and is refused after validation; 1 unit is left.
    const big = await c.post('/lists', { name: 'big', keyword_ids: Array.from({ length: 2_000 }, (_, i) => `id-${i}`) });
    assert.equal(big.statusCode, 429, big.body);
    assert.equal((await c.post('/lists', { name: 'small', keyword_ids: [] })).statusCode, 201);
    assert.equal((await c.post('/lists', { name: 'none left', keyword_ids: [] })).statusCode, 429);
  });

  test('bulk reads, export suggestions and tracking stats take the bulk slots; past them RateLimit before the body is read', async () => {
    const r = await rankClient(t);
    const c = {
      ...r,
      post: (path: string, payload: object) => t.app.inject({ method: 'POST', url: `/v3/keyword-tool${path}`, headers: { 'x-access-token': r.key }, payload }),
    };
    t.clock.advance(60 * SECOND);
    const created = await r.post('/trackings', trackingBody({ keywords: ['hiking boots'] }));
    assert.equal(created.statusCode, 201, created.body);
    const stats = `/trackings/${created.json().tracking._id}/stats`;
    const suggest = () =>
      t.app.inject({ method: 'POST', url: '/v3/link-tool/exports/suggest', headers: { 'x-access-token': c.key }, payload: { url: 'learnhub.com' } });
    assert.equal((await suggest()).statusCode, 200);
    assert.equal((await r.post(stats, {})).statusCode, 200);

    const held = [await t.ctx.fairUse.bulk.take(c.id), await t.ctx.fairUse.bulk.take(c.id)];
    const refused = [
      await suggest(),
      await r.post(stats, {}),
      await t.app.inject({
        method: 'POST',
        url: '/v3/keyword-tool/keywords',
        headers: { 'x-access-token': c.key, 'content-type': 'application/json' },
        payload: '{"keyword_ids": [1, 2',
      }),
    ];
    for (const res of refused) {
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error.type, 'RateLimit');
    }
    // Another account is not held back.
    const other = await newClient(t);
    assert.equal((await other.post('/keywords', { keyword_ids: ['x'] })).statusCode, 200);
    held.forEach((release) => release());
    assert.equal((await suggest()).statusCode, 200);
    assert.equal((await r.post(stats, {})).statusCode, 200);
  });

  test(`one account has at most ${DEFAULT_REQUESTS_IN_FLIGHT} requests in flight, of any operation; each answer frees its place`, async () => {
    const c = await newClient(t);
    const other = await newClient(t);
    // Many requests one after another never run out: each gives its place back.
    for (let i = 0; i < DEFAULT_REQUESTS_IN_FLIGHT * 3; i++) assert.equal((await c.get('/limits')).statusCode, 200);
    const places = Array.from({ length: DEFAULT_REQUESTS_IN_FLIGHT }, () => t.ctx.fairUse.requests.enter(c.id));
    for (const res of [
      await c.get('/limits'),
      await c.get('/related-keywords?kw=hiking%20boots&location_id=2840'),
      await c.post('/lists', { name: 'y', keyword_ids: [] }),
      await t.app.inject({ method: 'GET', url: '/v3/rank-tool/trackings', headers: { 'x-access-token': c.key } }),
    ]) {
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error.type, 'RateLimit');
      assert.equal(res.json().error.retry_after, 1);
    }
    assert.equal((await other.get('/limits')).statusCode, 200);
    places[0]();
    assert.equal((await c.get('/limits')).statusCode, 200);
    places.forEach((leave) => leave());
  });
});

describe('requests in flight over real sockets', () => {
  before(async () => {
    t = await testApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  /** Asks until `status` is answered (the server reaches it on its own events), at most 10 s. */
  async function until(ask: () => Promise<{ statusCode: number }>, status: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await ask()).statusCode !== status) {
      assert.ok(Date.now() < deadline, `never answered ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  test('answers on a keep-alive socket give their places back, and so does a client that leaves before its answer', async () => {
    const c = await newClient(t);
    const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    for (let i = 0; i < DEFAULT_REQUESTS_IN_FLIGHT * 3; i++) {
      const res = await fetch(`${origin}/v3/keyword-tool/limits`, { headers: { 'x-access-token': c.key } });
      assert.equal(res.status, 200, await res.text());
    }
    // All places but one held; the last is taken by a write whose body never comes.
    const places = Array.from({ length: DEFAULT_REQUESTS_IN_FLIGHT - 1 }, () => t.ctx.fairUse.requests.enter(c.id));
    const leaving = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1', () => {
      leaving.write(
        `POST /v3/keyword-tool/lists HTTP/1.1\r\nHost: 127.0.0.1\r\nx-access-token: ${c.key}\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"name":`,
      );
    });
    leaving.on('error', () => undefined);
    // Wait for the write to hold the last place before asking through the API: an ask made
    // while it is still on its way would take that place itself (the scale mode's auth and
    // fair use are round trips) and the write would be the one refused.
    for (const deadline = Date.now() + 10_000; ;) {
      let leave: () => void;
      try {
        leave = t.ctx.fairUse.requests.enter(c.id);
      } catch {
        break;
      }
      leave();
      assert.ok(Date.now() < deadline, 'the write never took its place');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until(() => c.get('/limits'), 429);
    leaving.destroy();
    await until(() => c.get('/limits'), 200);
    places.forEach((leave) => leave());
  });
});
