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
import { assertError, assertInvalid, newClient, pace, qs, type Res, type ToolClient } from '../serp/serpClient.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());

const DOMAIN = 'summitpeak.com';
const PAGE = 'https://www.summitpeak.com/products/camping-chair';
const PROFILES = ['audience', 'backlink-profile', 'top-content', 'competitors'] as const;

const overview = (c: ToolClient, url: string) => c.get(`/site-tool/overview?${qs({ url })}`);
const profile = (c: ToolClient, name: string, url: string) => c.get(`/site-tool/${name}?${qs({ url })}`);
const notInHistory = (res: Res) => assertError(res, 429, 'Error', 'Not in history');
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

/** Checks an overview against DESIGN §5 and the contract's overview rule. */
function checkOverview(body: any, itemType: 1 | 2 | 3): void {
  assert.deepEqual(
    Object.keys(body).sort(),
    ['authority', 'domain', 'domainId', 'linkindex', 'linkindexHistory', 'social', 'socialHistory', 'topRank', 'topRankHistory', 'url', 'urlId'].sort(),
  );
  assert.match(body.urlId, /^[0-9a-f]{24}$/);
  assert.match(body.domainId, /^[0-9a-f]{24}$/);
  assert.equal(body.domain, DOMAIN);
  assert.ok(isPercent(body.authority.pda) && isPercent(body.authority.upa));
  const li = body.linkindex;
  assert.equal(li.Status, 'Found');
  assert.equal(li.ItemType, itemType);
  assert.ok(isPercent(li.CitationFlow) && isPercent(li.TrustFlow) && isInt(li.RefIPs) && isInt(li.RefSubNets));
  assert.ok(li.RefSubNets <= li.RefIPs);
  assert.ok(isInt(body.social));
  assert.ok(isInt(body.topRank) && body.topRank >= 1);
  // Monthly history since 2016-01, up to this month, with no gap.
  const months = monthsSince2016(t.clock.now());
  assert.deepEqual(Object.keys(body.topRankHistory), months);
  assert.deepEqual(Object.keys(body.linkindexHistory), months);
  assert.deepEqual(Object.keys(body.socialHistory), months);
  for (const m of months) {
    assert.ok(isInt(body.topRankHistory[m]) && body.topRankHistory[m] >= 1, m);
    const { refIps, refSubnets } = body.linkindexHistory[m];
    assert.ok(isInt(refIps) && isInt(refSubnets) && refSubnets <= refIps && refIps >= 0, m);
    assert.ok(isInt(body.socialHistory[m]) && body.socialHistory[m] >= 0, m);
  }
  // The history of the root domain ends at today's TopRank.
  assert.equal(body.topRankHistory[months.at(-1)!], body.topRank);
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
    assert.notEqual(page.urlId, domain.urlId);
    assert.equal(page.domainId, domain.domainId);
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
    assert.ok(
      Array.isArray(b.backLinkCalendar) && b.backLinkCalendar.every((d: any) => /^\d{4}-\d{2}-\d{2}$/.test(d.Date) && isInt(d.NewLinks) && isInt(d.LostLinks)),
    );
    assert.ok(b.refDomains.length > 0 && b.refDomains.every((d: any) => typeof d.domain === 'string' && d.domain !== DOMAIN && isInt(d.matchedLinks)));
    assert.ok(b.anchors.length > 0 && b.anchors.every((a: any) => typeof a.anchorText === 'string' && isInt(a.totalLinks) && isInt(a.refDomains)));

    const tc = await profile(c, 'top-content', DOMAIN);
    assert.equal(tc.statusCode, 200);
    const top = tc.json();
    assert.equal(top.urlId, b.urlId);
    assert.ok(top.topContent.length > 0);
    for (const item of top.topContent) {
      assert.equal(new URL(item.url).hostname.endsWith(DOMAIN), true, item.url);
      assert.ok(isPercent(item.citationFlow) && isPercent(item.trustFlow) && isInt(item.refDomains) && isInt(item.extBackLinks));
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
      assert.ok(isInt(r.topRank) && isInt(r.refIps) && isPercent(r.score));
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
      (await profile(c, 'backlink-profile', ' https://WWW.SUMMITPEAK.COM/products/camping-chair ')).statusCode,
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
