/**
 * The site tool in real mode (issue 24): overview, backlink profile, top content and
 * competitors answer from the providers' fakes (test/support/realMode.ts), never from the
 * sandbox world that runs beside them. Samples: the Majestic fake renders GetIndexItemInfo,
 * GetRefDomains, GetAnchorText, GetTopPages and GetNewLostBackLinkCalendar in Majestic's
 * documented JSON (fakes/majestic.ts cites the recorded answers); the DataForSEO fake renders
 * Backlinks summary, bulk_pages_summary, referring_domains, anchors,
 * timeseries_new_lost_summary, domain_pages_summary, history and Labs competitors_domain and domain_rank_overview in
 * DataForSEO's envelope (fakes/dataForSeoBacklinks.ts cites its sources). Each value below is
 * traced from the fake web (fakes/linkWeb.ts) to the answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { linksTo, majesticError } from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newClient, pace, qs, type ToolClient } from '../serp/serpClient.js';

const md5id = (s: string) => createHash('md5').update(s).digest('hex').slice(0, 24);
const get = (c: ToolClient, op: string, url: string) => c.get(`/site-tool/${op}?${qs({ url })}`);

/** Asks the overview (which unlocks the profiles) and answers its body. */
async function overview(real: RealMode, c: ToolClient, url: string): Promise<any> {
  pace(real.t);
  const res = await get(c, 'overview', url);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function profile(real: RealMode, c: ToolClient, op: string, url: string): Promise<any> {
  pace(real.t);
  const res = await get(c, op, url);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

describe('site tool in real mode, Majestic and Moz', () => {
  let real: RealMode;
  let c: ToolClient;
  before(async () => {
    real = await startRealMode({ links: 'majestic' });
    c = await newClient(real.t);
  });
  after(async () => real.close());

  test('overview of starbucks.com: Majestic’s item info and Moz’s authority; no sandbox history or rank distribution', async () => {
    const body = await overview(real, c, 'starbucks.com');
    const item = real.web.items['starbucks.com'];
    assert.equal(body.domainId, md5id('starbucks.com'));
    assert.equal(body.domain, 'starbucks.com');
    assert.deepEqual(body.linkindex, {
      Status: 'Found',
      CitationFlow: item.CitationFlow,
      TrustFlow: item.TrustFlow,
      RefIPs: item.RefIPs,
      RefSubNets: item.RefSubNets,
      ItemType: 1,
    });
    assert.deepEqual(body.authority, { pda: real.web.authority['starbucks.com'].da, upa: real.web.authority['starbucks.com'].pa });
    // Majestic keeps no monthly totals; no provider counts shares or ranks the domain's keywords here.
    assert.deepEqual(body.linkindexHistory, {});
    assert.deepEqual(body.topRankHistory, {});
    assert.deepEqual(body.socialHistory, {});
    assert.deepEqual(body.rankDist, []);
    assert.equal(body.social, null);
    assert.deepEqual(body.topRank, {}, 'no imported rank list holds it');
  });

  test('a domain the sandbox world knows: the provider’s NotFound with null figures, not the sandbox’s profile or rankDist', async () => {
    const body = await overview(real, c, 'summitpeak.com');
    assert.deepEqual(body.linkindex, { Status: 'NotFound', CitationFlow: 0, TrustFlow: 0, RefIPs: null, RefSubNets: null, ItemType: 1 });
    // Moz answers 1 for a domain and page it does not know (fakes/moz.ts): as given.
    assert.deepEqual(body.authority, { pda: 1, upa: 1 });
    assert.deepEqual(body.rankDist, []);
    assert.deepEqual(body.linkindexHistory, {});
  });

  test('backlink profile: GetRefDomains (matchedLinks ← MatchedLinks), GetAnchorText, the new/lost calendar', async () => {
    await overview(real, c, 'starbucks.com');
    const body = await profile(real, c, 'backlink-profile', 'starbucks.com');
    const links = linksTo(real.web, 'starbucks.com');
    assert.equal(body.urlId, md5id('starbucks.com'));
    assert.equal(body.linkindex.ExtBackLinks, real.web.items['starbucks.com'].ExtBackLinks);
    assert.equal(body.linkindex.TotalNonUniqueLinks, String(real.web.items['starbucks.com'].TotalNonUniqueLinks));
    // The fake's calendar for starbucks.com, all within the last 90 days of the clock's 2026-11-22.
    assert.deepEqual(
      body.linkindexBackLinkCalendar,
      Object.entries(real.web.calendar['starbucks.com']).map(([Date, d]) => ({ Date, NewLinks: d.new, LostLinks: d.lost })),
    );
    // One referring domain per linking site of the fake (www./en. folded as Majestic's fake does), its links and flows.
    const wiki = body.linkindexRefDomains.find((r: { domain: string }) => r.domain === 'wikipedia.org');
    const wikiLink = links.find((l) => l.source.includes('wikipedia.org'))!;
    assert.deepEqual(wiki, {
      domain: 'wikipedia.org',
      topRank: null,
      matchedLinks: 1,
      citationFlow: wikiLink.sourceCitationFlow,
      trustFlow: wikiLink.sourceTrustFlow,
    });
    assert.deepEqual(body.linkindexRefDomains.map((r: { domain: string }) => r.domain).sort(), [
      'coffeeblog.example.net',
      'eater.com',
      'seriouseats.com',
      'wikipedia.org',
    ]);
    // Anchors under GetAnchorText's own columns, each classified toward starbucks.com.
    const lost = body.linkindexAnchors.find((a: { anchorText: string }) => a.anchorText === 'starbucks.com');
    assert.equal(lost.deletedLinks, 1, 'the lost link of coffeeblog.example.net');
    assert.equal(lost.totalLinks, 1);
    assert.equal(lost.class, 'brand.url');
    const official = body.linkindexAnchors.find((a: { anchorText: string }) => a.anchorText === 'official website');
    assert.equal(official.noFollowLinks, 1);
    assert.equal(official.citationFlow, wikiLink.sourceCitationFlow);
    assert.equal(body.linkindexAnchors.length, new Set(links.map((l) => l.anchor.toLowerCase())).size);
  });

  test('top content: GetTopPages, CitationFlow first, the page title as its Open Graph title', async () => {
    const body = await profile(real, c, 'top-content', 'starbucks.com');
    assert.deepEqual(
      body.topContent.map((p: { url: string }) => p.url),
      ['https://www.starbucks.com/', 'https://www.starbucks.com/menu'],
    );
    const menu = body.topContent[1];
    const item = real.web.items['https://www.starbucks.com/menu'];
    assert.deepEqual(menu, {
      url: 'https://www.starbucks.com/menu',
      citationFlow: item.CitationFlow,
      trustFlow: item.TrustFlow,
      refDomains: item.RefDomains,
      extBackLinks: item.ExtBackLinks,
      social: { l: null, og: { title: 'https://www.starbucks.com/menu', description: null, image: null } },
    });
  });

  test('competitors with Majestic alone: an empty list (no provider of organic competitors), never the sandbox’s', async () => {
    await overview(real, c, 'summitpeak.com');
    const body = await profile(real, c, 'competitors', 'summitpeak.com');
    assert.deepEqual(body, { id: md5id('summitpeak.com'), source: 'summitpeak.com', competitors: [] });
  });

  test('bought once: a second account’s overview and profile call Majestic no more', async () => {
    const other = await newClient(real.t);
    const before = real.majestic!.requests.length;
    await overview(real, other, 'starbucks.com');
    await profile(real, other, 'backlink-profile', 'starbucks.com');
    assert.equal(real.majestic!.requests.length, before);
  });

  test('a failing provider: 424 UpstreamError, the overview charges nothing', async () => {
    pace(real.t);
    const before = (await c.pool('sp-overview')).remaining;
    real.majestic!.script(majesticError('InvalidAPIKey', 'The API key is not valid'));
    const res = await get(c, 'overview', 'peets.com');
    assert.equal(res.statusCode, 424, res.body);
    assert.equal(res.json().error.type, 'UpstreamError');
    assert.equal((await c.pool('sp-overview')).remaining, before);
  });
});

describe('site tool in real mode, DataForSEO as link index, authority and competitors', () => {
  let real: RealMode;
  let c: ToolClient;
  before(async () => {
    real = await startRealMode({ links: 'dataforseo' });
    c = await newClient(real.t);
  });
  after(async () => real.close());

  test('overview: summary counts (RefIPs ← referring_ips), rank as authority, monthly history; flows null', async () => {
    const body = await overview(real, c, 'starbucks.com');
    const item = real.web.items['starbucks.com'];
    assert.deepEqual(body.linkindex, { Status: 'Found', CitationFlow: null, TrustFlow: null, RefIPs: item.RefIPs, RefSubNets: item.RefSubNets, ItemType: 1 });
    // DataForSEO's rank (rank_scale one_hundred) of the root domain and of the target: the fake gives the domain's DA for both.
    assert.deepEqual(body.authority, { pda: real.web.authority['starbucks.com'].da, upa: real.web.authority['starbucks.com'].da });
    // backlinks/history: the fake's three months, counts stepping up to the summary's.
    assert.deepEqual(Object.keys(body.linkindexHistory), ['2026-09', '2026-10', '2026-11']);
    assert.deepEqual(body.linkindexHistory['2026-11'], {
      rank: null,
      refIps: item.RefIPs,
      refSubnets: item.RefSubNets,
      refDomains: item.RefDomains,
      citationFlow: null,
      trustFlow: null,
    });
    assert.equal(body.linkindexHistory['2026-09'].refDomains, item.RefDomains - 200);
    // Labs' domain_rank_overview (realRankDist.test.ts traces each figure).
    assert.deepEqual(body.rankDist[0].metrics_absolute['2026-11'].organic, real.web.rankOverview['starbucks.com']);
  });

  test('backlink profile: referring_domains (matchedLinks ← backlinks), anchors, timeseries_new_lost_summary', async () => {
    const body = await profile(real, c, 'backlink-profile', 'starbucks.com');
    assert.deepEqual(
      body.linkindexBackLinkCalendar,
      Object.entries(real.web.calendar['starbucks.com']).map(([Date, d]) => ({ Date, NewLinks: d.new, LostLinks: d.lost })),
    );
    const serious = body.linkindexRefDomains.find((r: { domain: string }) => r.domain === 'seriouseats.com');
    assert.deepEqual(serious, { domain: 'seriouseats.com', topRank: null, matchedLinks: 1, citationFlow: null, trustFlow: null });
    const official = body.linkindexAnchors.find((a: { anchorText: string }) => a.anchorText === 'Official website');
    assert.equal(official.refDomains, 1);
    assert.equal(official.totalLinks, 1);
    assert.equal(official.noFollowLinks, 1, 'referring_links_attributes.nofollow');
    assert.equal(official.deletedLinks, null, 'DataForSEO’s anchors count no deleted links');
    assert.equal(official.citationFlow, null);
    assert.equal(body.linkindex.CitationFlow, null);
  });

  test('top content: domain_pages_summary’s counts, no flows, no title', async () => {
    const body = await profile(real, c, 'top-content', 'starbucks.com');
    const home = body.topContent.find((p: { url: string }) => p.url === 'https://www.starbucks.com/');
    const item = real.web.items['https://www.starbucks.com/'];
    assert.deepEqual(home, {
      url: 'https://www.starbucks.com/',
      citationFlow: null,
      trustFlow: null,
      refDomains: item.RefDomains,
      extBackLinks: item.ExtBackLinks,
      social: { l: null, og: null },
    });
  });

  test('competitors: Labs competitors_domain (score = shared keywords over the site’s own), RefIPs from the link index', async () => {
    const body = await profile(real, c, 'competitors', 'starbucks.com');
    const shared = real.web.competitors['starbucks.com'];
    assert.equal(body.id, md5id('starbucks.com'));
    assert.deepEqual(
      body.competitors.map((x: { domain: string; score: number }) => [x.domain, x.score]),
      ['dunkindonuts.com', 'peets.com', 'wikipedia.org'].map((d) => [d, Math.round((100 * shared[d]) / shared['starbucks.com'])]),
    );
    const peets = body.competitors.find((x: { domain: string }) => x.domain === 'peets.com');
    assert.deepEqual(peets, {
      domainId: md5id('peets.com'),
      domain: 'peets.com',
      topRank: null,
      social: null,
      refIps: real.web.items['peets.com'].RefIPs,
      score: 25,
    });
    const dunkin = body.competitors.find((x: { domain: string }) => x.domain === 'dunkindonuts.com');
    assert.equal(dunkin.refIps, null, 'a domain the link index does not hold');
  });
});
