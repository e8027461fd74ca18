/**
 * The link-index and authority provider clients against local fakes speaking Majestic's,
 * Moz's and DataForSEO's documented formats (test/support/fakes, each file names its
 * sources): what each command sends, how each answer maps onto our fields, and how error
 * bodies, rate limits and timeouts end (retried or final, always a SourceError).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  coffeeWeb,
  dfsError,
  FAKE_DFS_LOGIN,
  FAKE_DFS_PASSWORD,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  majesticError,
  startFakeDataForSeoBacklinks,
  startFakeMajestic,
  startFakeMoz,
  type FakeMajestic,
  type FakeUpstream,
} from '../../support/fakes/index.js';
import { MajesticClient } from '../../../src/engine/sources/links/majestic.js';
import { MozClient } from '../../../src/engine/sources/links/moz.js';
import { DataForSeoBacklinksClient } from '../../../src/engine/sources/links/dataForSeoBacklinks.js';
import { linkTarget } from '../../../src/engine/sources/links/linkTypes.js';
import { SourceError } from '../../../src/engine/sources/types.js';

const web = coffeeWeb();
// The deadline only catches a hung call (a loaded machine has taken over 300 ms to answer from a
// local fake); the timeout test below uses a client with a short one against a fake that hangs.
const http = { timeoutMs: 20_000, retries: 2, backoffMs: 0, sleep: () => Promise.resolve() };
const today = () => '2026-11-22';
let majestic: FakeMajestic;
let moz: FakeUpstream;
let dfs: FakeUpstream;
let mj: MajesticClient;
let mz: MozClient;
let df: DataForSeoBacklinksClient;
const t = (s: string) => linkTarget(s)!;

before(async () => {
  majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY);
  moz = await startFakeMoz(web, FAKE_MOZ_TOKEN);
  dfs = await startFakeDataForSeoBacklinks(web, FAKE_DFS_LOGIN, FAKE_DFS_PASSWORD);
  mj = new MajesticClient({ apiKey: FAKE_MAJESTIC_KEY, baseUrl: majestic.url, http, costPerCall: 0.01, today });
  mz = new MozClient({ token: FAKE_MOZ_TOKEN, baseUrl: moz.url, http, costPerRow: 0.002 });
  df = new DataForSeoBacklinksClient({ login: FAKE_DFS_LOGIN, password: FAKE_DFS_PASSWORD, baseUrl: dfs.url, http, estimate: 0.02, today });
});
after(async () => {
  await majestic.close();
  await moz.close();
  await dfs.close();
});

const rejectsWith = async (p: Promise<unknown>, reason: SourceError['reason'], message?: RegExp) => {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof SourceError, String(err));
    assert.equal(err.reason, reason);
    if (message) assert.match(err.message, message);
    return true;
  });
};

describe('Majestic', () => {
  test('GetIndexItemInfo: the key in app_api_key, items as item0…, figures under their own names, string counters stay strings', async () => {
    const { value, cost } = await mj.itemInfo([t('starbucks.com'), t('https://www.peets.com/'), t('unknown-coffee.example')]);
    const sent = majestic.requests.at(-1)!.url.searchParams;
    assert.equal(sent.get('app_api_key'), FAKE_MAJESTIC_KEY);
    assert.equal(sent.get('cmd'), 'GetIndexItemInfo');
    assert.equal(sent.get('datasource'), 'fresh');
    assert.equal(sent.get('items'), '3');
    assert.equal(sent.get('item0'), 'starbucks.com');
    assert.equal(sent.get('item1'), 'https://www.peets.com/');
    assert.equal(cost, 0.01);
    const [sb, peets, unknown] = value;
    assert.equal(sb!.Status, 'Found');
    assert.equal(sb!.CitationFlow, 71);
    assert.equal(sb!.TrustFlow, 66);
    assert.equal(sb!.ExtBackLinks, 8_112_334);
    assert.equal(sb!.RefDomains, 61_298);
    assert.equal(sb!.ItemType, 1);
    // Majestic's −1 becomes 0 (reference notes); string counters stay strings.
    assert.equal(sb!.ACRank, 0);
    assert.equal(sb!.NonUniqueLinkTypeNoFollow, String(web.items['starbucks.com'].NonUniqueLinkTypeNoFollow));
    assert.equal(typeof sb!.TotalNonUniqueLinks, 'string');
    assert.equal(peets!.ItemType, 3);
    assert.equal(peets!.CitationFlow, 50);
    assert.equal(unknown!.Status, 'NotFound');
  });

  test('GetBackLinkData: paging and one link per domain; links map SourceURL, TargetURL, AnchorText, FlagNoFollow and the dates', async () => {
    const { value } = await mj.backlinks(t('starbucks.com'), 0, false, 0, 500);
    const sent = majestic.requests.at(-1)!.url.searchParams;
    assert.equal(sent.get('cmd'), 'GetBackLinkData');
    assert.equal(sent.get('From'), '0');
    assert.equal(sent.get('Count'), '500');
    assert.equal(sent.get('Mode'), '0');
    assert.equal(value.total, 4);
    const wiki = value.links.find((l) => l.sourceUrl === 'https://en.wikipedia.org/wiki/Starbucks')!;
    assert.equal(wiki.targetUrl, 'https://www.starbucks.com/');
    assert.equal(wiki.anchor, 'Official website');
    assert.equal(wiki.nofollow, true);
    assert.equal(wiki.firstSeen, '2012-08-15');
    assert.equal(wiki.lastSeen, '2026-11-21');
    assert.equal(wiki.sourceCitationFlow, 61);
    assert.equal(wiki.title, 'Starbucks - Wikipedia');
    const lost = value.links.find((l) => l.deleted)!;
    assert.equal(lost.lostOn, '2026-10-02');
    assert.equal(lost.type, 'image');
    const perDomain = await mj.backlinks(t('starbucks.com'), 0, true, 0, 500);
    assert.equal(majestic.requests.at(-1)!.url.searchParams.get('MaxSourceURLsPerRefDomain'), '1');
    assert.equal(perDomain.value.links.length, 4);
    const page = await mj.backlinks(t('starbucks.com'), 0, false, 2, 1);
    assert.equal(page.value.links.length, 1);
  });

  test('new and lost lists use Majestic filtering', async () => {
    const fresh = await mj.backlinks(t('starbucks.com'), 1, false, 0, 500);
    const sent = majestic.requests.at(-1)!.url.searchParams;
    assert.equal(sent.get('ConsumeResourcesForAdditionalProcessing'), '1');
    assert.equal(sent.get('Filters'), 'FirstSeen("gt","2026-10-22")');
    assert.deepEqual(
      fresh.value.links.map((l) => l.sourceUrl),
      ['https://www.eater.com/coffee-news'],
    );
    const lost = await mj.backlinks(t('starbucks.com'), 2, false, 0, 500);
    assert.deepEqual(
      lost.value.links.map((l) => l.sourceUrl),
      ['https://coffeeblog.example.net/reviews'],
    );
  });

  test('GetRefDomains, GetAnchorText, the new/lost calendar and GetTopPages', async () => {
    const ref = (await mj.refDomains(t('starbucks.com'), 50)).value;
    assert.deepEqual(
      ref.find((r) => r.domain === 'seriouseats.com'),
      { domain: 'seriouseats.com', matchedLinks: 1, citationFlow: 48, trustFlow: 41 },
    );
    const anchors = (await mj.anchors(t('starbucks.com'), 50)).value;
    assert.deepEqual(
      anchors.find((a) => a.anchorText === 'official website'),
      {
        anchorText: 'official website',
        refDomains: 1,
        totalLinks: 1,
        noFollowLinks: 1,
        deletedLinks: 0,
        citationFlow: 61,
      },
    );
    const calendar = (await mj.calendar(t('starbucks.com'), 90)).value;
    assert.deepEqual(
      calendar.find((c) => c.Date === '2026-11-21'),
      { Date: '2026-11-21', NewLinks: 4, LostLinks: 2 },
    );
    const top = (await mj.topPages(t('starbucks.com'), 50)).value;
    assert.deepEqual(
      top.map((p) => [p.url, p.citationFlow]),
      [
        ['https://www.starbucks.com/', 68],
        ['https://www.starbucks.com/menu', 35],
      ],
    );
  });

  test('a wrong key is final; a 429 and a busy answer are retried; a timeout ends the call', async () => {
    const before = majestic.requests.length;
    majestic.script(majesticError('InvalidAPIKey', 'Invalid API key - please check your key'));
    await rejectsWith(mj.itemInfo([t('starbucks.com')]), 'failed', /InvalidAPIKey/);
    assert.equal(majestic.requests.length - before, 1);
    majestic.script({ status: 429, json: {} }, majesticError('ServerBusy', 'Try again'));
    assert.equal((await mj.itemInfo([t('starbucks.com')])).value[0]!.CitationFlow, 71);
    majestic.script({ status: 429, json: {} }, { status: 429, json: {} }, { status: 429, json: {} });
    await rejectsWith(mj.itemInfo([t('starbucks.com')]), 'rate-limited');
    const impatient = new MajesticClient({ apiKey: FAKE_MAJESTIC_KEY, baseUrl: majestic.url, http: { ...http, timeoutMs: 300 }, costPerCall: 0.01, today });
    majestic.script({ status: 502, raw: '<html>Bad gateway</html>' }, { hang: true }, { hang: true });
    await rejectsWith(impatient.itemInfo([t('starbucks.com')]), 'timeout');
  });
});

describe('Moz', () => {
  test('url_metrics: the token as HTTP Basic, up to 50 targets a call, pda ← domain_authority, upa ← page_authority', async () => {
    const { value, cost } = await mz.authority(['https://www.starbucks.com/menu', 'peets.com', 'https://unknown-coffee.example/']);
    const sent = moz.requests.at(-1)!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.url.pathname, '/v2/url_metrics');
    assert.equal(sent.headers.authorization, `Basic ${FAKE_MOZ_TOKEN}`);
    assert.deepEqual(JSON.parse(sent.body), { targets: ['https://www.starbucks.com/menu', 'peets.com', 'https://unknown-coffee.example/'] });
    assert.equal(cost, 3 * 0.002);
    assert.deepEqual(value[0], { pda: 91, upa: 52, spam: 1 });
    assert.deepEqual(value[1], { pda: 72, upa: 61, spam: 2 });
    // Moz answers every target; one it never crawled has authority 1 and no spam score.
    assert.deepEqual(value[2], { pda: 1, upa: 1, spam: null });
    await assert.rejects(mz.authority(Array.from({ length: 51 }, (_, i) => `d${i}.example`)));
  });

  test('a wrong token is final (401); 429 is retried', async () => {
    const bad = new MozClient({ token: 'd3Jvbmc6d3Jvbmc=', baseUrl: moz.url, http, costPerRow: 0.002 });
    await rejectsWith(bad.authority(['peets.com']), 'failed', /Unauthorized/);
    moz.script({ status: 429, json: { name: 'Too Many Requests', message: 'Rate limit exceeded' } });
    assert.equal((await mz.authority(['peets.com'])).value[0]!.pda, 72);
    moz.script({ status: 500, json: {} }, { status: 503, json: {} }, { status: 500, json: {} });
    await rejectsWith(mz.authority(['peets.com']), 'failed');
  });
});

describe('DataForSEO Backlinks', () => {
  test('summary: RefDomains ← referring_domains, ExtBackLinks ← backlinks, RefIPs ← referring_ips, RefSubNets ← referring_subnets; no flows', async () => {
    const { value, cost } = await df.itemInfo(t('starbucks.com'));
    const sent = dfs.requests.at(-1)!;
    assert.equal(sent.url.pathname, '/v3/backlinks/summary/live');
    assert.equal(sent.headers.authorization, `Basic ${Buffer.from(`${FAKE_DFS_LOGIN}:${FAKE_DFS_PASSWORD}`).toString('base64')}`);
    assert.deepEqual(JSON.parse(sent.body), [{ target: 'starbucks.com', include_subdomains: true, rank_scale: 'one_hundred' }]);
    assert.equal(cost, 0.02003);
    const it = web.items['starbucks.com'];
    assert.equal(value.ExtBackLinks, it.ExtBackLinks);
    assert.equal(value.RefDomains, it.RefDomains);
    assert.equal(value.RefIPs, it.RefIPs);
    assert.equal(value.RefSubNets, it.RefSubNets);
    assert.equal(value.CitationFlow, null);
    assert.equal(value.TrustFlow, null);
    assert.equal(value.NonUniqueLinkTypeNoFollow, String(it.NonUniqueLinkTypeNoFollow));
  });

  test('bulk_pages_summary gives many targets in one call; authority: pda ← the root domain rank, upa ← the URL rank', async () => {
    const before = dfs.requests.length;
    const { value } = await df.authority([t('https://www.starbucks.com/menu'), t('https://www.peets.com/')]);
    assert.equal(dfs.requests.length - before, 1);
    assert.deepEqual(JSON.parse(dfs.requests.at(-1)!.body)[0].targets, [
      'https://www.starbucks.com/menu',
      'https://www.peets.com/',
      'starbucks.com',
      'peets.com',
    ]);
    assert.deepEqual(value[0], { pda: 91, upa: 52, spam: null });
    assert.deepEqual(value[1], { pda: 72, upa: 61, spam: null });
  });

  test('backlinks: source ← url_from, target ← url_to, nofollow ← !dofollow, dates ← the date part of first_seen/last_seen', async () => {
    const { value } = await df.backlinks(t('starbucks.com'), 0, false, { offset: 0, token: null }, 500);
    const task = JSON.parse(dfs.requests.at(-1)!.body)[0];
    assert.equal(task.mode, 'as_is');
    assert.equal(task.backlinks_status_type, 'all');
    assert.equal(task.offset, undefined, 'the head is asked at the default offset (0), as the token requests after it are');
    assert.equal(value.total, 4);
    const wiki = value.links.find((l) => l.sourceUrl === 'https://en.wikipedia.org/wiki/Starbucks')!;
    assert.equal(wiki.targetUrl, 'https://www.starbucks.com/');
    assert.equal(wiki.nofollow, true);
    assert.equal(wiki.firstSeen, '2012-08-15');
    assert.equal(wiki.lastSeen, '2026-11-21');
    assert.equal(wiki.sourceCitationFlow, null);
    const lost = await df.backlinks(t('starbucks.com'), 2, true, { offset: 0, token: null }, 500);
    const lostTask = JSON.parse(dfs.requests.at(-1)!.body)[0];
    assert.equal(lostTask.backlinks_status_type, 'lost');
    assert.equal(lostTask.mode, 'one_per_domain');
    assert.deepEqual(
      lost.value.links.map((l) => [l.sourceUrl, l.deleted, l.lostOn]),
      [['https://coffeeblog.example.net/reviews', true, '2026-10-02']],
    );
  });

  test('referring domains, anchors, the daily new/lost series, top pages, history, Labs competitors', async () => {
    assert.deepEqual(
      (await df.refDomains(t('starbucks.com'), 50)).value.find((r) => r.domain === 'seriouseats.com'),
      {
        domain: 'seriouseats.com',
        matchedLinks: 1,
        citationFlow: null,
        trustFlow: null,
      },
    );
    const anchors = (await df.anchors(t('starbucks.com'), 50)).value;
    assert.deepEqual(
      anchors.find((a) => a.anchorText === 'Official website'),
      {
        anchorText: 'Official website',
        refDomains: 1,
        totalLinks: 1,
        noFollowLinks: 1,
        deletedLinks: null,
        citationFlow: null,
      },
    );
    assert.deepEqual(
      (await df.calendar(t('starbucks.com'), 90)).value.find((c) => c.Date === '2026-11-21'),
      { Date: '2026-11-21', NewLinks: 4, LostLinks: 2 },
    );
    assert.deepEqual(
      (await df.topPages(t('starbucks.com'), 50)).value.map((p) => [p.url, p.refDomains]),
      [
        ['https://www.starbucks.com/', 29_877],
        ['https://www.starbucks.com/menu', 2_208],
      ],
    );
    const history = (await df.history(t('starbucks.com'), '2016-01-01')).value;
    assert.deepEqual(history.at(-1), {
      month: '2026-11',
      refDomains: 61_298,
      refIps: web.items['starbucks.com'].RefIPs,
      refSubnets: web.items['starbucks.com'].RefSubNets,
      citationFlow: null,
      trustFlow: null,
    });
    const rivals = (await df.competitors('starbucks.com', 2840, 'en', 20)).value;
    assert.deepEqual(rivals, [
      { domain: 'dunkindonuts.com', score: 40 },
      { domain: 'peets.com', score: 25 },
      { domain: 'wikipedia.org', score: 15 },
    ]);
  });

  test('wrong credentials are final; the per-minute limit (40202) is retried', async () => {
    const bad = new DataForSeoBacklinksClient({ login: 'x', password: 'y', baseUrl: dfs.url, http, estimate: 0.02, today });
    await rejectsWith(bad.itemInfo(t('starbucks.com')), 'failed', /not authorized/);
    dfs.script(dfsError(40202, 'Rate limit per minute exceeded.'));
    assert.equal((await df.itemInfo(t('starbucks.com'))).value.RefDomains, 61_298);
    dfs.script(
      dfsError(40202, 'Rate limit per minute exceeded.'),
      dfsError(40202, 'Rate limit per minute exceeded.'),
      dfsError(40202, 'Rate limit per minute exceeded.'),
    );
    await rejectsWith(df.itemInfo(t('starbucks.com')), 'rate-limited');
  });
});
