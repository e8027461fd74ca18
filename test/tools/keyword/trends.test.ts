/**
 * GET /keyword-tool/trends: deprecated and always empty, yet a paid operation on pool
 * `trends` that is charged once per distinct request and cached for 24 hours.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, HOUR, SECOND, unixSeconds } from '../../../src/lib/clock.js';

let t: TestApp;
let key: string;

function trends(kw: string, k = key) {
  return t.app.inject({ method: 'GET', url: `/v3/keyword-tool/trends?kw=${encodeURIComponent(kw)}`, headers: { 'x-access-token': k } });
}

async function pool(k = key) {
  const res = await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers: { 'x-access-token': k } });
  return res.json().resources.trends as { limit: number; remaining: number; reset: number | null };
}

describe('GET /keyword-tool/trends', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('answers an empty data array and an integer created_at', async () => {
    ({ key } = await t.account('premium'));
    const res = await trends('running shoes');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'data']);
    assert.deepEqual(body.data, []);
    assert.ok(Number.isInteger(body.created_at));
    assert.equal(body.created_at, unixSeconds(t.clock.now()));
  });

  test('draws one unit from pool trends and nothing from any other pool', async () => {
    ({ key } = await t.account('premium'));
    const before = await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } });
    await trends('garden hose');
    const after = (await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } })).json();
    assert.equal(after.resources.trends.remaining, 499);
    // The first counted request starts the 24-hour period.
    assert.equal(after.resources.trends.reset, 24 * 3600);
    for (const [name, state] of Object.entries<{ remaining: number }>(before.json().resources)) {
      if (name !== 'trends') assert.equal(after.resources[name].remaining, state.remaining, name);
    }
  });

  test('an identical request within 24 h is a cache hit: same body, no charge, no burst', async () => {
    ({ key } = await t.account('premium'));
    const first = await trends('cheap flights');
    assert.equal((await pool()).remaining, 499);
    // More repeats than the burst allows: a hit never touches the burst window.
    for (let i = 0; i < 5; i++) {
      t.clock.advance(HOUR);
      const again = await trends('cheap flights');
      assert.equal(again.statusCode, 200);
      assert.equal(again.body, first.body, 'the stored body, created_at included');
      assert.equal(again.headers['x-cache'], 'HIT');
    }
    assert.equal((await pool()).remaining, 499);
  });

  test('HEAD is the same operation as GET: one charge, one cache entry', async () => {
    ({ key } = await t.account('premium'));
    const head = await t.app.inject({ method: 'HEAD', url: '/v3/keyword-tool/trends?kw=lamps', headers: { 'x-access-token': key } });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    const get = await trends('lamps');
    assert.equal(get.headers['x-cache'], 'HIT');
    assert.deepEqual(get.json().data, []);
    const again = await t.app.inject({ method: 'HEAD', url: '/v3/keyword-tool/trends?kw=lamps', headers: { 'x-access-token': key } });
    assert.equal(again.headers['x-cache'], 'HIT');
    assert.equal((await pool()).remaining, 499);
  });

  test('keyword text is compared after trimming and collapsing whitespace', async () => {
    ({ key } = await t.account('premium'));
    const first = await trends('blue  widgets');
    const same = await trends('  blue widgets ');
    assert.equal(same.body, first.body);
    assert.equal((await pool()).remaining, 499);
  });

  test('after 24 h the request is charged again, with a fresh created_at', async () => {
    ({ key } = await t.account('premium'));
    const first = await trends('winter tyres');
    t.clock.advance(DAY + SECOND);
    const second = await trends('winter tyres');
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['x-cache'], undefined);
    assert.ok(second.json().created_at > first.json().created_at);
    assert.deepEqual(second.json().data, []);
  });

  test('different keywords are charged separately; the cache belongs to the account', async () => {
    ({ key } = await t.account('premium'));
    const other = await t.account('premium');
    await trends('alpha');
    await trends('beta');
    assert.equal((await pool()).remaining, 498);
    await trends('alpha', other.key);
    assert.equal((await pool(other.key)).remaining, 499);
  });

  test('the fourth distinct lookup within 30 s → 429 RateLimit with retry_after 30', async () => {
    ({ key } = await t.account('premium'));
    for (const kw of ['one', 'two', 'three']) assert.equal((await trends(kw)).statusCode, 200);
    const refused = await trends('four');
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json().error.type, 'RateLimit');
    assert.equal(refused.json().error.retry_after, 30);
    assert.equal(refused.headers['retry-after'], '30');
    assert.equal((await pool()).remaining, 497);
  });

  test('an exhausted trends pool → 429 CreditLimit; cached answers still come back', async () => {
    ({ key } = await t.account('entry'));
    const seen = await trends('kw-0');
    for (let i = 1; i < 100; i++) {
      if (i % 3 === 0) t.clock.advance(31 * SECOND);
      assert.equal((await trends(`kw-${i}`)).statusCode, 200, `lookup ${i}`);
    }
    t.clock.advance(31 * SECOND);
    const refused = await trends('kw-100');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.type, 'CreditLimit');
    assert.equal(refused.json().error.retry_after, undefined);
    assert.equal(refused.headers['retry-after'], undefined);
    assert.equal((await trends('kw-0')).body, seen.body);
  });
});
