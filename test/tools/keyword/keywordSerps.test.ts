/**
 * GET /keyword-tool/serps (rule 6): rkID, serp, kwOpps, searchIntent keyed by keyword id,
 * contentTypes, serpFeatures; location 0 or missing means 2840; page; platform 2 = mobile.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { contentTokens, tokenize } from '../../../src/engine/search/text.js';
import { newClient, pace, q, type KeywordClient } from './helpers.js';

let t: TestApp;

/** The rich-snippet item types the contract lists. */
const ITEM_TYPES = new Set(
  'SPELL_ERROR SUGGESTION KNO_GRAPH KNO_GRAPH_LINK TOP_CAROUSEL TOP_STORIES ADV_TOP ADV_BOTTOM NEWS_CAROUSEL NEWS_PACK IMG_PACK VIDEO_PACK FLIGHTS VIDEO_PANEL INSTALL_APP INSTALL_APP_GRID LOCAL_PACK PROGRAM_OVERVIEW ORGANIC SIMILAR_QUERIES SIMILAR_ENTITIES SIMILAR_ENTITIES2 SIMILAR_QUESTIONS SPECIFY_QUERY SIMILAR_PLACES POPULAR_LIST QUANTITY_ANSWER CURRENCY TIME FEATURED_SNIPPET WEATHER TRANSLATOR DICTIONARY TOP_SIGHTS TRAVEL_BOX INDEPTH_ARTICLE SHOP_RESULTS JOB_POSTING SPORTS'.split(
    ' ',
  ),
);

const serps = (c: KeywordClient, params: Record<string, string | number>) => c.get(`/serps?${q(params)}`);
const organic = (body: any) => body.serp.items.filter((i: { type: string }) => i.type === 'ORGANIC');

describe('GET /keyword-tool/serps', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('the keyword-detail response: rkID, serp, kwOpps, searchIntent, contentTypes, serpFeatures', async () => {
    const c = await newClient(t);
    const res = await serps(c, { kw: 'hiking boots', location_id: 2840 });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['contentTypes', 'kwOpps', 'rkID', 'searchIntent', 'serp', 'serpFeatures']);
    assert.match(body.rkID, /^[0-9a-f]{32}$/);
    assert.equal(body.serp.kw, 'hiking boots');
    assert.equal(body.serp.location_id, 2840);
    assert.equal(body.serp.platform_id, 1);
    assert.equal(body.serp.page, 0);
    assert.ok(Number.isInteger(body.serp.rank) && body.serp.rank >= 0 && body.serp.rank <= 100, 'difficulty');
    assert.ok(Number.isInteger(body.serp.results) && body.serp.results > 0, 'number of results');
    assert.ok(Array.isArray(body.serp.ctr) && body.serp.ctr.length > 0, 'CTR per organic position');
    const top = organic(body);
    assert.ok(top.length >= 5);
    for (const item of top) {
      assert.equal(typeof item.url, 'string');
      assert.equal(typeof item.title, 'string');
      assert.ok(typeof item.ctr === 'number');
      assert.ok(item.m && typeof item.m === 'object', 'per-URL authority metrics');
      assert.ok(typeof item.screenCoverage === 'number' && typeof item.visPart === 'number');
    }
    for (const item of body.serp.items) assert.ok(ITEM_TYPES.has(item.type), item.type);

    // kwOpps: a boolean and keyword words missing from the top five titles.
    assert.equal(typeof body.kwOpps.isOutdatedPage, 'boolean');
    assert.ok(Array.isArray(body.kwOpps.missingWordsInTitle));
    const words = contentTokens('hiking boots');
    const topFiveTitles = top.slice(0, 5).map((i: { title: string }) => new Set(tokenize(i.title)));
    const expectedMissing = words.filter((w) => topFiveTitles.some((title: Set<string>) => !title.has(w)));
    assert.deepEqual([...body.kwOpps.missingWordsInTitle].sort(), expectedMissing.sort());

    // searchIntent keyed by the keyword id (the SERP's mId).
    assert.deepEqual(Object.keys(body.searchIntent), [body.serp.mId]);
    const intent = body.searchIntent[body.serp.mId];
    assert.ok(intent === null || (Array.isArray(intent) && intent.every((l: unknown) => typeof l === 'string')));
    assert.ok(body.contentTypes.length > 0 && body.contentTypes.every((x: unknown) => typeof x === 'string'));
    // serpFeatures: the feature types present on the page.
    const present = new Set(body.serp.items.map((i: { type: string }) => i.type).filter((x: string) => x !== 'ORGANIC'));
    assert.deepEqual(new Set(body.serpFeatures), present);
    for (const f of body.serpFeatures) assert.ok(ITEM_TYPES.has(f));
    // Charged to serps, not to related-keywords.
    assert.equal((await c.pool('serps')).remaining, 499);
    assert.equal((await c.pool('related-keywords')).remaining, 500);
  });

  test('a word no title holds is a missing word; rkID is the related-keywords lookup id of the keyword', async () => {
    const c = await newClient(t);
    const body = (await serps(c, { kw: 'hiking boots zqxv', location_id: 2840 })).json();
    assert.ok(body.kwOpps.missingWordsInTitle.includes('zqxv'));
    const rel = (await c.get(`/related-keywords?${q({ kw: 'coffee grinder', location_id: 2840 })}`)).json();
    pace(t);
    const serp = (await serps(c, { kw: 'coffee grinder', location_id: 2840 })).json();
    assert.equal(serp.rkID, rel._id);
  });

  test('location 0 or missing means 2840', async () => {
    const c = await newClient(t);
    const us = (await serps(c, { kw: 'air fryer', location_id: 2840 })).json();
    pace(t);
    const zero = (await serps(c, { kw: 'air fryer', location_id: 0 })).json();
    pace(t);
    const missing = (await serps(c, { kw: 'air fryer' })).json();
    for (const body of [zero, missing]) {
      assert.equal(body.serp.location_id, 2840);
      assert.equal(body.serp.location._id, 2840);
      assert.equal(body.serp.mId, us.serp.mId);
      assert.equal(body.rkID, us.rkID);
      assert.deepEqual(
        organic(body).map((i: { url: string }) => i.url),
        organic(us).map((i: { url: string }) => i.url),
      );
    }
    // 0 and missing are one request: one cache entry, one charge (2840 spelled out is another).
    const again = await serps(c, { kw: 'air fryer' });
    assert.equal(again.headers['x-cache'], 'HIT');
    assert.equal((await c.pool('serps')).remaining, 498);
    pace(t);
    const de = (await serps(c, { kw: 'air fryer', location_id: 2276 })).json();
    assert.equal(de.serp.location_id, 2276);
  });

  test('page is honoured and platform 2 is mobile', async () => {
    const c = await newClient(t);
    const first = (await serps(c, { kw: 'coffee maker', location_id: 2840 })).json();
    const second = (await serps(c, { kw: 'coffee maker', location_id: 2840, page: 1 })).json();
    assert.equal(second.serp.page, 1);
    const firstUrls = new Set(organic(first).map((i: { url: string }) => i.url));
    assert.ok(organic(second).length > 0);
    assert.ok(
      organic(second).every((i: { url: string }) => !firstUrls.has(i.url)),
      'page 1 holds other results',
    );
    pace(t);
    const mobile = (await serps(c, { kw: 'coffee maker', location_id: 2840, platform_id: 2 })).json();
    assert.equal(mobile.serp.platform_id, 2);
    assert.equal(first.serp.platform_id, 1);
    assert.notDeepEqual(
      organic(mobile).map((i: { size: unknown }) => i.size),
      organic(first).map((i: { size: unknown }) => i.size),
      'mobile layout differs',
    );
  });

  test('SERP mIds are export ids', async () => {
    const c = await newClient(t);
    const body = (await serps(c, { kw: 'dog harness', location_id: 2840 })).json();
    const exported = (await c.post('/keywords', { keyword_ids: [body.serp.mId] })).json();
    assert.equal(exported.length, 1);
    assert.equal(exported[0].kw, 'dog harness');
    assert.equal(exported[0]._id, body.serp.mId);
  });

  test('bad parameters → 422 InvalidInput, nothing charged', async () => {
    const c = await newClient(t);
    const cases: [Record<string, string | number>, string][] = [
      [{ kw: 'tent', platform_id: 3 }, 'platform_id'],
      [{ kw: 'tent', platform_id: 'mobile' }, 'platform_id'],
      [{ kw: 'tent', page: -1 }, 'page'],
      [{ kw: 'tent', page: 'x' }, 'page'],
      [{ kw: 'tent', location_id: 999_999_999 }, 'location_id'],
      [{ kw: 'tent', language_id: 7 }, 'language_id'],
      [{ kw: '   ' }, 'kw'],
      [{ kw: 'k'.repeat(256) }, 'kw'],
    ];
    for (const [params, name] of cases) {
      const res = await serps(c, params);
      assert.equal(res.statusCode, 422, JSON.stringify(params).slice(0, 60));
      assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });
    }
    assert.equal((await c.get('/serps')).statusCode, 422);
    assert.equal((await c.pool('serps')).remaining, 500);
  });
});
