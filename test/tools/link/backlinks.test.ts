/**
 * GET /link-tool/url-metrics and GET /link-tool/links through HTTP (link-tool rule 1):
 * the URL-metrics shape and types, pages of ≤ 500 without overlap, `meta.available_links`,
 * the `links` pool charged per returned link (a page cut to what remains, an empty pool
 * → 429 CreditLimit), one link per referring domain, new and lost links judged against the
 * fake clock, the 24-hour cache, and GET /link-tool/requests.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY } from '../../../src/lib/clock.js';
import { newLinkClient, pace, q, spend, type LinkClient } from './helpers.js';

let t: TestApp;
const ROOT = 'openpedia.org';
/** The tiny world's biggest root domain: 5,942 links from 351 referring domains. */
const ROOT_LINKS = 5942;
const ROOT_DOMAINS = 351;

const INTEGER_FIELDS = [
  'ExtBackLinks',
  'RefDomains',
  'ACRank',
  'RefIPs',
  'ItemType',
  'RefSubNets',
  'CitationFlow',
  'TrustFlow',
  'TrustMetric',
  'IndexedURLs',
  'RefDomainsEDU',
  'ExtBackLinksEDU',
  'RefDomainsGOV',
  'ExtBackLinksGOV',
  'RefDomainsEDU_Exact',
  'ExtBackLinksEDU_Exact',
  'RefDomainsGOV_Exact',
  'ExtBackLinksGOV_Exact',
];
const STRING_FIELDS = [
  'NonUniqueLinkTypeHomepages',
  'NonUniqueLinkTypeIndirect',
  'NonUniqueLinkTypeDeleted',
  'NonUniqueLinkTypeNoFollow',
  'NonUniqueLinkTypeProtocolHTTPS',
  'NonUniqueLinkTypeFrame',
  'NonUniqueLinkTypeImageLink',
  'NonUniqueLinkTypeRedirect',
  'NonUniqueLinkTypeTextLink',
  'TotalNonUniqueLinks',
  'OutLinksInternal',
  'OutLinksExternal',
  'OutDomainsExternal',
];
const LINK_FIELDS = [
  '_id',
  'domainId',
  'source',
  'target',
  'title',
  'type',
  'anchor',
  'alt',
  'first_seen',
  'last_seen',
  'last_crawl',
  'deleted',
  'reason_lost',
  'source_cf',
  'source_tf',
  'target_cf',
  'target_tf',
  'no_follow',
  'image',
  'redirect',
  'frame',
  'lang',
  'internal_links',
  'external_links',
  'ls',
  // The reference's BackLink adds these: a place to see the link, and what the index does not hold (null).
  'url',
  'category',
  'social',
  'ar',
];

const links = (c: LinkClient, params: Record<string, string | number>) => c.get(`/links?${q({ source: 0, page: 0, links_per_domain: 0, ...params })}`);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('link tool: url-metrics and links', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('url-metrics: [{_id, url, m:{linkindex:{v, ts}}}] for a root domain, a subdomain and a URL, with every v field typed as the spec says', async () => {
    const c = await newLinkClient(t);
    const before = await c.pool('lm-url-metrics');
    const cases = [
      { url: ROOT, itemType: 1 },
      { url: 'en.openpedia.org', itemType: 2 },
      { url: 'https://www.openpedia.org/', itemType: 3 },
    ];
    const ids = new Set<string>();
    for (const { url, itemType } of cases) {
      pace(t);
      const res = await c.get(`/url-metrics?${q({ url })}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.ok(Array.isArray(body) && body.length === 1);
      const item = body[0];
      assert.deepEqual(Object.keys(item).sort(), ['_id', 'm', 'url']);
      assert.equal(typeof item._id, 'string');
      ids.add(item._id);
      assert.equal(item.url, url);
      assert.deepEqual(Object.keys(item.m), ['linkindex']);
      assert.deepEqual(Object.keys(item.m.linkindex).sort(), ['ts', 'v']);
      assert.equal(item.m.linkindex.ts, Math.floor(t.clock.now() / 1000));
      const v = item.m.linkindex.v;
      assert.deepEqual(Object.keys(v).sort(), ['Status', ...INTEGER_FIELDS, ...STRING_FIELDS].sort(), 'exactly the spec fields');
      assert.equal(v.Status, 'Found');
      for (const f of INTEGER_FIELDS) assert.ok(Number.isInteger(v[f]) && v[f] >= 0, `${f} is a non-negative integer: ${v[f]}`);
      for (const f of STRING_FIELDS) assert.match(v[f], /^\d+$/, `${f} is a string of digits: ${JSON.stringify(v[f])}`);
      assert.equal(v.ItemType, itemType);
      assert.ok(v.ExtBackLinks > 0 && v.RefDomains > 0, `${url} has backlinks`);
      if (itemType === 1) assert.equal(v.TotalNonUniqueLinks, String(ROOT_LINKS));
    }
    assert.equal(ids.size, 3, 'each target has its own _id');
    assert.equal((await c.pool('lm-url-metrics')).remaining, before.remaining - 3, 'one lm-url-metrics unit per lookup');
  });

  test('url-metrics of a domain the index does not know: 200 with Status NotFound and zero counters', async () => {
    const c = await newLinkClient(t);
    const res = await c.get(`/url-metrics?${q({ url: 'never-linked-anywhere-xyz.com' })}`);
    assert.equal(res.statusCode, 200, res.body);
    const v = res.json()[0].m.linkindex.v;
    assert.equal(v.Status, 'NotFound');
    assert.equal(v.ExtBackLinks, 0);
    assert.equal(v.TotalNonUniqueLinks, '0');
  });

  test('links: pages of 500 from page 0 cover every link exactly once, strongest first; each page costs what it returns', async () => {
    const c = await newLinkClient(t);
    const seen = new Set<string>();
    let remaining = (await c.pool()).remaining;
    const pages = Math.ceil(ROOT_LINKS / 500);
    let previousLast: number | null = null;
    for (let page = 0; page <= pages; page++) {
      pace(t);
      const res = await links(c, { url: ROOT, page });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body.meta, { url_type: 'RootDomain', available_links: ROOT_LINKS });
      const expected = page < pages - 1 ? 500 : page === pages - 1 ? ROOT_LINKS - 500 * (pages - 1) : 0;
      assert.equal(body.links.length, expected, `page ${page}`);
      for (const link of body.links) {
        assert.ok(!seen.has(link._id), `link ${link._id} appears on two pages`);
        seen.add(link._id);
      }
      if (body.links.length > 0) {
        assert.deepEqual(Object.keys(body.links[0]).sort(), [...LINK_FIELDS].sort());
        const ls = body.links.map((l: { ls: number }) => l.ls);
        if (previousLast !== null) assert.ok(ls[0] <= previousLast, 'strength does not rise across pages');
        previousLast = ls[ls.length - 1];
      }
      const now = (await c.pool()).remaining;
      assert.equal(remaining - now, expected, `page ${page} costs ${expected}`);
      remaining = now;
    }
    assert.equal(seen.size, ROOT_LINKS);
  });

  test('page is required (no default): without it, 422 Parameter page is invalid and nothing charged', async () => {
    const c = await newLinkClient(t);
    const before = (await c.pool()).remaining;
    const res = await c.get(`/links?${q({ url: ROOT, source: 0, links_per_domain: 0 })}`);
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: 'Parameter page is invalid' } });
    assert.equal((await c.pool()).remaining, before);
  });

  test('a backlink in the reference shape: alt a boolean (alt text or not), url the linking page, unknowns null', async () => {
    const c = await newLinkClient(t);
    const body = (await links(c, { url: ROOT })).json();
    const withAlt = body.links.filter((l: { alt: boolean }) => l.alt);
    assert.ok(withAlt.length > 0 && withAlt.length < body.links.length, 'some links carry alt text, some do not');
    for (const link of body.links) {
      assert.equal(typeof link.alt, 'boolean');
      const row = t.ctx.engine.links.backlinkById(link._id)!;
      assert.equal(link.alt, row.alt !== '', 'alt is whether the link has alt text');
      assert.equal(link.url, link.source);
      assert.equal(link.category, null);
      assert.equal(link.social, null);
      assert.equal(link.ar, null);
    }
  });

  test('links_per_domain=1: exactly one link per referring domain; a page of 351 costs 351', async () => {
    const c = await newLinkClient(t);
    const before = (await c.pool()).remaining;
    const res = await links(c, { url: ROOT, links_per_domain: 1 });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.meta.available_links, ROOT_DOMAINS);
    assert.equal(body.links.length, ROOT_DOMAINS);
    const domains = new Set(body.links.map((l: { domainId: string }) => l.domainId));
    assert.equal(domains.size, body.links.length, 'domainId is unique');
    assert.equal(before - (await c.pool()).remaining, ROOT_DOMAINS);
    pace(t);
    const second = await links(c, { url: ROOT, links_per_domain: 1, page: 1 });
    assert.equal(second.json().links.length, 0);
    assert.equal(before - (await c.pool()).remaining, ROOT_DOMAINS, 'an empty second page costs nothing');
    // All links of the same target come from the same set of domains.
    pace(t);
    const all = (await links(c, { url: ROOT })).json().links as { domainId: string }[];
    assert.ok(all.length === 500 && new Set(all.map((l) => l.domainId)).size < 500, 'without the option a domain gives several links');
  });

  test('source=1: only links first seen in the last 30 days; source=2: only deleted links last seen in the last 90 days', async () => {
    const c = await newLinkClient(t);
    const now = t.clock.now();
    const newSince = isoDay(now - 30 * DAY);
    const lostSince = isoDay(now - 90 * DAY);
    const fresh = (await links(c, { url: ROOT, source: 1 })).json();
    assert.ok(fresh.links.length > 0, 'the tiny world has new links');
    assert.ok(fresh.meta.available_links < ROOT_LINKS);
    for (const l of fresh.links) assert.ok(l.first_seen >= newSince && l.first_seen <= isoDay(now), `first_seen ${l.first_seen} ≥ ${newSince}`);
    pace(t);
    const lost = (await links(c, { url: ROOT, source: 2 })).json();
    assert.ok(lost.links.length > 0, 'the tiny world has lost links');
    assert.ok(lost.meta.available_links < ROOT_LINKS);
    for (const l of lost.links) {
      assert.equal(l.deleted, true);
      assert.ok(l.last_seen >= lostSince, `last_seen ${l.last_seen} ≥ ${lostSince}`);
      assert.equal(typeof l.reason_lost, 'string');
    }
    // The filters do select: the full list holds links outside both windows.
    pace(t);
    const all = (await links(c, { url: ROOT })).json();
    assert.ok(
      all.links.some((l: { first_seen: string }) => l.first_seen < newSince),
      'the full list holds older links too',
    );
  });

  test('an identical request within 24 h comes from cache (no charge); after 24 h it is charged again', async () => {
    const c = await newLinkClient(t);
    const first = await links(c, { url: 'cleanbot.fr' });
    const spent = (await c.pool()).remaining;
    for (let i = 0; i < 4; i++) {
      t.clock.advance(1000);
      const again = await links(c, { url: 'cleanbot.fr' });
      assert.equal(again.statusCode, 200, 'no burst limit on a cache hit');
      assert.equal(again.body, first.body);
    }
    assert.equal((await c.pool()).remaining, spent, 'cache hits charge nothing');
    t.clock.advance(DAY);
    assert.equal((await links(c, { url: 'cleanbot.fr' })).statusCode, 200);
    assert.equal((await c.pool()).remaining, spent - 500);
  });

  test('entry plan: a page is cut to what remains in the pool, then the empty pool answers 429 CreditLimit', async () => {
    const c = await newLinkClient(t, 'entry');
    const pool = await c.pool();
    assert.equal(pool.limit, 100_000);
    await spend(t, c.id, pool.remaining - 120, 'links', 'entry');
    assert.equal((await c.pool()).remaining, 120);
    const cut = await links(c, { url: ROOT, page: 3 });
    assert.equal(cut.statusCode, 200, cut.body);
    const body = cut.json();
    assert.equal(body.links.length, 120, 'cut to the 120 links left');
    assert.equal(body.meta.available_links, ROOT_LINKS);
    // The cut page keeps its place: it starts where page 3 starts.
    const other = await newLinkClient(t);
    const full = (await links(other, { url: ROOT, page: 3 })).json();
    assert.deepEqual(
      body.links.map((l: { _id: string }) => l._id),
      full.links.slice(0, 120).map((l: { _id: string }) => l._id),
    );
    assert.equal((await c.pool()).remaining, 0);
    pace(t);
    const refused = await links(c, { url: ROOT, page: 4 });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.type, 'CreditLimit');
    assert.equal(refused.json().error.retry_after, undefined);
    assert.equal(refused.headers['retry-after'], undefined);
  });

  test('GET /link-tool/requests: {_id, t:0, created, url, source, links_per_domain}, oldest first (the project order), one per charged lookup', async () => {
    const c = await newLinkClient(t);
    assert.deepEqual((await c.get('/requests')).json(), []);
    await links(c, { url: ROOT });
    pace(t);
    await links(c, { url: 'cleanbot.fr', source: 1, links_per_domain: 1 });
    const res = await c.get('/requests');
    assert.equal(res.statusCode, 200);
    const entries = res.json();
    assert.equal(entries.length, 2);
    for (const e of entries) {
      assert.deepEqual(Object.keys(e).sort(), ['_id', 'created', 'links_per_domain', 'source', 't', 'url']);
      assert.equal(e.t, 0);
      assert.equal(typeof e._id, 'string');
      assert.ok(Number.isInteger(e.created));
      assert.ok(Number.isInteger(e.source) && Number.isInteger(e.links_per_domain));
    }
    const byUrl = Object.fromEntries(entries.map((e: { url: string }) => [e.url, e]));
    assert.deepEqual({ source: byUrl['cleanbot.fr'].source, lpd: byUrl['cleanbot.fr'].links_per_domain }, { source: 1, lpd: 1 });
    assert.deepEqual({ source: byUrl[ROOT].source, lpd: byUrl[ROOT].links_per_domain }, { source: 0, lpd: 0 });
    assert.equal(byUrl['cleanbot.fr'].created, Math.floor(t.clock.now() / 1000));
    assert.deepEqual(
      entries.map((e: { url: string }) => e.url),
      [ROOT, 'cleanbot.fr'],
      'oldest first, as policy/history.ts orders it',
    );
    // Another account sees none of them.
    const other = await newLinkClient(t);
    assert.deepEqual((await other.get('/requests')).json(), []);
  });
});
