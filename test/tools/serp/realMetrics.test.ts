/**
 * Issue 24's first defect: with a SERP provider (SerpApi's format, fakes/serpApiCoffee.ts)
 * the SERP for "coffee" listed wikipedia.org, starbucks.com, peets.com with an empty `m` on
 * every organic item and a difficulty (`rank`) of 1, because result metrics came from the
 * sandbox's link index, which knows none of them. With Majestic and Moz configured (their
 * fakes, test/support/fakes), each result carries the providers' figures as given, `rank` is
 * computed from them and is the keyword's one difficulty of the day (the keyword tool's SERP
 * and `seo` say the same), each datum is bought once whoever asks, and a failing provider
 * answers 424 and charges nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../support/app.js';
import {
  coffeeSerpApiPage,
  COFFEE_TOP,
  majesticError,
  startFakeUpstream,
  type FakeLinkWeb,
  type FakeMajestic,
  type FakeUpstream,
} from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { keywordDifficulty } from '../../../src/engine/search/keywordDifficulty.js';
import { newClient, pace, qs, type ToolClient } from './serpClient.js';

let real: RealMode;
let web: FakeLinkWeb;
let serpapi: FakeUpstream;
let majestic: FakeMajestic;
let moz: FakeUpstream;
let t: TestApp;
let c: ToolClient;
let other: ToolClient;

type Item = {
  type: string;
  url: string;
  m?: { linkindex?: { v: Record<string, number | null> }; authority?: { v: Record<string, number | null> }; social?: unknown };
};

before(async () => {
  serpapi = await startFakeUpstream();
  serpapi.setDefault((req) => ({ json: coffeeSerpApiPage(req.url.searchParams.get('q') ?? '') }));
  real = await startRealMode({
    links: 'majestic',
    env: { QUARRY_SERP_SOURCE: 'serpapi', QUARRY_SERPAPI_KEY: 'test-key', QUARRY_SERPAPI_URL: serpapi.url },
  });
  ({ web, t } = real);
  majestic = real.majestic!;
  moz = real.moz!;
  c = await newClient(t);
  other = await newClient(t);
});
after(async () => {
  await real.close();
  await serpapi.close();
});

describe('SERP items in real mode', () => {
  test('each organic result carries Majestic’s and Moz’s figures; rank is computed from them, not 1', async () => {
    const before = { items: majestic.calls('GetIndexItemInfo').length, moz: moz.requests.length };
    const res = await c.get(`/serp-tool/serps?${qs({ kw: 'coffee', location_id: 2840 })}`);
    assert.equal(res.statusCode, 200, res.body);
    const serp = res.json() as { rank: number; items: Item[] };
    const organic = serp.items.filter((i) => i.type === 'ORGANIC');
    assert.deepEqual(
      organic.map((i) => i.url),
      [...COFFEE_TOP],
    );
    for (const item of organic) {
      const info = web.items[item.url];
      assert.ok(item.m, `${item.url} has metrics`);
      assert.deepEqual(item.m.linkindex!.v, {
        CitationFlow: info.CitationFlow,
        TrustFlow: info.TrustFlow,
        RefDomains: info.RefDomains,
        ExtBackLinks: info.ExtBackLinks,
      });
      const root = item.url.includes('wikipedia') ? 'wikipedia.org' : item.url.includes('starbucks') ? 'starbucks.com' : 'peets.com';
      assert.equal(item.m.authority!.v.pda, web.authority[root].da);
      assert.equal(item.m.authority!.v.upa, web.authority[item.url].pa);
      assert.equal(item.m.social, undefined, 'no provider gives social counts: the group is left out, not invented');
    }
    const expected = keywordDifficulty(organic.map((i) => ({ upa: web.authority[i.url].pa, pda: i.m!.authority!.v.pda! })));
    assert.equal(serp.rank, expected);
    assert.notEqual(serp.rank, 1);
    assert.equal(majestic.calls('GetIndexItemInfo').length - before.items, 1, 'one batch for the page');
    assert.equal(moz.requests.length - before.moz, 1, 'one batch for the page');
  });

  test('the keyword tool’s SERP and seo give the same difficulty; another account and another keyword buy no figure again', async () => {
    const calls = majestic.requests.length + moz.requests.length;
    pace(t);
    const serp = (await c.get(`/serp-tool/serps?${qs({ kw: 'coffee', location_id: 2840 })}`)).json() as { rank: number };
    pace(t);
    const detail = await other.get(`/keyword-tool/serps?${qs({ kw: 'coffee', location_id: 2840, language_id: 1000 })}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().serp.rank, serp.rank);
    pace(t);
    // Another keyword, the same result URLs: the SERP is bought, the link figures are not.
    const beans = await other.get(`/serp-tool/serps?${qs({ kw: 'coffee beans', location_id: 2840 })}`);
    assert.equal(beans.statusCode, 200, beans.body);
    assert.equal(majestic.requests.length + moz.requests.length, calls, 'every figure was already held');
  });

  test('a link provider failing: 424 UpstreamError, nothing charged, nothing kept', async () => {
    pace(t);
    const charged = (await c.pool('serps')).remaining;
    majestic.script(majesticError('InvalidAPIKey', 'The API key is not valid'));
    serpapi.setDefault((req) => ({ json: coffeeSerpApiPage(req.url.searchParams.get('q') ?? '', 4) }));
    const res = await c.get(`/serp-tool/serps?${qs({ kw: 'decaf coffee', location_id: 2840 })}`);
    assert.equal(res.statusCode, 424, res.body);
    assert.equal(res.json().error.type, 'UpstreamError');
    assert.match(res.json().error.message, /InvalidAPIKey/);
    assert.equal((await c.pool('serps')).remaining, charged);
    pace(t);
    const again = await c.get(`/serp-tool/serps?${qs({ kw: 'decaf coffee', location_id: 2840 })}`);
    assert.equal(again.statusCode, 200, again.body);
    const fourth = (again.json() as { items: Item[] }).items.filter((i) => i.type === 'ORGANIC')[3];
    assert.equal(fourth.url, 'https://www.starbucks.com/coffee/page-1');
    // Majestic answers NotFound (zeros) for a page it has not indexed, Moz authority 1: the providers' figures as given.
    assert.equal(fourth.m!.linkindex!.v.CitationFlow, 0);
    assert.equal(fourth.m!.authority!.v.upa, 1);
  });
});
