/**
 * The access policy for paid operations, through HTTP, on the fake clock: cache → import
 * cooldown → burst window → quota pool → execute → commit.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { testApp, type TestApp } from '../support/app.js';
import { DAY, HOUR, SECOND } from '../../src/lib/clock.js';

let executions = 0;
let failNext = false;
let provisional = false;
/** Answers of /fixture/revocable that the operation no longer stands by. */
const revoked = new Set<number>();
/** Whether /fixture/guarded's own preHandler refuses. */
let guardShut = false;

/** Fixture operations that exercise each shape a real route can declare. */
async function fixtureRoutes(app: FastifyInstance) {
  const q = Type.Object({ q: Type.String(), empty: Type.Optional(Type.Boolean()), rows: Type.Optional(Type.Integer()) });
  app.get('/fixture/serps', { config: { paid: { pool: 'serps' } }, schema: { querystring: q } }, async (req, reply) => {
    executions++;
    await new Promise((r) => setTimeout(r, 5));
    if (failNext) {
      failNext = false;
      throw new Error('upstream failed');
    }
    const { q: text, empty } = req.query as { q: string; empty?: boolean };
    if (empty) {
      reply.code(204);
      return undefined;
    }
    return { q: text, n: executions };
  });
  app.get('/fixture/links', { config: { paid: { pool: 'links', cost: () => 500, allowPartial: true } }, schema: { querystring: q } }, async (req) => {
    const rows = (req.query as { rows?: number }).rows ?? 500;
    const n = Math.min(rows, req.paid!.reserved);
    req.paid!.charge(n);
    return { links: n };
  });
  app.get(
    '/fixture/import',
    { config: { paid: { pool: 'related-keywords', cacheable: false, cooldown: 'keyword-import' } }, schema: { querystring: q } },
    async () => ({ imported: true }),
  );
  app.get(
    '/fixture/revocable',
    { config: { paid: { pool: 'serps', cachedAnswerHolds: (body: any) => !revoked.has(body.n) } }, schema: { querystring: q } },
    async () => ({ n: ++executions }),
  );
  app.get('/fixture/provisional', { config: { paid: { pool: 'serps' } }, schema: { querystring: q } }, async (req) => {
    executions++;
    // Answers while a value is still being computed: kept out of the cache.
    if (provisional) req.paid!.doNotCache();
    return { q: (req.query as { q: string }).q, n: executions, complete: !provisional };
  });
  app.get(
    '/fixture/guarded',
    {
      config: { paid: { pool: 'serps' } },
      schema: { querystring: q },
      preHandler: (_req, reply, done) => {
        if (!guardShut) return done();
        reply.code(403).send({ error: { type: 'Error', message: 'shut' } });
      },
    },
    async () => ({ n: ++executions }),
  );
  app.get(
    '/fixture/history',
    {
      config: { paid: { pool: 'sp-overview', history: (p: any) => [{ tool: 'site', entry: p.q }], lookups: (p: any) => [{ kind: 'overview', key: p.q }] } },
      schema: { querystring: q },
    },
    async (req) => ({ q: (req.query as any).q }),
  );
}

let t: TestApp;
let key: string;
let accountId: string;

async function get(path: string, k = key) {
  return t.app.inject({ method: 'GET', url: `/v3${path}`, headers: { 'x-access-token': k } });
}

async function remaining(pool: string, k = key) {
  const res = await get('/keyword-tool/limits', k);
  return res.json().resources[pool] as { limit: number; remaining: number; reset: number | null };
}

describe('paid operations', () => {
  before(async () => {
    // Room for the stampedes below: one account's requests in flight are capped (fair use) by default.
    t = await testApp({ extraRoutes: fixtureRoutes, env: { QUARRY_REQUESTS_IN_FLIGHT: '1000' } });
  });
  after(async () => t.close());
  beforeEach(async () => {
    ({ key, id: accountId } = await t.account('premium'));
    executions = 0;
    t.clock.advance(HOUR);
  });

  test('the burst window is inclusive: exactly 30 s after the first of three is refused, 30.001 s admitted', async () => {
    const start = t.clock.now();
    for (const q of ['a', 'b', 'c']) assert.equal((await get(`/fixture/serps?q=${q}`)).statusCode, 200);
    t.clock.set(start + 30 * SECOND);
    const refused = await get('/fixture/serps?q=d');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { error: { type: 'RateLimit', message: refused.json().error.message, retry_after: 30 } });
    assert.equal(refused.headers['retry-after'], '30');
    assert.match(String(refused.headers['content-type']), /application\/json/);
    t.clock.set(start + 30 * SECOND + 1);
    assert.equal((await get('/fixture/serps?q=d')).statusCode, 200);
  });

  test('a refused request changes no counter', async () => {
    for (const q of ['a', 'b', 'c']) await get(`/fixture/serps?q=${q}`);
    const before = await remaining('serps');
    for (let i = 0; i < 5; i++) assert.equal((await get(`/fixture/serps?q=x${i}`)).statusCode, 429);
    assert.deepEqual(await remaining('serps'), before);
    // The refusals were not recorded in the window: right after it, three are admitted again.
    t.clock.advance(30 * SECOND + 1);
    for (const q of ['p', 'q', 'r']) assert.equal((await get(`/fixture/serps?q=${q}`)).statusCode, 200);
  });

  test('burst windows are per pool', async () => {
    for (const q of ['a', 'b', 'c']) await get(`/fixture/serps?q=${q}`);
    assert.equal((await get('/fixture/serps?q=d')).statusCode, 429);
    assert.equal((await get('/keyword-tool/trends?kw=d')).statusCode, 200);
  });

  test('a cache hit within 24 h charges nothing and passes a full burst window', async () => {
    const first = await get('/fixture/serps?q=same');
    assert.equal(first.statusCode, 200);
    for (const q of ['b', 'c']) await get(`/fixture/serps?q=${q}`);
    const afterThree = await remaining('serps');
    for (let i = 0; i < 10; i++) {
      const hit = await get('/fixture/serps?q=same');
      assert.equal(hit.statusCode, 200);
      assert.equal(hit.body, first.body);
    }
    assert.deepEqual(await remaining('serps'), afterThree);
    assert.equal(executions, 3);
  });

  test('a repeated hit answered before validation (issue 26) is the same answer; other URLs are still validated, own hooks still run', async () => {
    const first = await get('/fixture/serps?q=door');
    // The second is answered by the handler from the cache, the later ones at the door.
    const hits = [await get('/fixture/serps?q=door'), await get('/fixture/serps?q=door'), await get('/fixture/serps?q=door')];
    for (const hit of hits) {
      assert.equal(hit.statusCode, 200);
      assert.equal(hit.body, first.body);
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.headers['content-type'], first.headers['content-type']);
      assert.equal(hit.headers['content-length'], first.headers['content-length']);
    }
    assert.equal(executions, 1);
    for (let i = 0; i < 2; i++) {
      const head = await t.app.inject({ method: 'HEAD', url: '/v3/fixture/serps?q=door', headers: { 'x-access-token': key } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['x-cache'], 'HIT');
    }
    assert.equal((await get('/fixture/serps?q=door&rows=many')).statusCode, 422);
    assert.equal((await get('/fixture/serps?q=door', 'qry_not-a-key')).statusCode, 401);
    assert.equal(executions, 1);
    // A route with a hook of its own before the handler is never answered before it.
    guardShut = false;
    await get('/fixture/guarded?q=g');
    assert.equal((await get('/fixture/guarded?q=g')).headers['x-cache'], 'HIT');
    guardShut = true;
    try {
      assert.equal((await get('/fixture/guarded?q=g')).statusCode, 403);
    } finally {
      guardShut = false;
    }
  });

  test('cache keys are canonical: whitespace and parameter order do not split the cache', async () => {
    await get('/fixture/serps?q=running%20shoes&rows=5');
    await get('/fixture/serps?rows=5&q=%20running%20%20%20shoes%20');
    await get('/fixture/serps?rows=5&q=running%20shoes&junk=1');
    assert.equal(executions, 1);
  });

  test('the cache entry expires after 24 h', async () => {
    await get('/fixture/serps?q=exp');
    t.clock.advance(DAY - 1);
    await get('/fixture/serps?q=exp');
    assert.equal(executions, 1);
    t.clock.advance(1);
    const before = (await remaining('serps')).remaining;
    await get('/fixture/serps?q=exp');
    assert.equal(executions, 2);
    assert.equal((await remaining('serps')).remaining, before - 1);
  });

  test('a cached answer the operation no longer stands by is forgotten: the repeat executes and is charged', async () => {
    const first = (await get('/fixture/revocable?q=r')).json();
    assert.deepEqual((await get('/fixture/revocable?q=r')).json(), first);
    const before = (await remaining('serps')).remaining;
    revoked.add(first.n);
    const second = (await get('/fixture/revocable?q=r')).json();
    assert.notEqual(second.n, first.n);
    assert.equal((await remaining('serps')).remaining, before - 1);
    assert.deepEqual((await get('/fixture/revocable?q=r')).json(), second, 'the new answer is cached');
    assert.equal(executions, 2);
  });

  test('an answer marked not for the cache (values still being computed) is charged, and its repeat executes again', async () => {
    provisional = true;
    const before = (await remaining('serps')).remaining;
    const first = (await get('/fixture/provisional?q=soon')).json();
    assert.equal(first.complete, false);
    t.clock.advance(31 * SECOND);
    const second = await get('/fixture/provisional?q=soon');
    assert.equal(second.headers['x-cache'], undefined);
    assert.equal(second.json().n, first.n + 1, 'executed again, not served from the cache');
    assert.equal((await remaining('serps')).remaining, before - 2, 'both charged');
    provisional = false;
    t.clock.advance(31 * SECOND);
    const complete = (await get('/fixture/provisional?q=soon')).json();
    assert.equal(complete.complete, true);
    const repeat = await get('/fixture/provisional?q=soon');
    assert.equal(repeat.headers['x-cache'], 'HIT');
    assert.deepEqual(repeat.json(), complete, 'the complete answer is cached');
    assert.equal(executions, 3);
  });

  test('a daily period starts with the first counted request and refills after 24 h', async () => {
    const fresh = await remaining('serps');
    assert.deepEqual(fresh, { limit: 500, remaining: 500, reset: null });
    await get('/fixture/serps?q=p1');
    const started = await remaining('serps');
    assert.equal(started.remaining, 499);
    assert.equal(started.reset, 24 * 3600);
    t.clock.advance(10 * HOUR);
    await get('/fixture/serps?q=p2');
    const later = await remaining('serps');
    assert.equal(later.remaining, 498);
    assert.equal(later.reset, 14 * 3600, 'reset counts down from the first request, in relative seconds');
    t.clock.advance(14 * HOUR);
    assert.deepEqual(await remaining('serps'), { limit: 500, remaining: 500, reset: null });
  });

  test('CreditLimit carries neither retry_after nor Retry-After, and charges nothing', async () => {
    const { key: entryKey } = await t.account('entry');
    // The entry plan has 20 sp-overview lookups a day.
    for (let i = 0; i < 20; i++) {
      assert.equal((await get(`/fixture/history?q=s${i}`, entryKey)).statusCode, 200);
      t.clock.advance(11 * SECOND);
    }
    const refused = await get('/fixture/history?q=over', entryKey);
    assert.equal(refused.statusCode, 429);
    const body = refused.json();
    assert.equal(body.error.type, 'CreditLimit');
    assert.equal('retry_after' in body.error, false);
    assert.equal(refused.headers['retry-after'], undefined);
    assert.equal((await remaining('sp-overview', entryKey)).remaining, 0);
  });

  test('a monthly pool refills at the UTC month boundary', async () => {
    t.clock.set(Date.UTC(2026, 10, 30, 23, 0, 0));
    const { key: k } = await t.account('entry');
    const res = await get('/fixture/links?q=1', k);
    assert.equal(res.json().links, 500);
    const state = await remaining('links', k);
    assert.equal(state.remaining, 100_000 - 500);
    assert.equal(state.reset, 3600, 'one hour to the end of November, UTC');
    t.clock.set(Date.UTC(2026, 11, 1, 0, 0, 0) - 1);
    assert.equal((await remaining('links', k)).remaining, 100_000 - 500);
    t.clock.set(Date.UTC(2026, 11, 1, 0, 0, 0));
    const december = await remaining('links', k);
    assert.equal(december.remaining, 100_000);
    assert.equal(december.reset, 31 * 24 * 3600);
  });

  test('a row-priced operation is charged what it returns and cut to what remains', async () => {
    t.clock.set(Date.UTC(2027, 0, 10));
    const { key: k } = await t.account('entry');
    const res = await get('/fixture/links?q=a&rows=120', k);
    assert.equal(res.json().links, 120);
    assert.equal((await remaining('links', k)).remaining, 100_000 - 120);
    // Spend the pool down to 50 units, 3 requests per window.
    let left = 100_000 - 120;
    let i = 0;
    while (left > 50) {
      const rows = Math.min(500, left - 50);
      t.clock.advance(11 * SECOND);
      const r = await get(`/fixture/links?q=spend${i++}&rows=${rows}`, k);
      assert.equal(r.statusCode, 200);
      left -= rows;
    }
    t.clock.advance(31 * SECOND);
    const cut = await get('/fixture/links?q=last', k);
    assert.equal(cut.json().links, 50, 'the page is cut to what remains');
    assert.equal((await remaining('links', k)).remaining, 0);
    const empty = await get('/fixture/links?q=empty', k);
    assert.equal(empty.statusCode, 429);
    assert.equal(empty.json().error.type, 'CreditLimit');
  });

  test('50 concurrent requests with different parameters to one pool admit exactly 3', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => get(`/fixture/serps?q=c${i}`)));
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 3);
    assert.equal(codes.filter((c) => c === 429).length, 47);
    assert.equal((await remaining('serps')).remaining, 497);
  });

  test('100 concurrent identical requests execute once and charge once', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, () => get('/fixture/serps?q=stampede')));
    assert.ok(results.every((r) => r.statusCode === 200));
    assert.equal(new Set(results.map((r) => r.body)).size, 1);
    assert.equal(executions, 1);
    assert.equal((await remaining('serps')).remaining, 499);
  });

  test('an empty answer (204) and a failed handler charge nothing and take no burst slot', async () => {
    const r204 = await get('/fixture/serps?q=e&empty=true');
    assert.equal(r204.statusCode, 204);
    assert.equal(r204.body, '');
    failNext = true;
    const failed = await get('/fixture/serps?q=f');
    assert.equal(failed.statusCode, 500);
    assert.equal(failed.json().error.type, 'ServerError');
    assert.deepEqual(await remaining('serps'), { limit: 500, remaining: 500, reset: null });
    for (const q of ['a', 'b', 'c']) assert.equal((await get(`/fixture/serps?q=${q}`)).statusCode, 200);
    // A 204 is not cached: asking again executes again.
    t.clock.advance(31 * SECOND);
    const before = executions;
    await get('/fixture/serps?q=e&empty=true');
    assert.equal(executions, before + 1);
  });

  test('keyword imports: one per 30 s for API clients, never cached, retry_after = seconds left', async () => {
    const start = t.clock.now();
    assert.equal((await get('/fixture/import?q=a')).statusCode, 200);
    t.clock.set(start + 12_500);
    // Another import: an identical one within the cooldown is the free retry of the first (charges.test.ts).
    const refused = await get('/fixture/import?q=b');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.type, 'RateLimit');
    assert.equal(refused.json().error.retry_after, 18);
    assert.equal(refused.headers['retry-after'], '18');
    t.clock.set(start + 30_001);
    assert.equal((await get('/fixture/import?q=a')).statusCode, 200);
    assert.equal((await remaining('related-keywords')).remaining, 498, 'an identical import counts again');
  });

  test('accounts never see or spend each other’s counters, cache entries or history', async () => {
    const other = await t.account('premium');
    await get('/fixture/history?q=mine');
    for (const q of ['a', 'b', 'c']) await get(`/fixture/serps?q=${q}`);
    // The other account has its own window, pool and cache.
    const theirs = await get('/fixture/serps?q=a', other.key);
    assert.equal(theirs.statusCode, 200);
    assert.equal(theirs.json().n, executions, 'executed for them, not served from my cache');
    assert.equal((await remaining('serps', other.key)).remaining, 499);
    assert.equal((await remaining('sp-overview', other.key)).remaining, 70);
    assert.deepEqual(await t.ctx.policy.store.history(other.id, 'site'), []);
    assert.deepEqual(await t.ctx.policy.store.history(accountId, 'site'), ['mine']);
    assert.equal(await t.ctx.policy.store.hasLookup(other.id, 'overview', 'mine', 0), false);
    assert.equal(await t.ctx.policy.store.hasLookup(accountId, 'overview', 'mine', 0), true);
  });
});

describe('client classes', () => {
  test('web and mcp clients have a 1-second window, retry_after 1, and no import cooldown', async () => {
    for (const cls of ['web', 'mcp'] as const) {
      const app = await testApp({ extraRoutes: fixtureRoutes, clientClassOf: () => cls });
      const { key: k } = await app.account('premium');
      const call = (p: string) => app.app.inject({ method: 'GET', url: `/v3${p}`, headers: { 'x-access-token': k } });
      const start = app.clock.now();
      for (const q of ['a', 'b', 'c']) assert.equal((await call(`/fixture/serps?q=${q}`)).statusCode, 200);
      app.clock.set(start + 1000);
      const refused = await call('/fixture/serps?q=d');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error.retry_after, 1);
      assert.equal(refused.headers['retry-after'], '1');
      app.clock.set(start + 1001);
      assert.equal((await call('/fixture/serps?q=d')).statusCode, 200);
      assert.equal((await call('/fixture/import?q=1')).statusCode, 200);
      assert.equal((await call('/fixture/import?q=2')).statusCode, 200, 'no import cooldown outside API-key clients');
      await app.close();
    }
  });
});
