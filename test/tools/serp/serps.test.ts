/**
 * GET /serp-tool/serps, /serps/reset, /url-metrics and /requests through HTTP on the fake
 * clock: the SERP object of DESIGN §5, desktop and mobile, location 0, the 24-hour cache,
 * reset charged per page and never cached, URL metrics and the request history.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, HOUR, SECOND, unixSeconds } from '../../../src/lib/clock.js';
import { md5Hex } from '../../../src/lib/ids.js';
import { assertError, assertInvalid, newClient, pace, qs, type ToolClient } from './serpClient.js';

/** Rich snippet item types of the contract (SERP object). */
const SPEC_TYPES = new Set(
  'SPELL_ERROR SUGGESTION KNO_GRAPH KNO_GRAPH_LINK TOP_CAROUSEL TOP_STORIES ADV_TOP ADV_BOTTOM NEWS_CAROUSEL NEWS_PACK IMG_PACK VIDEO_PACK FLIGHTS VIDEO_PANEL INSTALL_APP INSTALL_APP_GRID LOCAL_PACK PROGRAM_OVERVIEW ORGANIC SIMILAR_QUERIES SIMILAR_ENTITIES SIMILAR_ENTITIES2 SIMILAR_QUESTIONS SPECIFY_QUERY SIMILAR_PLACES POPULAR_LIST QUANTITY_ANSWER CURRENCY TIME FEATURED_SNIPPET WEATHER TRANSLATOR DICTIONARY TOP_SIGHTS TRAVEL_BOX INDEPTH_ARTICLE SHOP_RESULTS JOB_POSTING SPORTS'.split(
    ' ',
  ),
);
const SNAPSHOT_ID = /^([0-9a-f]{32})\.(\d{4}-\d{2}-\d{2})(\.100)?(\.sch)?$/;
const VIEWPORT = { 1: { width: 1366, height: 768 }, 2: { width: 390, height: 844 } } as const;

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());

const serps = (c: ToolClient, params: Record<string, string | number>) => c.get(`/serp-tool/serps?${qs(params)}`);
const reset = (c: ToolClient, params: Record<string, string | number>) => c.get(`/serp-tool/serps/reset?${qs(params)}`);
const today = () => new Date(t.clock.now()).toISOString().slice(0, 10);

const isInt = (x: unknown) => Number.isInteger(x);
const isPercent = (x: unknown) => typeof x === 'number' && x >= 0 && x <= 100;

/** Checks one SERP item against DESIGN §5 and the layout model of its platform. */
function checkItem(item: any, platform: 1 | 2): void {
  assert.ok(SPEC_TYPES.has(item.type), `${item.type} is a type of the contract`);
  for (const k of ['type', 'url', 'title', 'topRank', 'size', 'screenCoverage', 'visPart', 'coverage', 'positionFromTheTopEdge', 'positionToFold', 'items']) {
    assert.ok(k in item, `${item.type} has ${k}`);
  }
  // The reference allows no null here: an item without a description, domain, metrics or CTR leaves the field out.
  for (const k of ['desc', 'domain', 'm', 'ctr']) assert.notEqual(item[k], null, `${item.type}: ${k} is not null`);
  if (item.url !== null)
    assert.ok(typeof item.desc === 'string' && typeof item.domain === 'string' && typeof item.m === 'object', `${item.type} is result-like`);
  const { t: top, l, b, r } = item.size;
  assert.ok([top, l, b, r].every(isInt) && b > top && r > l && l >= 0 && r <= VIEWPORT[platform].width, JSON.stringify(item.size));
  assert.ok(isPercent(item.screenCoverage) && isPercent(item.visPart));
  const vp = VIEWPORT[platform];
  const fold = item.positionToFold;
  assert.equal(fold.fold, vp.height);
  assert.equal(fold.elementTop, top);
  assert.equal(fold.elementBottom, b);
  const visible = Math.max(0, Math.min(b, vp.height) - top);
  assert.equal(fold.status, b <= vp.height ? 'above' : top < vp.height ? 'in' : 'below');
  // Whole percent (the reference's integers), rounded from the layout's two decimals.
  assert.ok(isInt(item.visPart) && isInt(item.screenCoverage));
  assert.ok(Math.abs(item.visPart - (100 * visible) / (b - top)) <= 0.51, `visPart of ${item.type}: ${JSON.stringify(item)}`);
  assert.ok(Math.abs(item.screenCoverage - (100 * visible * (r - l)) / (vp.width * vp.height)) <= 0.51, `screenCoverage of ${item.type}`);
  assert.equal(fold.rectTopOfWrapper, top);
  assert.equal(fold.rectBottomOfWrapper, b);
  assert.equal(item.positionFromTheTopEdge, top.toFixed(2));
  assert.ok(item.coverage > 0 && item.coverage <= 1, 'a share of the page');
  if (fold.status === 'above') assert.equal(item.visPart, 100);
  if (fold.status === 'below') assert.equal(item.screenCoverage, 0);
  assert.ok(Array.isArray(item.items));
  if (item.m !== undefined) {
    const { linkindex, authority, social } = item.m;
    assert.ok(isInt(linkindex.v.CitationFlow) && isInt(linkindex.v.TrustFlow) && isInt(linkindex.ts));
    assert.ok(isPercent(linkindex.v.CitationFlow) && isPercent(linkindex.v.TrustFlow));
    assert.ok(isPercent(authority.v.pda) && isPercent(authority.v.upa) && isInt(authority.ts));
    // A share count; that it is never negative is the todo test below.
    assert.ok(isInt(social.v.l) && isInt(social.ts));
  }
}

/** Checks a whole SERP object: fields, identities, items, CTRs. */
function checkSerp(serp: any, expect: { kw: string; location: number; platform: 1 | 2; at?: number }): void {
  for (const k of [
    '_id',
    'kw',
    'mId',
    'page',
    'location_id',
    'location',
    'platform_id',
    'items',
    'rank',
    'rank_updated_at',
    'created_at',
    'ctr',
    'results',
    'serp_results',
    'serp_snapshot_id',
    'serp_source_url',
    'serpFeaturesImpact',
  ]) {
    assert.ok(k in serp, `SERP has ${k}`);
  }
  assert.match(serp._id, /^[0-9a-f]{32}$/);
  assert.match(serp.mId, /^[0-9a-f]{32}$/);
  assert.equal(serp.kw, expect.kw);
  assert.equal(serp.page, 0);
  assert.equal(serp.location_id, expect.location);
  assert.equal(serp.location._id, expect.location);
  assert.equal(typeof serp.location.label, 'string');
  assert.equal(serp.platform_id, expect.platform);
  assert.ok(isPercent(serp.rank) && isInt(serp.rank));
  assert.equal(serp.created_at, expect.at ?? unixSeconds(t.clock.now()));
  assert.ok(isInt(serp.rank_updated_at));
  assert.ok(isInt(serp.results) && serp.results > 0, 'total number of results');
  assert.ok(isPercent(serp.serpFeaturesImpact) && isInt(serp.serpFeaturesImpact));
  const source = new URL(serp.serp_source_url);
  assert.equal(source.pathname, '/search');
  assert.equal(source.searchParams.get('q'), expect.kw);
  assert.equal(source.searchParams.get('device'), expect.platform === 2 ? 'mobile' : null);

  const organic = serp.items.filter((i: any) => i.type === 'ORGANIC');
  assert.equal(organic.length, serp.serp_results);
  assert.ok(organic.length > 0);
  const m = SNAPSHOT_ID.exec(serp.serp_snapshot_id);
  assert.ok(m, `serp_snapshot_id ${serp.serp_snapshot_id} has the form <md5>.<YYYY-MM-DD>[.100][.sch]`);
  assert.equal(m[1], serp._id);
  assert.equal(m[2], today());
  assert.equal(m[3] !== undefined, organic.length >= 100, '.100 for a hundred-result SERP');
  assert.equal(m[4] !== undefined, m[2] >= '2026-10-02', '.sch from 2026-10-02');

  organic.forEach((item: any, i: number) => {
    assert.equal(item.position, i + 1);
    assert.match(item.url, /^https?:\/\//);
    assert.ok(item.title.length > 0 && typeof item.desc === 'string' && item.domain.length > 0);
    assert.ok(typeof item.ctr === 'number' && item.ctr >= 0 && item.ctr <= 1);
    assert.notEqual(item.m, null, 'organic results carry link metrics');
  });
  assert.deepEqual(
    serp.ctr,
    organic.map((i: any) => i.ctr),
    'ctr lists the organic CTRs in order',
  );
  for (let i = 1; i < organic.length; i++) assert.ok(organic[i].ctr <= organic[i - 1].ctr + 1e-9, 'CTR falls with position');
  for (const item of serp.items) {
    try {
      checkItem(item, expect.platform);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${JSON.stringify(item)}`, { cause: err });
    }
  }
  const vp = VIEWPORT[expect.platform];
  assert.deepEqual(serp.browser.view, { w: vp.width, h: vp.height });
  assert.equal(serp.browser.doc.w, vp.width);
  assert.ok(serp.browser.doc.h >= Math.max(vp.height, ...serp.items.map((i: any) => i.size.b)), 'the document holds every item');
  // Top to bottom, then left to right.
  for (let i = 1; i < serp.items.length; i++) {
    const [a, b] = [serp.items[i - 1].size, serp.items[i].size];
    assert.ok(a.t < b.t || (a.t === b.t && a.l <= b.l));
  }
}

describe('GET /serp-tool/serps', () => {
  test('a SERP object with organic and paid results, features, per-result metrics and layout', async () => {
    const c = await newClient(t);
    const res = await serps(c, { kw: 'tent', location_id: 2840 });
    assert.equal(res.statusCode, 200);
    const serp = res.json();
    checkSerp(serp, { kw: 'tent', location: 2840, platform: 1 });
    const types = serp.items.map((i: any) => i.type);
    // 'tent' is commercial: ads above and below the organic results.
    assert.ok(types.includes('ADV_TOP') && types.includes('ADV_BOTTOM'), types.join());
    const adTop = serp.items.find((i: any) => i.type === 'ADV_TOP');
    assert.ok(adTop.items.length >= 1 && adTop.items.every((a: any) => a.type === 'ADV' && /^https?:\/\//.test(a.url) && a.title));
    assert.equal(adTop.ctr, undefined, 'no CTR of its own: left out');
    assert.ok(serp.items.indexOf(adTop) < types.indexOf('ORGANIC'), 'top ads above the first organic result');
    assert.ok(types.lastIndexOf('ORGANIC') < types.indexOf('ADV_BOTTOM'), 'bottom ads after the last organic result');
    assert.equal(serp.location.code, 'us');
    assert.equal(new URL(serp.serp_source_url).hostname, 'www.google.com');
    assert.ok(serp.serpFeaturesImpact > 0, 'ads above the results push them down');
  });

  test('feature types follow intent and come from the contract list', async () => {
    const c = await newClient(t, 'api-pro');
    const want: [string, string[]][] = [
      ['summitpeak', ['KNO_GRAPH']],
      ['camping chair near me', ['LOCAL_PACK']],
      ['how to clean running shoes', ['FEATURED_SNIPPET', 'VIDEO_PACK']],
      ['trekking poles', ['IMG_PACK', 'SHOP_RESULTS', 'SIMILAR_QUESTIONS', 'SIMILAR_QUERIES']],
    ];
    for (const [kw, features] of want) {
      const res = await serps(c, { kw, location_id: 2840 });
      assert.equal(res.statusCode, 200, kw);
      const serp = res.json();
      checkSerp(serp, { kw, location: 2840, platform: 1 });
      const types = new Set(serp.items.map((i: any) => i.type));
      for (const f of features) assert.ok(types.has(f), `${kw}: ${f} in ${[...types].join()}`);
      const snippet = serp.items.find((i: any) => i.type === 'FEATURED_SNIPPET');
      if (snippet) assert.equal(snippet.url, serp.items.find((i: any) => i.type === 'ORGANIC').url, 'the snippet quotes the first result');
      const panel = serp.items.find((i: any) => i.type === 'KNO_GRAPH');
      if (panel) assert.ok(panel.size.l >= 683, 'the desktop knowledge panel sits in the right-hand column');
      const questions = serp.items.find((i: any) => i.type === 'SIMILAR_QUESTIONS');
      if (questions) assert.ok(questions.items.every((q: any) => /^[0-9a-f]{32}$/.test(q.mId) && q.title));
      pace(t);
    }
  });

  test('social share counts are never negative', async () => {
    const c = await newClient(t);
    const serp = (await serps(c, { kw: 'tent', location_id: 2840 })).json();
    const negative = serp.items.filter((i: any) => i.m && i.m.social.v.l < 0).map((i: any) => `${i.url}: ${i.m.social.v.l}`);
    assert.deepEqual(negative, []);
  });

  test('desktop and mobile differ: identity, viewport, layout, panel column', async () => {
    const c = await newClient(t);
    const desktop = (await serps(c, { kw: 'summitpeak', location_id: 2840, platform_id: 1 })).json();
    const desktopAt = unixSeconds(t.clock.now());
    pace(t);
    const mobile = (await serps(c, { kw: 'summitpeak', location_id: 2840, platform_id: 2 })).json();
    checkSerp(desktop, { kw: 'summitpeak', location: 2840, platform: 1, at: desktopAt });
    checkSerp(mobile, { kw: 'summitpeak', location: 2840, platform: 2 });
    assert.notEqual(desktop._id, mobile._id);
    assert.notEqual(desktop.serp_snapshot_id, mobile.serp_snapshot_id);
    assert.ok(mobile.items.every((i: any) => i.size.r <= 390));
    assert.ok(desktop.items.some((i: any) => i.size.r > 390));
    const firstOrganic = (s: any) => s.items.find((i: any) => i.type === 'ORGANIC').size;
    assert.notEqual(firstOrganic(desktop).b - firstOrganic(desktop).t, firstOrganic(mobile).b - firstOrganic(mobile).t);
    const panel = (s: any) => s.items.find((i: any) => i.type === 'KNO_GRAPH');
    assert.ok(panel(desktop).size.l > firstOrganic(desktop).r, 'desktop: side column');
    assert.equal(panel(mobile).size.l, firstOrganic(mobile).l, 'mobile: in the single column');
    const aboveFold = (s: any) => s.items.filter((i: any) => i.positionToFold.status === 'above').length;
    assert.ok(aboveFold(desktop) !== aboveFold(mobile) || desktop.serpFeaturesImpact !== mobile.serpFeaturesImpact);
  });

  test('location_id 0 or missing means 2840, one request for both; another country has its own SERP', async () => {
    const c = await newClient(t);
    const us = (await serps(c, { kw: 'tent', location_id: 2840 })).json();
    pace(t);
    const zero = (await serps(c, { kw: 'tent', location_id: 0 })).json();
    assert.equal(zero.location_id, 2840);
    assert.equal(zero.location._id, 2840);
    assert.equal(zero._id, us._id);
    assert.equal(zero.serp_source_url, us.serp_source_url);
    assert.deepEqual(
      zero.items.map((i: any) => i.url),
      us.items.map((i: any) => i.url),
    );
    const charged = (await c.pool('serps')).remaining;
    pace(t);
    // Missing and 0 are one request: the cache entry of 0 answers it, uncharged.
    const missing = await c.get('/serp-tool/serps?kw=tent');
    assert.equal(missing.statusCode, 200);
    assert.equal(missing.headers['x-cache'], 'HIT');
    assert.equal(missing.json()._id, us._id);
    assert.equal((await c.pool('serps')).remaining, charged);
    pace(t);
    const de = (await serps(c, { kw: 'tent', location_id: 2276 })).json();
    assert.equal(de.location_id, 2276);
    assert.equal(new URL(de.serp_source_url).hostname, 'www.google.de');
    assert.notEqual(de._id, us._id);
  });

  test('an identical request within 24 h is answered from cache and charged once', async () => {
    const c = await newClient(t);
    const start = await c.pool('serps');
    const first = await serps(c, { kw: 'hiking boots', location_id: 2840 });
    assert.equal(first.statusCode, 200);
    assert.equal((await c.pool('serps')).remaining, start.remaining - 1);
    // Many identical requests at once: no burst refusal, one charge, the same body.
    t.clock.advance(HOUR);
    for (const kw of ['hiking boots', '  hiking   boots ', 'Hiking Boots', 'HIKING BOOTS']) {
      for (let i = 0; i < 4; i++) {
        const hit = await serps(c, { kw, location_id: 2840 });
        assert.equal(hit.statusCode, 200);
        assert.equal(hit.headers['x-cache'], 'HIT');
        assert.equal(hit.body, first.body);
      }
    }
    t.clock.advance(DAY - HOUR - SECOND);
    const last = await serps(c, { kw: 'hiking boots', location_id: 2840 });
    assert.equal(last.headers['x-cache'], 'HIT', '24 h − 1 s: still cached');
    assert.equal((await c.pool('serps')).remaining, start.remaining - 1);
    t.clock.advance(SECOND);
    const fresh = await serps(c, { kw: 'hiking boots', location_id: 2840 });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['x-cache'], undefined, '24 h: executed again');
    assert.equal(fresh.json().created_at, unixSeconds(t.clock.now()));
    // The daily period that started with the first request has ended: a full pool, minus this one.
    assert.equal((await c.pool('serps')).remaining, start.limit - 1);
  });
});

describe('GET /serp-tool/serps/reset', () => {
  test('serp_count is 1 to 10', async () => {
    const c = await newClient(t);
    for (const n of [0, 11, -1, 1.5, 'x']) assertInvalid(await reset(c, { kw: 'tent', location_id: 2840, serp_count: n }), 'serp_count');
    assert.equal((await c.pool('serps')).remaining, (await c.pool('serps')).limit, 'refusals charge nothing');
  });

  test('a missing location_id means 2840 and resets the cache entry of 0', async () => {
    const c = await newClient(t);
    const base = (await c.pool('serps')).remaining;
    const cached = (await serps(c, { kw: 'tent', location_id: 0 })).json();
    pace(t);
    const res = await c.get('/serp-tool/serps/reset?kw=tent');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().length, 1);
    assert.equal(res.json()[0].location_id, 2840);
    assert.equal(res.json()[0]._id, cached._id);
    assert.equal((await c.pool('serps')).remaining, base - 2);
    pace(t);
    const after = await serps(c, { kw: 'tent', location_id: 0 });
    assert.equal(after.headers['x-cache'], undefined, 'the reset forgot the entry shared by 0 and missing');
  });

  test('charges serp_count credits, also for pages past the results; never from cache', async () => {
    const c = await newClient(t);
    const before = (await c.pool('serps')).remaining;
    // 'drivex vs motorlane': page 0 full, page 1 partial, pages 2-4 fail to parse (187 results
    // before generator v12; three pages from v12, when Drivex got its own site, drivex.com, whose
    // third and later pages filled the list; two since v14, where a site shows twice at most).
    const first = await reset(c, { kw: 'drivex vs motorlane', location_id: 2840, serp_count: 5 });
    assert.equal(first.statusCode, 200);
    const pages = first.json();
    assert.equal(pages.length, 2, 'pages that did not parse are left out');
    assert.equal(pages[0].page, 0);
    assert.equal(pages[0].serp_results, 100);
    assert.equal(pages[1].page, 1);
    assert.ok(pages[1].serp_results > 0 && pages[1].serp_results < 100);
    assert.match(pages[1].serp_snapshot_id, /^[0-9a-f]{32}\.\d{4}-\d{2}-\d{2}\.sch$/, 'a partial page has no .100');
    assert.equal((await c.pool('serps')).remaining, before - 5, 'five pages, five credits');
    pace(t);
    const again = await reset(c, { kw: 'drivex vs motorlane', location_id: 2840, serp_count: 5 });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['x-cache'], undefined);
    assert.equal((await c.pool('serps')).remaining, before - 10, 'an identical reset is charged again');
    pace(t);
    assert.equal((await reset(c, { kw: 'tent', location_id: 0 })).json().length, 1, 'serp_count defaults to 1');
    assert.equal((await c.pool('serps')).remaining, before - 11);
  });

  test('after a reset, /serp-tool/serps executes again instead of answering its cache entry', async () => {
    const c = await newClient(t);
    const base = (await c.pool('serps')).remaining;
    const old = (await serps(c, { kw: 'backpack', location_id: 0 })).json();
    pace(t);
    assert.equal((await serps(c, { kw: 'backpack', location_id: 0 })).headers['x-cache'], 'HIT');
    t.clock.advance(HOUR);
    assert.equal((await reset(c, { kw: 'backpack', location_id: 2840, serp_count: 1 })).statusCode, 200);
    assert.equal((await c.pool('serps')).remaining, base - 2);
    pace(t);
    const fresh = await serps(c, { kw: 'backpack', location_id: 0 });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['x-cache'], undefined, 'not the old cache entry');
    assert.ok(fresh.json().created_at > old.created_at);
    assert.equal((await c.pool('serps')).remaining, base - 3, 'the fresh lookup is charged');
    pace(t);
    assert.equal((await serps(c, { kw: 'backpack', location_id: 0 })).headers['x-cache'], 'HIT', 'and cached again');
  });
});

describe('GET /serp-tool/serps/reset, keyword spelling', () => {
  test('a reset of the keyword in other letter case forgets the cached SERP too (one SERP, one cache entry)', async () => {
    const c = await newClient(t);
    const base = (await c.pool('serps')).remaining;
    const old = (await serps(c, { kw: 'Camping Stove', location_id: 2840 })).json();
    pace(t);
    assert.equal((await serps(c, { kw: 'camping stove', location_id: 2840 })).headers['x-cache'], 'HIT');
    t.clock.advance(HOUR);
    const again = await reset(c, { kw: 'CAMPING  STOVE', location_id: 2840 });
    assert.equal(again.json()[0]._id, old._id, 'the same SERP');
    pace(t);
    const fresh = await serps(c, { kw: 'Camping Stove', location_id: 2840 });
    assert.equal(fresh.headers['x-cache'], undefined);
    assert.ok(fresh.json().created_at > old.created_at);
    assert.equal((await c.pool('serps')).remaining, base - 3);
  });
});

describe('GET /serp-tool/url-metrics', () => {
  test('domain and page authority, citation and trust flow, TopRank; pool sch-url-metrics; cached', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    const res = await c.get('/serp-tool/url-metrics?url=https://www.summitpeak.com/');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body._id, md5Hex('https://www.summitpeak.com/'));
    assert.equal(body.url, 'https://www.summitpeak.com/');
    assert.equal(body.domain, 'summitpeak.com');
    const { pda, upa } = body.m.authority.v;
    const { CitationFlow, TrustFlow } = body.m.linkindex.v;
    assert.ok([pda, upa, CitationFlow, TrustFlow].every((x) => isInt(x) && isPercent(x)));
    assert.ok(isInt(body.topRank) && body.topRank >= 1);
    assert.equal(body.m.authority.ts, unixSeconds(t.clock.now()));
    const after = await c.pools();
    assert.equal(after['sch-url-metrics'].remaining, before['sch-url-metrics'].remaining - 1);
    for (const pool of Object.keys(before)) if (pool !== 'sch-url-metrics') assert.deepEqual(after[pool], before[pool], pool);
    // The same page in a SERP carries the same authority figures.
    pace(t);
    const serp = (await serps(c, { kw: 'summitpeak', location_id: 2840 })).json();
    const home = serp.items.find((i: any) => i.type === 'ORGANIC' && i.url === 'https://www.summitpeak.com/');
    assert.ok(home);
    assert.deepEqual(home.m.authority.v, { pda, upa });
    assert.equal(home.m.linkindex.v.CitationFlow, CitationFlow);
    assert.equal(home.m.linkindex.v.TrustFlow, TrustFlow);
    assert.equal(home.topRank, body.topRank);
    pace(t);
    const hit = await c.get('/serp-tool/url-metrics?url=https://www.summitpeak.com/');
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal((await c.pool('sch-url-metrics')).remaining, before['sch-url-metrics'].remaining - 1);
    // A domain and a page of it differ in page authority, share domain authority.
    pace(t);
    const page = (await c.get('/serp-tool/url-metrics?url=summitpeak.com/products/hiking-boots')).json();
    assert.equal(page.m.authority.v.pda, pda);
    assert.equal(page.domain, 'summitpeak.com');
  });
});

describe('GET /serp-tool/requests', () => {
  test('the last 100 lookups, oldest first, with _id, t, created, kw, platform_id, location, rank, rank_ts', async () => {
    const c = await newClient(t, 'api-pro');
    assert.deepEqual((await c.get('/serp-tool/requests')).json(), []);
    const sent: { kw: string; created: number; serp: any }[] = [];
    const kws = ['tent', 'backpack', 'hammock', 'headlamp', 'yoga mat'];
    for (let i = 0; i < 103; i++) {
      const kw = `${kws[i % kws.length]} ${i}`;
      const platform = i % 2 === 0 ? 1 : 2;
      const res = await serps(c, { kw, location_id: i % 3 === 0 ? 0 : 2826, platform_id: platform });
      assert.equal(res.statusCode, 200, kw);
      sent.push({ kw, created: unixSeconds(t.clock.now()), serp: res.json() });
      pace(t);
    }
    // A cache hit and a refusal add nothing.
    await serps(c, { kw: sent[102].kw, location_id: 0, platform_id: 1 });
    assertInvalid(await serps(c, { kw: 'tent', location_id: 99999999 }), 'location_id');
    const history = (await c.get('/serp-tool/requests')).json();
    assert.equal(history.length, 100);
    history.forEach((entry: any, i: number) => {
      const { kw, created, serp } = sent[i + 3];
      assert.deepEqual(entry, {
        _id: serp._id,
        t: 0,
        created,
        kw,
        platform_id: serp.platform_id,
        location: serp.location,
        rank: serp.rank,
        rank_ts: serp.rank_updated_at,
      });
      assert.deepEqual(Object.keys(entry.location).sort(), ['_id', 'code', 'label']);
    });
    assert.equal(history[0].location._id, 2840);
    assert.equal(history[0].platform_id, 2);
    assert.equal(history[1].location._id, 2826);
    assert.equal(history[1].platform_id, 1);
    // Histories are per account.
    const other = await newClient(t);
    assert.deepEqual((await other.get('/serp-tool/requests')).json(), []);
  });
});

describe('authentication', () => {
  test('every serp-tool route answers 401 without a key', async () => {
    for (const path of ['/serps?kw=tent&location_id=0', '/serps/reset?kw=tent&location_id=0', '/url-metrics?url=a.com', '/requests', '/serps/x/snapshot']) {
      const res = await t.app.inject({ method: 'GET', url: `/v3/serp-tool${path}` });
      assertError(res, 401, 'AuthError', 'Invalid API Key');
    }
  });
});
