/**
 * Issue 24's keyword defects ("Why"), each against the code that had it:
 *
 * - a keyword nobody knows ("asdfqwer", outside the sandbox's vocabulary) got 101 searches,
 *   CPC $0.96, KD 0 and a 12-month history: it answers null figures and no months;
 * - a keyword filled from DataForSEO showed the mean of its 12 monthly figures (1,983)
 *   instead of the provider's `search_volume` (1,900);
 * - with a keyword provider, a keyword it does not know got figures derived from sandbox
 *   keywords: it answers null figures too.
 *
 * The provider is the DataForSEO fake of test/support/fakes (dataForSeoKeywords.ts: the
 * documented Keywords Data format; the figures are keywordWeb.ts's coffee keywords, bucketed
 * as Google Ads reports them).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newClient, pace, q, type KeywordClient } from './helpers.js';

type Item = {
  kw: string;
  sv: number | null;
  svn: number | null;
  cpc: number | null;
  ppc: number | null;
  seo: number | null;
  seo_ts: number | null;
  msv: unknown[];
};

const NO_DATA = { sv: null, svn: null, cpc: null, ppc: null, seo: null, seo_ts: null, msv: [] };
const figures = (k: Item) => ({ sv: k.sv, svn: k.svn, cpc: k.cpc, ppc: k.ppc, seo: k.seo, seo_ts: k.seo_ts, msv: k.msv });

describe('a keyword nobody knows, in the sandbox', () => {
  let t: TestApp;
  let c: KeywordClient;
  before(async () => {
    t = await testApp();
    c = await newClient(t);
  });
  after(async () => t.close());

  test('"asdfqwer" answers null figures and no months in related keywords and keyword imports', async () => {
    const related = await c.get(`/related-keywords?${q({ kw: 'asdfqwer', location_id: 2840, language_id: 1000 })}`);
    assert.equal(related.statusCode, 200, related.body);
    const seed = related.json().keywords[0] as Item;
    assert.equal(seed.kw, 'asdfqwer');
    assert.deepEqual(figures(seed), NO_DATA);
    pace(t);
    const imported = await c.post('/keyword-imports', { keywords: ['asdfqwer', 'qwzx plokij'], location_id: 2840, language_id: 1000 });
    assert.equal(imported.statusCode, 200, imported.body);
    for (const k of imported.json().keywords as Item[]) assert.deepEqual(figures(k), NO_DATA, k.kw);
  });

  test('its SERP gives it no difficulty either: related keywords read none from the day’s book', async () => {
    const serp = await t.app.inject({
      method: 'GET',
      url: `/v3/serp-tool/serps?${q({ kw: 'asdfqwer', location_id: 2840 })}`,
      headers: { 'x-access-token': c.key },
    });
    assert.equal(serp.statusCode, 200, serp.body);
    pace(t);
    const related = await c.get(`/related-keywords?${q({ kw: 'asdfqwer', location_id: 2840, language_id: 0 })}`);
    assert.equal(related.json().keywords[0].seo, null);
  });

  test('a keyword of the sandbox’s vocabulary keeps its sandbox figures', async () => {
    pace(t);
    const related = await c.get(`/related-keywords?${q({ kw: 'hiking boots', location_id: 2840, language_id: 1000 })}`);
    const seed = related.json().keywords[0] as Item;
    assert.ok(typeof seed.sv === 'number' && seed.sv > 0 && seed.msv.length > 0, JSON.stringify(seed).slice(0, 200));
  });
});

describe('keywords from DataForSEO', () => {
  let real: RealMode;
  let t: TestApp;
  let c: KeywordClient;
  before(async () => {
    real = await startRealMode({ keywordSource: true });
    ({ t } = real);
    c = await newClient(t);
  });
  after(async () => real.close());

  test('a keyword filled from the provider shows its search_volume (1,900), not the mean of its months (1,983)', async () => {
    const res = await c.post('/keyword-imports', { keywords: ['cold brew coffee maker'], location_id: 2840, language_id: 1000 });
    assert.equal(res.statusCode, 200, res.body);
    const item = res.json().keywords[0] as Item;
    assert.equal(item.sv, 1_900);
    // The months as given, oldest first: the last complete month (October 2026) is 2,900.
    assert.equal(item.msv.length, 12);
    assert.deepEqual(item.msv.at(-1), [2026, 10, 2_900]);
    assert.equal(item.cpc, 0.98);
    assert.equal(item.ppc, 94);
    pace(t);
    const related = await c.get(`/related-keywords?${q({ kw: 'cold brew coffee maker', location_id: 2840, language_id: 1000 })}`);
    assert.equal((related.json().keywords[0] as Item).sv, 1_900);
  });

  test('a keyword the provider has no data for answers null figures, not figures derived from the sandbox', async () => {
    // One keyword import per 30 seconds.
    t.clock.advance(31_000);
    const res = await c.post('/keyword-imports', { keywords: ['hiking boots waterproof asdf'], location_id: 2840, language_id: 1000 });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(figures(res.json().keywords[0] as Item), NO_DATA);
  });
});
