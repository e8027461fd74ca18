/**
 * Authentication at the edge: the x-access-token header is the only way in, every failure
 * looks the same, and GET /keyword-tool/limits cannot be used to tell a real key from a
 * made-up one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { unixSeconds } from '../../src/lib/clock.js';
import { POOLS } from '../../src/policy/pools.js';

/** Limits resources the reference shows beside the pools. */
const REFERENCE_ONLY_RESOURCES = ['tracked_keywords', 'checked-keywords-ranks', 'ai-watcher-prompts', 'ai-watcher-monitors'];
/** Pools whose `reset` the reference types as nullable. */
const NULLABLE_RESET = new Set(['related-keywords', 'serps']);

const AUTH_ERROR = '{"error":{"type":"AuthError","message":"Invalid API Key"}}';

let t: TestApp;
let key: string;
let accountId: string;

async function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `/v3${url}`, headers });
}

describe('authentication', () => {
  before(async () => {
    t = await testApp();
    ({ key, id: accountId } = await t.account('premium'));
  });
  after(async () => t.close());

  test('a valid key in x-access-token is let in', async () => {
    const res = await get('/shared/locations/2840', { 'x-access-token': key });
    assert.equal(res.statusCode, 200);
  });

  test('the header name is case-insensitive', async () => {
    for (const name of ['X-Access-Token', 'X-ACCESS-TOKEN', 'x-Access-token']) {
      const res = await get('/shared/locations/2840', { [name]: key });
      assert.equal(res.statusCode, 200, name);
    }
  });

  const refusals: [string, () => Record<string, string>][] = [
    ['no key at all', () => ({})],
    ['an unknown key', () => ({ 'x-access-token': 'qry_' + 'A'.repeat(43) })],
    ['an empty key', () => ({ 'x-access-token': '' })],
    ['a key of spaces', () => ({ 'x-access-token': '   ' })],
    ['a key far too long', () => ({ 'x-access-token': 'k'.repeat(5000) })],
    ['a valid key as Authorization: Bearer', () => ({ authorization: `Bearer ${key}` })],
    ['a valid key in another header', () => ({ 'x-api-key': key })],
  ];
  for (const [name, headers] of refusals) {
    test(`${name} → 401 with exactly the contract's AuthError`, async () => {
      for (const url of ['/shared/locations/2840', '/keyword-tool/trends?kw=shoes', '/no/such/route/but/under/v3']) {
        const res = await get(url, headers());
        if (url.startsWith('/no/such')) {
          // An unknown route is not an operation: it answers 404 whoever asks.
          assert.equal(res.statusCode, 404);
          continue;
        }
        assert.equal(res.statusCode, 401, url);
        assert.equal(res.body, AUTH_ERROR, url);
        assert.match(String(res.headers['content-type']), /^application\/json/);
      }
    });
  }

  test('a revoked key is refused like an unknown one', async () => {
    const issued = await t.ctx.accounts.createKey(accountId, unixSeconds(t.clock.now()), 'to revoke');
    assert.equal((await get('/shared/locations/2840', { 'x-access-token': issued.key })).statusCode, 200);
    assert.equal(await t.ctx.accounts.revokeKey(issued.id, unixSeconds(t.clock.now())), true);
    const res = await get('/shared/locations/2840', { 'x-access-token': issued.key });
    assert.equal(res.statusCode, 401);
    assert.equal(res.body, AUTH_ERROR);
    // The account's other keys keep working.
    assert.equal((await get('/shared/locations/2840', { 'x-access-token': key })).statusCode, 200);
  });

  test('a revoked key no longer reads its plan from the limits', async () => {
    const issued = await t.ctx.accounts.createKey(accountId, unixSeconds(t.clock.now()));
    await t.ctx.accounts.revokeKey(issued.key, unixSeconds(t.clock.now()));
    const res = await get('/keyword-tool/limits', { 'x-access-token': issued.key });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().plan, null);
  });

  test('authentication is checked before validation', async () => {
    for (const url of ['/keyword-tool/trends', '/keyword-tool/trends?kw=%20%20', '/shared/locations/abc', '/shared/locations?nothing=1']) {
      const res = await get(url);
      assert.equal(res.statusCode, 401, url);
      assert.equal(res.body, AUTH_ERROR, url);
    }
    // With a key the same requests reach validation.
    const res = await get('/keyword-tool/trends', { 'x-access-token': key });
    assert.equal(res.statusCode, 422);
  });

  test('a refused request charges nothing', async () => {
    await get('/keyword-tool/trends?kw=refused', { authorization: `Bearer ${key}` });
    const limits = (await get('/keyword-tool/limits', { 'x-access-token': key })).json();
    assert.equal(limits.resources.trends.remaining, 500);
  });
});

describe('GET /keyword-tool/limits', () => {
  before(async () => {
    t = await testApp();
    ({ key, id: accountId } = await t.account('premium'));
  });
  after(async () => t.close());

  test('without a key and with an unknown key: 200, nothing remaining, identical bodies', async () => {
    const none = await get('/keyword-tool/limits');
    const unknown = await get('/keyword-tool/limits', { 'x-access-token': 'qry_not-a-key-at-all' });
    const empty = await get('/keyword-tool/limits', { 'x-access-token': '' });
    for (const res of [none, unknown, empty]) {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
    // Byte-identical, so that the answer reveals nothing about the key.
    assert.equal(unknown.body, none.body);
    assert.equal(empty.body, none.body);
    const body = none.json();
    assert.deepEqual(Object.keys(body.resources).sort(), [...POOLS, ...REFERENCE_ONLY_RESOURCES].sort());
    // No period runs: null where the reference allows it, else 0 (nothing to wait for).
    for (const pool of POOLS) assert.deepEqual(body.resources[pool], { limit: 0, remaining: 0, reset: NULLABLE_RESET.has(pool) ? null : 0 }, pool);
    assert.deepEqual(body.resources.tracked_keywords, { limit: 0, remaining: 0 });
    assert.equal(body.plan, null);
    assert.equal(body.upgraded_account, false);
    assert.equal(body.trackings, 0);
    assert.equal(body['related-keywords-rows'], 0);
    assert.equal(body['competitor-keywords-rows'], 0);
    assert.equal(body['tracked-keywords'], 0);
    assert.equal(body['reqs-per-short-period'], 3);
  });

  test('with a key: the plan numbers', async () => {
    const res = await get('/keyword-tool/limits', { 'x-access-token': key });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.plan, 'premium');
    assert.equal(body['related-keywords-rows'], 700);
    assert.equal(body['competitor-keywords-rows'], 700);
    assert.equal(body['tracked-keywords'], 700);
    assert.equal(body['reqs-per-short-period'], 3);
    assert.deepEqual(Object.keys(body.resources).sort(), [...POOLS, ...REFERENCE_ONLY_RESOURCES].sort());
    assert.deepEqual(body.resources.serps, { limit: 500, remaining: 500, reset: null });
    assert.deepEqual(body.resources['sp-overview'], { limit: 70, remaining: 70, reset: 0 });
    assert.equal(body.resources.links.limit, 500_000);
    assert.equal(body.resources.links.remaining, 500_000);
    // The monthly pool always has a reset: seconds until the end of the UTC month, relative.
    assert.ok(Number.isInteger(body.resources.links.reset) && body.resources.links.reset > 0);
    assert.ok(body.resources.links.reset <= 31 * 24 * 3600);
  });

  test('other plans report their own numbers', async () => {
    const entry = await t.account('entry');
    const body = (await get('/keyword-tool/limits', { 'x-access-token': entry.key })).json();
    assert.equal(body.plan, 'entry');
    assert.equal(body.resources.serps.limit, 100);
    assert.equal(body.resources['sp-overview'].limit, 20);
    assert.equal(body['related-keywords-rows'], 200);
  });

  test('limits is free: reading it never changes it', async () => {
    const first = await get('/keyword-tool/limits', { 'x-access-token': key });
    for (let i = 0; i < 5; i++) await get('/keyword-tool/limits', { 'x-access-token': key });
    assert.equal((await get('/keyword-tool/limits', { 'x-access-token': key })).body, first.body);
  });
});
