/**
 * The link tool in real mode (issue 24) against the Majestic and Moz fakes (test/support/fakes,
 * Majestic's and Moz's documented formats, genuine sample answers cited there): url-metrics of
 * starbucks.com answered `Status: "NotFound"` with every figure 0 because it read the sandbox's
 * index; now the provider's item info as given. Backlinks come from the provider's list
 * (source ← SourceURL, target ← TargetURL, anchor ← AnchorText, nofollow ← FlagNoFollow, dates ←
 * FirstIndexedDate/LastSeenDate), charged per link; a datum asked by two accounts is bought once;
 * a failing provider answers 424 and charges nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { linksTo, majesticError } from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newClient, pace, qs, type ToolClient } from '../serp/serpClient.js';

let real: RealMode;
let c: ToolClient;
let other: ToolClient;

before(async () => {
  real = await startRealMode({ links: 'majestic' });
  c = await newClient(real.t);
  other = await newClient(real.t);
});
after(async () => real.close());

describe('link tool in real mode', () => {
  test('url-metrics of starbucks.com: Majestic’s item info, not the sandbox’s NotFound; bought once for two accounts', async () => {
    const calls = real.majestic!.calls('GetIndexItemInfo').length;
    const res = await c.get(`/link-tool/url-metrics?${qs({ url: 'starbucks.com' })}`);
    assert.equal(res.statusCode, 200, res.body);
    const v = res.json()[0].m.linkindex.v;
    const item = real.web.items['starbucks.com'];
    assert.equal(v.Status, 'Found');
    assert.equal(v.CitationFlow, item.CitationFlow);
    assert.equal(v.TrustFlow, item.TrustFlow);
    assert.equal(v.ExtBackLinks, item.ExtBackLinks);
    assert.equal(v.RefDomains, item.RefDomains);
    assert.equal(v.ItemType, 1);
    // Counters Majestic sends as strings stay strings.
    assert.equal(v.TotalNonUniqueLinks, String(item.TotalNonUniqueLinks));
    pace(real.t);
    const again = await other.get(`/link-tool/url-metrics?${qs({ url: 'starbucks.com' })}`);
    assert.deepEqual(again.json()[0].m.linkindex.v, v);
    assert.equal(real.majestic!.calls('GetIndexItemInfo').length - calls, 1, 'bought once for both accounts');
  });

  test('serp-tool url-metrics: Moz’s authority with Majestic’s item info; no sandbox social count', async () => {
    pace(real.t);
    const res = await c.get(`/serp-tool/url-metrics?${qs({ url: 'https://www.starbucks.com/menu' })}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.domain, 'starbucks.com');
    assert.equal(body.m.authority.v.pda, real.web.authority['starbucks.com'].da);
    assert.equal(body.m.authority.v.upa, real.web.authority['https://www.starbucks.com/menu'].pa);
    assert.equal(body.m.linkindex.v.CitationFlow, real.web.items['https://www.starbucks.com/menu'].CitationFlow);
    assert.deepEqual(body.m.social.v, { l: null, og: null });
  });

  test('links: the provider’s backlinks with their flags and dates, charged per link', async () => {
    pace(real.t);
    const before = (await c.pool('links')).remaining;
    const res = await c.get(`/link-tool/links?${qs({ url: 'starbucks.com', page: 0 })}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const expected = linksTo(real.web, 'starbucks.com');
    assert.equal(body.links.length, expected.length);
    assert.equal(body.meta.url_type, 'RootDomain');
    for (const link of expected) {
      const got = body.links.find((l: { source: string; target: string }) => l.source === link.source && l.target === link.target);
      assert.ok(got, `${link.source} → ${link.target}`);
      assert.equal(got.anchor, link.anchor);
      assert.equal(got.no_follow, link.nofollow);
      assert.equal(got.first_seen, link.firstSeen);
      assert.equal(got.last_seen, link.lastSeen);
      assert.equal(got.source_cf, link.sourceCitationFlow);
      assert.equal(got.ls, null, 'no link strength from a provider');
    }
    assert.equal(before - (await c.pool('links')).remaining, expected.length);
  });

  test('a failing provider: 424 UpstreamError, nothing charged', async () => {
    pace(real.t);
    const before = (await c.pool('lm-url-metrics')).remaining;
    real.majestic!.script(majesticError('InvalidAPIKey', 'The API key is not valid'));
    const res = await c.get(`/link-tool/url-metrics?${qs({ url: 'peets.com' })}`);
    assert.equal(res.statusCode, 424, res.body);
    assert.equal(res.json().error.type, 'UpstreamError');
    assert.equal((await c.pool('lm-url-metrics')).remaining, before);
  });
});
