/**
 * Competitor domains and suggested keywords in real mode (issue 24): they read the sandbox's
 * rank index even with a keyword provider configured; now DataForSEO Labs answers them.
 * Samples: the DataForSEO fake (test/support/fakes) renders Labs `competitors_domain`
 * (fakes/dataForSeoBacklinks.ts) and `ranked_keywords` (fakes/dataForSeoKeywords.ts) in
 * DataForSEO's documented envelope; the values are the coffee web's (linkWeb.ts competitors,
 * keywordWeb.ts rankings and volumes), traced to the answers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newClient, pace, qs, type ToolClient } from '../serp/serpClient.js';

describe('competitor domains and suggested keywords from DataForSEO Labs', () => {
  let real: RealMode;
  let c: ToolClient;
  before(async () => {
    real = await startRealMode({ links: 'dataforseo', keywordSource: true });
    c = await newClient(real.t);
  });
  after(async () => real.close());

  const competitorKeywords = async (url: string) => {
    pace(real.t);
    const res = await c.get(`/keyword-tool/competitor-keywords?${qs({ url, location_id: 2840 })}`);
    assert.equal(res.statusCode, 200, res.body);
  };
  const json = async (path: string, url: string) => {
    pace(real.t);
    const res = await c.get(`/keyword-tool/${path}?${qs({ url, location_id: 2840 })}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('competitor-domain of starbucks.com: Labs competitors_domain, most shared keywords first', async () => {
    await competitorKeywords('starbucks.com');
    const labs = () => real.dataforseo!.requests.filter((r) => r.url.pathname.includes('competitors_domain')).length;
    const before = labs();
    const shared = real.web.competitors['starbucks.com'];
    const expected = Object.keys(shared)
      .filter((d) => d !== 'starbucks.com')
      .sort((a, b) => shared[b] - shared[a]);
    assert.deepEqual(await json('competitor-domain', 'starbucks.com'), expected);
    const task = JSON.parse(real.dataforseo!.requests.at(-1)!.body)[0];
    assert.deepEqual([task.target, task.location_code, task.language_code], ['starbucks.com', 2840, 'en']);
    // Bought once: asked again, Labs is not called again.
    assert.deepEqual(await json('competitor-domain', 'starbucks.com'), expected);
    assert.equal(labs() - before, 1);
  });

  test('suggested keywords of starbucks.com: its Labs rankings, best position first, with the provider’s volumes', async () => {
    const body = await json('suggested-keywords', 'starbucks.com');
    const rankings = [...real.keywords.rankings['starbucks.com']].sort((a, b) => a.rank - b.rank);
    assert.deepEqual(
      body.keywords.map((k: { kw: string; position: number; sv: number }) => [k.kw, k.position, k.sv]),
      rankings.map((r) => [r.kw, r.rank, real.keywords.keywords[r.kw].search_volume]),
    );
    assert.equal(body.totalCount, rankings.length);
  });

  test('a domain only the sandbox knows: no competitors and no suggestions, never the sandbox’s', async () => {
    await competitorKeywords('summitpeak.com');
    assert.deepEqual(await json('competitor-domain', 'summitpeak.com'), []);
    const suggested = await json('suggested-keywords', 'summitpeak.com');
    assert.deepEqual(suggested.keywords, []);
  });
});
