/**
 * Competitor keywords (rule 2), competitor domains (rule 3) and suggested keywords (rule 4).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, HOUR, SECOND } from '../../../src/lib/clock.js';
import { newClient, pace, q, type KeywordClient } from './helpers.js';
import { spend } from '../link/helpers.js';

let t: TestApp;
/** A domain of the tiny world with a few hundred ranking keywords in the United States. */
const DOMAIN = 'fabriclife.io';
/** A wiki-like domain that ranks for more than 1,000 keywords. */
const BIG_DOMAIN = 'openpedia.org';

const competitor = (c: KeywordClient, url: string, location: number | string, method: 'GET' | 'POST' = 'GET') =>
  method === 'GET' ? c.get(`/competitor-keywords?${q({ url, location_id: location })}`) : c.post(`/competitor-keywords?${q({ url, location_id: location })}`);
const domains = (c: KeywordClient, url: string, location: number) => c.get(`/competitor-domain?${q({ url, location_id: location })}`);

const NO_RESULT = { error: { type: 'Error', message: 'No result' } };

describe('competitor keywords, competitor domains, suggested keywords', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('competitor keywords: keyword items with position and url, worst position first', async () => {
    const c = await newClient(t);
    const res = await competitor(c, DOMAIN, 2840);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.url_type, 'domain');
    assert.deepEqual(body.location, { _id: 2840, label: 'United States', code: 'us' });
    assert.ok(body.keywords.length > 50);
    assert.ok(body.keywords.length <= 700);
    assert.equal(body.totalCount, body.keywords.length);
    for (let i = 1; i < body.keywords.length; i++) {
      assert.ok(body.keywords[i - 1].position >= body.keywords[i].position, `position ${i} is no worse than the one before`);
    }
    assert.ok(body.keywords[0].position > body.keywords.at(-1).position);
    for (const k of body.keywords) {
      assert.match(k._id, /^[0-9a-f]{32}$/);
      assert.ok(Number.isInteger(k.position) && k.position >= 1);
      assert.match(k.url, /fabriclife\.io/);
      assert.equal(k.lid, 2840);
    }
    assert.equal((await c.pool()).remaining, 499);
  });

  test('at most the plan rows: entry 200, custom 1,000 (the ceiling)', async () => {
    const entry = await newClient(t, 'entry');
    const small = (await competitor(entry, DOMAIN, 2840)).json();
    assert.equal(small.keywords.length, 200);
    const custom = await newClient(t, 'custom');
    const big = (await competitor(custom, BIG_DOMAIN, 2840)).json();
    assert.equal(big.keywords.length, 1000);
    assert.ok(big.totalCount > 1000);
  });

  test('a row limit keeps the best rankings, still presented worst to best', async () => {
    type Ranking = { kw: string; position: number };
    const positions = (list: Ranking[]) => list.map((k) => k.position);
    const bestFirst = (list: Ranking[]) => positions(list).sort((a, b) => a - b);
    const assertWorstFirst = (list: Ranking[]) => {
      for (let i = 1; i < list.length; i++) assert.ok(list[i - 1].position >= list[i].position, `position ${i} is no worse than the one before`);
    };
    const entry = await newClient(t, 'entry');
    const custom = await newClient(t, 'custom');
    // Every ranking of a domain below the ceiling, against the entry plan's 200.
    const all = (await competitor(custom, DOMAIN, 2840)).json();
    assert.equal(all.keywords.length, all.totalCount);
    assert.ok(all.totalCount > 200);
    const cut = (await competitor(entry, DOMAIN, 2840)).json();
    assert.equal(cut.keywords.length, 200);
    assert.equal(cut.totalCount, all.totalCount);
    assertWorstFirst(cut.keywords);
    assert.deepEqual(bestFirst(cut.keywords), bestFirst(all.keywords).slice(0, 200));
    const allKeywords = new Set(all.keywords.map((k: Ranking) => k.kw));
    for (const k of cut.keywords) assert.ok(allKeywords.has(k.kw));
    pace(t);
    // Past the 1,000 ceiling: the entry plan's 200 are the best of the custom plan's 1,000.
    const big = (await competitor(custom, BIG_DOMAIN, 2840)).json();
    const bigCut = (await competitor(entry, BIG_DOMAIN, 2840)).json();
    assert.ok(big.totalCount > 1000);
    assertWorstFirst(big.keywords);
    assertWorstFirst(bigCut.keywords);
    assert.deepEqual(bestFirst(bigCut.keywords), bestFirst(big.keywords).slice(0, 200));
    assert.ok(bestFirst(big.keywords)[0] < bestFirst(big.keywords).at(-1)!, 'the domain ranks at several positions');
    pace(t);
    // Suggested keywords pick from the same best rankings, best first.
    const suggested = (await entry.get(`/suggested-keywords?${q({ url: BIG_DOMAIN, location_id: 2840 })}`)).json();
    assert.equal(suggested.keywords.length, 200);
    assert.deepEqual(positions(suggested.keywords), bestFirst(bigCut.keywords));
  });

  test('location 0 (anywhere) and a listed country work; a city is treated as its country', async () => {
    const c = await newClient(t);
    const anywhere = await competitor(c, DOMAIN, 0);
    assert.equal(anywhere.statusCode, 200);
    assert.equal(anywhere.json().location._id, 0);
    pace(t);
    const country = await competitor(c, DOMAIN, 2840);
    pace(t);
    // 1023191 is New York, New York, United States.
    const city = await competitor(c, DOMAIN, 1023191);
    assert.equal(city.statusCode, 200);
    assert.deepEqual(city.json().location, country.json().location);
    assert.deepEqual(
      city.json().keywords.map((k: { kw: string; position: number }) => [k.kw, k.position]),
      country.json().keywords.map((k: { kw: string; position: number }) => [k.kw, k.position]),
    );
    pace(t);
    const uk = await competitor(c, 'soleguide.co.uk', 2826);
    assert.equal(uk.statusCode, 200);
    assert.deepEqual(uk.json().location, { _id: 2826, label: 'United Kingdom', code: 'gb' });
  });

  test('Taiwan and Hong Kong (top-level regions in the geotargets) are supported countries, with their cities', async () => {
    const c = await newClient(t, 'custom');
    // 1012808 is Chiayi City, Taiwan; 9069536 is Kowloon, Hong Kong.
    for (const [location, country] of [
      [2158, 2158],
      [1012808, 2158],
      [2344, 2344],
      [9069536, 2344],
    ]) {
      const res = await competitor(c, DOMAIN, location);
      assert.equal(res.statusCode, 200, String(location));
      assert.equal(res.json().location._id, country, String(location));
      pace(t);
    }
    // They keep the type the data gives them.
    const taiwan = (await t.app.inject({ method: 'GET', url: '/v3/shared/locations/2158', headers: { 'x-access-token': c.key } })).json();
    assert.equal(taiwan.target_type, 'Region');
    assert.equal(taiwan.parent_id, null);
  });

  test('a state is treated as its country (21167 New York → 2840)', async () => {
    const c = await newClient(t);
    const country = await competitor(c, DOMAIN, 2840);
    pace(t);
    const state = await competitor(c, DOMAIN, 21167);
    assert.equal(state.statusCode, 200);
    assert.deepEqual(state.json().location, { _id: 2840, label: 'United States', code: 'us' });
    assert.deepEqual(state.json().keywords, country.json().keywords);
  });

  test('an unlisted country (2004 Afghanistan) → 204 with an empty body, nothing charged', async () => {
    const c = await newClient(t);
    for (const method of ['GET', 'POST'] as const) {
      const res = await competitor(c, DOMAIN, 2004, method);
      assert.equal(res.statusCode, 204, method);
      assert.equal(res.body, '', method);
    }
    assert.equal((await c.pool()).remaining, 500);
    assert.equal((await c.pool()).reset, null, 'no period started');
    // Nothing recorded either: no history entry, competitor domains still locked.
    assert.deepEqual((await c.get('/requests')).json(), []);
    assert.deepEqual((await domains(c, DOMAIN, 2004)).json(), NO_RESULT);
    // Nor took the burst: three lookups are admitted straight after.
    for (const url of ['a.fabriclife.io', 'b.fabriclife.io', 'c.fabriclife.io']) assert.equal((await competitor(c, url, 2840)).statusCode, 200);
  });

  test('an unsupported location answers 204 before admission: with the burst window full or the pool spent, nothing changes', async () => {
    const c = await newClient(t);
    for (const url of ['a.fabriclife.io', 'b.fabriclife.io', 'c.fabriclife.io']) assert.equal((await competitor(c, url, 2840)).statusCode, 200);
    const counters = await c.pool();
    for (const method of ['GET', 'POST'] as const) {
      const res = await competitor(c, DOMAIN, 2004, method);
      assert.equal(res.statusCode, 204, `${method} with the burst window full`);
      assert.equal(res.body, '');
    }
    // Parameters are still checked first: a bad url is a 422, not a 204 or a 429.
    assert.equal((await competitor(c, 'not a url', 2004)).statusCode, 422);
    const refused = await competitor(c, 'd.fabriclife.io', 2840);
    assert.equal(refused.statusCode, 429, 'the window is full indeed');
    assert.deepEqual(await c.pool(), counters);
    t.clock.advance(31 * SECOND);
    await spend(t, c.id, counters.remaining, 'related-keywords');
    const spent = await c.pool();
    assert.equal((await competitor(c, DOMAIN, 2004)).statusCode, 204, 'with the pool spent');
    assert.equal((await competitor(c, 'd.fabriclife.io', 2840)).json().error.type, 'CreditLimit');
    assert.deepEqual(await c.pool(), spent);
    assert.equal((await c.get('/requests')).json().length, 3);
  });

  test('GET then POST of the same query is one cache entry and one charge', async () => {
    const c = await newClient(t);
    const get = await competitor(c, DOMAIN, 2840, 'GET');
    const post = await competitor(c, DOMAIN, 2840, 'POST');
    assert.equal(post.statusCode, 200);
    assert.equal(post.headers['x-cache'], 'HIT');
    assert.equal(post.body, get.body);
    assert.equal((await c.pool()).remaining, 499);
    assert.equal((await c.get('/requests')).json().length, 1);
  });

  test('POST takes its parameters from the query string only', async () => {
    const c = await newClient(t);
    const res = await c.post('/competitor-keywords', { url: DOMAIN, location_id: 2840 });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.type, 'InvalidInput');
    assert.equal((await c.pool()).remaining, 500);
  });

  test('POST: a body sent anyway is ignored (cache key, history and lookups follow the query)', async () => {
    const c = await newClient(t);
    const query = `/competitor-keywords?${q({ url: DOMAIN, location_id: 2840 })}`;
    const post = await c.post(query, { url: 'geartalk.org', location_id: 2826 });
    assert.equal(post.statusCode, 200);
    assert.deepEqual(post.json().location, { _id: 2840, label: 'United States', code: 'us' });
    const get = await c.get(query);
    assert.equal(get.headers['x-cache'], 'HIT', 'cached under the query');
    assert.equal(get.body, post.body);
    const history = (await c.get('/requests')).json();
    assert.equal(history.length, 1);
    assert.equal(history[0].url, DOMAIN);
    assert.equal((await domains(c, DOMAIN, 2840)).statusCode, 200);
    assert.deepEqual((await domains(c, 'geartalk.org', 2826)).json(), NO_RESULT);
    pace(t);
    const other = await competitor(c, 'geartalk.org', 2826);
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['x-cache'], undefined, 'the body did not make a cache entry for its url');
    assert.equal((await c.pool()).remaining, 498);
  });

  test('POST: a body of the wrong types is ignored too, never a 5xx', async () => {
    const c = await newClient(t);
    for (const body of [{ url: 5 }, { url: null }, { location_id: 'x', url: ['a'] }]) {
      const res = await c.post(`/competitor-keywords?${q({ url: `shop.${DOMAIN}`, location_id: 2840 })}`, body);
      assert.equal(res.statusCode, 200, JSON.stringify(body));
      assert.match(res.json().keywords[0]?.url ?? `shop.${DOMAIN}`, /shop\.fabriclife\.io/);
      pace(t);
    }
    assert.equal((await c.get('/requests')).json()[0].url, `shop.${DOMAIN}`);
  });

  test('competitor domains: 422 No result without a lookup; works right after one; refused again at 24 h + 1 ms; free', async () => {
    const c = await newClient(t);
    const refused = await domains(c, DOMAIN, 2840);
    assert.equal(refused.statusCode, 422);
    assert.equal(refused.body, JSON.stringify(NO_RESULT));
    const start = t.clock.now();
    await competitor(c, DOMAIN, 2840);
    const poolAfterLookup = await c.pool();
    const ok = await domains(c, DOMAIN, 2840);
    assert.equal(ok.statusCode, 200);
    const list = ok.json();
    assert.ok(Array.isArray(list) && list.length > 0);
    for (const d of list) assert.equal(typeof d, 'string');
    assert.ok(!list.includes(DOMAIN), 'a domain is not its own competitor');
    // Another location or url is not unlocked by this lookup.
    assert.deepEqual((await domains(c, DOMAIN, 2826)).json(), NO_RESULT);
    assert.deepEqual((await domains(c, 'geartalk.org', 2840)).json(), NO_RESULT);
    t.clock.set(start + DAY - 1);
    assert.equal((await domains(c, DOMAIN, 2840)).statusCode, 200);
    t.clock.set(start + DAY + 1);
    const expired = await domains(c, DOMAIN, 2840);
    assert.equal(expired.statusCode, 422);
    assert.deepEqual(expired.json(), NO_RESULT);
    // Free: many calls, no charge, no burst.
    t.clock.set(start + HOUR);
    for (let i = 0; i < 6; i++) await domains(c, DOMAIN, 2840);
    assert.equal((await c.pool()).remaining, poolAfterLookup.remaining);
  });

  test("competitor domains: a POST lookup unlocks them too; another account's lookup does not", async () => {
    const c = await newClient(t);
    const other = await newClient(t);
    await competitor(c, 'geartalk.org', 2840, 'POST');
    assert.equal((await domains(c, 'geartalk.org', 2840)).statusCode, 200);
    assert.deepEqual((await domains(other, 'geartalk.org', 2840)).json(), NO_RESULT);
  });

  test('suggested keywords: {_id, position, kw, sv, lid} items, one lookup, ids exportable', async () => {
    const c = await newClient(t);
    const res = await c.get(`/suggested-keywords?${q({ url: DOMAIN, location_id: 2840 })}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.url_type, 'domain');
    assert.deepEqual(body.location, { _id: 2840, label: 'United States', code: 'us' });
    assert.ok(body.keywords.length > 0 && body.keywords.length <= 700);
    for (const k of body.keywords) {
      assert.deepEqual(Object.keys(k).sort(), ['_id', 'kw', 'lid', 'position', 'sv']);
      assert.match(k._id, /^[0-9a-f]{32}$/);
      assert.equal(k.lid, 2840);
    }
    assert.equal((await c.pool()).remaining, 499);
    const again = await c.get(`/suggested-keywords?${q({ url: DOMAIN, location_id: 2840 })}`);
    assert.equal(again.headers['x-cache'], 'HIT');
    const ids = body.keywords.map((k: { _id: string }) => k._id);
    const exported = (await c.post('/keywords', { keyword_ids: ids })).json();
    assert.deepEqual(
      exported.map((k: { _id: string }) => k._id),
      ids,
    );
    assert.deepEqual(
      exported.map((k: { kw: string }) => k.kw),
      body.keywords.map((k: { kw: string }) => k.kw),
    );
  });

  test('suggested keywords: url_type is classified as competitor keywords do (www. is the domain)', async () => {
    const c = await newClient(t, 'custom');
    for (const [url, type] of [
      [`www.${DOMAIN}`, 'domain'],
      [`https://www.${DOMAIN}/`, 'domain'],
      [`shop.${DOMAIN}`, 'subdomain'],
      [`${DOMAIN}/blog`, 'url'],
    ]) {
      const suggested = (await c.get(`/suggested-keywords?${q({ url, location_id: 2840 })}`)).json();
      const ranking = (await competitor(c, url, 2840)).json();
      assert.equal(suggested.url_type, type, url);
      assert.equal(ranking.url_type, type, url);
      t.clock.advance(31 * SECOND);
    }
  });

  test('suggested keywords: at most the plan rows; a bad url or location → 422', async () => {
    const c = await newClient(t, 'entry');
    const body = (await c.get(`/suggested-keywords?${q({ url: BIG_DOMAIN, location_id: 2840 })}`)).json();
    assert.ok(body.keywords.length <= 200);
    const cases: Record<string, string | number>[] = [
      { url: 'not a url', location_id: 2840 },
      { url: DOMAIN, location_id: 999_999_999 },
      { url: DOMAIN },
      { location_id: 2840 },
    ];
    for (const params of cases) {
      const res = await c.get(`/suggested-keywords?${q(params)}`);
      assert.equal(res.statusCode, 422, JSON.stringify(params));
      assert.equal(res.json().error.type, 'InvalidInput');
    }
  });
});
