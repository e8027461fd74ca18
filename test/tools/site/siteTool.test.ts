/**
 * The site tool through HTTP on the fake clock: the overview (pool `sp-overview`) with
 * history since 2016; the free profiles (audience, backlink profile, top content,
 * competitors) that answer only within 24 hours of an overview of the same url by the
 * same account; the request history; hostile input.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, HOUR, SECOND } from '../../../src/lib/clock.js';
import { baseClickThroughRate } from '../../../src/engine/search/clickThroughCurve.js';
import { assertError, assertInvalid, newClient, pace, qs, type Res, type ToolClient } from '../serp/serpClient.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());

const DOMAIN = 'summitpeak.com';
const PAGE = 'https://www.summitpeak.com/products/hiking-boots';
const PROFILES = ['audience', 'backlink-profile', 'top-content', 'competitors'] as const;

const overview = (c: ToolClient, url: string) => c.get(`/site-tool/overview?${qs({ url })}`);
const profile = (c: ToolClient, name: string, url: string) => c.get(`/site-tool/${name}?${qs({ url })}`);
const notInHistory = (res: Res) => {
  assertError(res, 429, 'RateLimit', 'Not in history');
  assert.equal(res.json().error.retry_after, undefined, 'waiting does not help: no retry_after');
};
const isInt = (x: unknown) => Number.isInteger(x);
const isPercent = (x: unknown) => isInt(x) && (x as number) >= 0 && (x as number) <= 100;

/** `YYYY-MM` of every month from 2016-01 to the clock's month. */
function monthsSince2016(nowMs: number): string[] {
  const now = new Date(nowMs);
  const out: string[] = [];
  for (let y = 2016, m = 1; y < now.getUTCFullYear() || (y === now.getUTCFullYear() && m <= now.getUTCMonth() + 1); m === 12 ? (y++, (m = 1)) : m++) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
  }
  return out;
}

/** Checks an overview against the reference's SiteMetrics and the contract's overview rule. */
function checkOverview(body: any, itemType: 1 | 2 | 3): void {
  const id = itemType === 3 ? 'urlId' : 'domainId';
  assert.deepEqual(
    Object.keys(body).sort(),
    [id, 'authority', 'domain', 'linkindex', 'linkindexHistory', 'rankDist', 'social', 'socialHistory', 'topRank', 'topRankHistory', 'url'].sort(),
    'urlId on URL lookups, domainId on domain lookups',
  );
  assert.match(body[id], /^[0-9a-f]{24}$/);
  assert.equal(body.domain, DOMAIN);
  assert.ok(isPercent(body.authority.pda) && isPercent(body.authority.upa));
  const li = body.linkindex;
  assert.equal(li.Status, 'Found');
  assert.equal(li.ItemType, itemType);
  assert.ok(isPercent(li.CitationFlow) && isPercent(li.TrustFlow) && isInt(li.RefIPs) && isInt(li.RefSubNets));
  assert.ok(li.RefSubNets <= li.RefIPs);
  // social is the SocialMetricValue object: the share count and the page's Open Graph card.
  assert.deepEqual(Object.keys(body.social).sort(), ['l', 'og']);
  assert.ok(isInt(body.social.l) && body.social.l >= 0);
  assert.equal(typeof body.social.og.title, 'string');
  assert.equal(body.social.og.image, null, 'the index holds no page images');
  assert.ok(isInt(body.topRank) && body.topRank >= 1);
  // Monthly history since 2016-01, up to this month, with no gap.
  const months = monthsSince2016(t.clock.now());
  assert.deepEqual(Object.keys(body.topRankHistory), months);
  assert.deepEqual(Object.keys(body.linkindexHistory), months);
  assert.deepEqual(Object.keys(body.socialHistory), months);
  for (const m of months) {
    assert.ok(isInt(body.topRankHistory[m]) && body.topRankHistory[m] >= 1, m);
    const { rank, refIps, refSubnets } = body.linkindexHistory[m];
    assert.equal(rank, body.topRankHistory[m], `${m}: the link index ranks root domains as TopRank does`);
    assert.ok(isInt(refIps) && isInt(refSubnets) && refSubnets <= refIps && refIps >= 0, m);
    assert.ok(isInt(body.socialHistory[m]) && body.socialHistory[m] >= 0, m);
  }
  // The history of the root domain ends at today's TopRank.
  assert.equal(body.topRankHistory[months.at(-1)!], body.topRank);
  // Organic statistics of the host from the default market's rank index.
  assert.equal(body.rankDist.length, 1);
  const dist = body.rankDist[0];
  assert.equal(dist.lid, 2840);
  assert.equal(dist.domain, DOMAIN);
  assert.match(dist._id, /^[0-9a-f]{24}$/);
  assert.deepEqual(Object.keys(dist.metrics_absolute), [months.at(-1)]);
  const organic = dist.metrics_absolute[months.at(-1)!].organic;
  const bands = Object.keys(organic).filter((k) => k.startsWith('pos_'));
  assert.equal(bands.length, 12);
  assert.equal(
    bands.reduce((sum, k) => sum + organic[k], 0),
    organic.count,
    'each ranked keyword in one band',
  );
  assert.ok(organic.count > 0 && organic.etv > 0 && organic.impressions_etv > 0 && organic.estimated_paid_traffic_cost > 0);
  assert.ok(organic.pos_51_60 === 0 && organic.pos_91_100 === 0, 'the rank index keeps positions 1–50');
}

describe('GET /site-tool/overview', () => {
  test('a domain: authority, flows, referring IPs, social, TopRank and their history since 2016; pool sp-overview', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    const res = await overview(c, DOMAIN);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    checkOverview(body, 1);
    const last = body.linkindexHistory[Object.keys(body.linkindexHistory).at(-1)!];
    assert.deepEqual([last.refIps, last.refSubnets], [body.linkindex.RefIPs, body.linkindex.RefSubNets], "a domain's history ends at today's counters");
    const months = Object.keys(body.linkindexHistory);
    assert.ok(body.linkindexHistory[months[0]].refIps < last.refIps, 'a site gains referring IPs over ten years');
    // rankDist counts what competitor keywords list for the same site and market (its pages are all on one host).
    const ranked = await (await t.ctx.engine.search()).competitorKeywords(DOMAIN, 2840, 1000);
    const organic = body.rankDist[0].metrics_absolute[months.at(-1)!].organic;
    assert.equal(organic.count, ranked.totalCount);
    assert.equal(organic.pos_1, ranked.keywords.filter((k) => k.position === 1).length);
    const etv = ranked.keywords.reduce((sum, k) => sum + k.sv! * baseClickThroughRate(k.position), 0);
    assert.ok(Math.abs(organic.etv - etv) < 0.01, `etv ${organic.etv} vs ${etv}`);
    const after = await c.pools();
    assert.equal(after['sp-overview'].remaining, before['sp-overview'].remaining - 1);
    for (const pool of Object.keys(before)) if (pool !== 'sp-overview') assert.deepEqual(after[pool], before[pool], pool);
    // Cached within 24 h.
    t.clock.advance(HOUR);
    const hit = await overview(c, DOMAIN);
    assert.equal(hit.headers['x-cache'], 'HIT');
    assert.equal(hit.body, res.body);
    assert.equal((await c.pool('sp-overview')).remaining, before['sp-overview'].remaining - 1);
  });

  test("a URL: page-level flows and page authority, the domain's authority and history", async () => {
    const c = await newClient(t);
    const domain = (await overview(c, DOMAIN)).json();
    pace(t);
    const res = await overview(c, PAGE);
    assert.equal(res.statusCode, 200);
    const page = res.json();
    checkOverview(page, 3);
    assert.equal(page.url, PAGE);
    assert.notEqual(page.urlId, domain.domainId);
    assert.equal(page.domain, domain.domain);
    assert.notDeepEqual(page.social, domain.social, "a page's own share count and card, not its domain's");
    assert.equal(page.authority.pda, domain.authority.pda);
    assert.equal(page.topRank, domain.topRank);
    assert.deepEqual(page.topRankHistory, domain.topRankHistory);
    assert.ok(page.linkindex.RefIPs <= domain.linkindex.RefIPs, 'a page has no more referring IPs than its domain');
    assert.equal((await c.pool('sp-overview')).remaining, (await c.pool('sp-overview')).limit - 2);
  });
});

describe('profiles behind an overview', () => {
  test('without an overview: 429 Not in history, free of charge', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    for (const name of PROFILES) {
      const res = await profile(c, name, DOMAIN);
      notInHistory(res);
      assert.equal(res.headers['retry-after'], undefined);
    }
    assert.deepEqual(await c.pools(), before);
  });

  test('after an overview of the same url: audience 204, backlink profile, top content, competitors; all free', async () => {
    const c = await newClient(t);
    assert.equal((await overview(c, DOMAIN)).statusCode, 200);
    const before = await c.pools();
    t.clock.advance(HOUR);
    const audience = await profile(c, 'audience', DOMAIN);
    assert.equal(audience.statusCode, 204);
    assert.equal(audience.body, '');

    const bp = await profile(c, 'backlink-profile', DOMAIN);
    assert.equal(bp.statusCode, 200);
    const b = bp.json();
    assert.match(b.urlId, /^[0-9a-f]{24}$/);
    assert.equal(b.linkindex.ItemType, 1, 'whole-domain stats for a domain');
    assert.ok(isInt(b.linkindex.RefDomains) && isInt(b.linkindex.ExtBackLinks) && b.linkindex.ExtBackLinks >= b.linkindex.RefDomains);
    assert.deepEqual(Object.keys(b).sort(), ['linkindex', 'linkindexAnchors', 'linkindexBackLinkCalendar', 'linkindexRefDomains', 'urlId']);
    assert.ok(
      Array.isArray(b.linkindexBackLinkCalendar) &&
        b.linkindexBackLinkCalendar.every((d: any) => /^\d{4}-\d{2}-\d{2}$/.test(d.Date) && isInt(d.NewLinks) && isInt(d.LostLinks)),
    );
    assert.ok(
      b.linkindexRefDomains.length > 0 && b.linkindexRefDomains.every((d: any) => typeof d.domain === 'string' && d.domain !== DOMAIN && isInt(d.matchedLinks)),
    );
    assert.ok(
      b.linkindexAnchors.length > 0 && b.linkindexAnchors.every((a: any) => typeof a.anchorText === 'string' && isInt(a.totalLinks) && isInt(a.refDomains)),
    );
    const classes = new Set(b.linkindexAnchors.map((a: any) => a.class));
    assert.ok(classes.has('brand.domain') && classes.has('other.normal'), [...classes].join());
    for (const a of b.linkindexAnchors) {
      const shares = a.score['brand.domain'] + a.score['other.normal'] + a.score['other.stop'];
      assert.ok(a.tokens.length === 0 || Math.abs(shares - 1) < 0.001, a.anchorText);
    }

    const tc = await profile(c, 'top-content', DOMAIN);
    assert.equal(tc.statusCode, 200);
    const top = tc.json();
    assert.equal(top.urlId, b.urlId);
    assert.ok(top.topContent.length > 0);
    for (const item of top.topContent) {
      assert.equal(new URL(item.url).hostname.endsWith(DOMAIN), true, item.url);
      assert.ok(isPercent(item.citationFlow) && isPercent(item.trustFlow) && isInt(item.refDomains) && isInt(item.extBackLinks));
      assert.ok(isInt(item.social.l) && typeof item.social.og.title === 'string' && item.social.og.image === null, item.url);
    }

    const comp = await profile(c, 'competitors', DOMAIN);
    assert.equal(comp.statusCode, 200);
    const rivals = comp.json();
    assert.equal(rivals.id, b.urlId);
    assert.equal(rivals.source, DOMAIN);
    assert.ok(rivals.competitors.length > 0);
    for (const r of rivals.competitors) {
      assert.match(r.domainId, /^[0-9a-f]{24}$/);
      assert.notEqual(r.domain, DOMAIN);
      assert.ok(isInt(r.topRank) && isInt(r.refIps) && isInt(r.social) && isPercent(r.score));
    }
    const scores = rivals.competitors.map((r: any) => r.score);
    assert.deepEqual(
      scores,
      [...scores].sort((x, y) => y - x),
      'best competitor first',
    );
    assert.deepEqual(await c.pools(), before, 'the profiles are free');
  });

  test('the window is 24 h: answered at 24 h − 1 s, refused at 24 h and at 24 h + 1 s', async () => {
    const c = await newClient(t);
    const start = t.clock.now();
    assert.equal((await overview(c, DOMAIN)).statusCode, 200);
    t.clock.set(start + DAY - SECOND);
    for (const name of PROFILES) assert.ok([200, 204].includes((await profile(c, name, DOMAIN)).statusCode), `${name} at 24 h − 1 s`);
    t.clock.set(start + DAY);
    for (const name of PROFILES) notInHistory(await profile(c, name, DOMAIN));
    t.clock.set(start + DAY + SECOND);
    for (const name of PROFILES) notInHistory(await profile(c, name, DOMAIN));
    // A new overview opens them again.
    assert.equal((await overview(c, DOMAIN)).statusCode, 200);
    assert.equal((await profile(c, 'competitors', DOMAIN)).statusCode, 200);
  });

  test('the overview must be of the same url, by the same account', async () => {
    const c = await newClient(t);
    const other = await newClient(t);
    assert.equal((await overview(other, DOMAIN)).statusCode, 200);
    for (const name of PROFILES) notInHistory(await profile(c, name, DOMAIN));
    assert.equal((await overview(c, PAGE)).statusCode, 200);
    for (const name of PROFILES) notInHistory(await profile(c, name, DOMAIN));
    notInHistory(await profile(c, 'backlink-profile', 'https://www.summitpeak.com/'));
    assert.equal((await profile(c, 'backlink-profile', PAGE)).statusCode, 200);
    assert.equal(
      (await profile(c, 'backlink-profile', ' https://WWW.SUMMITPEAK.COM/products/hiking-boots ')).statusCode,
      200,
      'host case and surrounding space do not matter',
    );
    notInHistory(await profile(c, 'backlink-profile', `${PAGE}/other`));
  });

  test('an overview answered from cache keeps the profiles open', async () => {
    const c = await newClient(t);
    const start = t.clock.now();
    assert.equal((await overview(c, DOMAIN)).statusCode, 200);
    t.clock.set(start + 23 * HOUR);
    assert.equal((await overview(c, DOMAIN)).headers['x-cache'], 'HIT');
    t.clock.set(start + DAY + HOUR);
    assert.equal((await profile(c, 'competitors', DOMAIN)).statusCode, 200, 'an overview 2 h ago');
  });
});

describe('GET /site-tool/requests', () => {
  test('plain strings, the 50 most recent lookups, newest first', async () => {
    const c = await newClient(t, 'api-pro');
    assert.deepEqual((await c.get('/site-tool/requests')).json(), []);
    const urls: string[] = [];
    for (let i = 0; i < 53; i++) {
      const url = i % 2 === 0 ? `summitpeak.com/page-${i}` : `https://www.trailforge.com/p${i}`;
      assert.equal((await overview(c, url)).statusCode, 200, url);
      urls.push(url);
      pace(t);
    }
    // A refusal adds nothing.
    assertInvalid(await overview(c, 'not a url'), 'url');
    const history = (await c.get('/site-tool/requests')).json();
    assert.deepEqual(history, urls.slice(-50).reverse());
    assert.ok(history.every((h: unknown) => typeof h === 'string'));
    const other = await newClient(t);
    assert.deepEqual((await other.get('/site-tool/requests')).json(), []);
  });
});

describe('hostile input on the site tool', () => {
  const HOSTILE: [string, string][] = [
    ['missing', ''],
    ['empty', 'url='],
    ['blank', 'url=%20%20%20'],
    ['oversized', `url=${'a'.repeat(3000)}.com`],
    ['unicode junk', `url=${encodeURIComponent('☃☃☃')}`],
    ['__proto__', 'url=__proto__'],
    ['constructor', 'url=constructor'],
    ['javascript:', `url=${encodeURIComponent('javascript:alert(1)')}`],
    ['ftp', `url=${encodeURIComponent('ftp://summitpeak.com/')}`],
    ['an IP', 'url=127.0.0.1'],
    ['localhost', 'url=localhost'],
    ['an array', 'url=summitpeak.com&url=trailforge.com'],
    ['spaces inside', `url=${encodeURIComponent('summit peak.com')}`],
  ];

  test('every route: 422 Parameter url is invalid, never a 5xx, nothing charged', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    for (const route of ['overview', ...PROFILES]) {
      for (const [what, query] of HOSTILE) {
        const res = await c.get(`/site-tool/${route}?${query}`);
        assert.ok(res.statusCode < 500, `${route} ${what}: ${res.statusCode}`);
        assertInvalid(res, 'url');
      }
    }
    assert.deepEqual(await c.pools(), before);
    assert.deepEqual((await c.get('/site-tool/requests')).json(), []);
  });

  test('a url ending in a control character is invalid', async () => {
    const c = await newClient(t);
    for (const route of ['overview', ...PROFILES]) assertInvalid(await c.get(`/site-tool/${route}?url=summitpeak.com%00`), 'url');
  });

  test("unknown domains, IDNs and __proto__ as a parameter name answer in the contract's shapes", async () => {
    const c = await newClient(t);
    const unknown = await overview(c, 'no-such-site-here.com');
    assert.equal(unknown.statusCode, 200);
    assert.equal(unknown.json().linkindex.Status, 'NotFound');
    assert.equal(unknown.json().social, null, 'never fetched');
    assert.deepEqual(unknown.json().topRank, {}, 'unknown TopRank');
    pace(t);
    const idn = await overview(c, 'bücher.de');
    assert.equal(idn.statusCode, 200);
    assert.equal(idn.json().domain, 'xn--bcher-kva.de');
    pace(t);
    const proto = await c.get(`/site-tool/overview?__proto__[url]=x&${qs({ url: DOMAIN })}`);
    assert.equal(proto.statusCode, 200);
    assert.equal(proto.json().domain, DOMAIN);
    for (const name of PROFILES) assert.ok([200, 204].includes((await profile(c, name, 'no-such-site-here.com')).statusCode), name);
    for (const name of PROFILES) {
      const res = await c.get(`/site-tool/${name}?__proto__=1&constructor=2&${qs({ url: DOMAIN })}`);
      assert.ok([200, 204].includes(res.statusCode), `${name}: ${res.statusCode}`);
    }
  });

  test('no key: 401 on every route', async () => {
    for (const route of ['overview', ...PROFILES, 'requests']) {
      const res = await t.app.inject({ method: 'GET', url: `/v3/site-tool/${route}?url=${DOMAIN}` });
      assertError(res, 401, 'AuthError', 'Invalid API Key');
    }
  });
});
