/**
 * Rankings an SEO would not fault (issue 27), part of the realism suite (realismSuite.ts) over
 * the tiny and small worlds: one site at most twice per SERP, no foreign ccTLD in a market's
 * heads, no site without trust (TrustFlow 0, a link-farm profile) in a head's top 10, no wiki
 * of another niche in a head's top 10. On generator v12 (tiny world, seed 1, US): 20 keywords
 * had a site three times or more in their top 50, heads' top tens held 96 results on ccTLDs of
 * other countries (".co.uk", ".ac.nz") and 7 of sites with TrustFlow 0 ("credit card:
 * investpro.org"). The wiki rule failed on v11 ("Vpn – Coffeepedia").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorldSize } from '../../../src/config.js';
import { RANK_DEPTH, type RankIndex } from '../../../src/engine/search/rankIndex.js';
import type { CorpusKeyword } from '../../../src/engine/search/searchCorpus.js';
import type { TestSearch } from './searchWorld.js';

export interface RankedWorld {
  t: TestSearch;
  /** The US rank index. */
  index: RankIndex;
  /** English keywords of the US rank index (catalogue index and record). */
  ranked: { k: number; kw: CorpusKeyword }[];
}

/** Country label of a domain's ccTLD ("ac.nz" → "nz"); '' for a generic TLD (.com, .io: start-ups use it worldwide). */
const countryOf = (domain: string): string => {
  const last = domain.slice(domain.lastIndexOf('.') + 1);
  return last.length === 2 && last !== 'io' && last !== 'co' ? last : '';
};

/** Registers the ranking checks over the world that `world()` opened (in the suite's `before`). */
export function serpRealismSuite(size: WorldSize, world: () => RankedWorld): void {
  const heads = () => world().ranked.filter(({ kw }) => kw.kind === 'head');

  test(`${size}: one site at most twice in a keyword's top ${RANK_DEPTH} (but the brand a navigational query names) — none more`, () => {
    const { t, index, ranked } = world();
    const over: string[] = [];
    for (const { k, kw } of ranked) {
      const per = new Map<string, number>();
      for (const p of index.top(k, RANK_DEPTH)) {
        const domain = t.search.page(p).domain;
        per.set(domain, (per.get(domain) ?? 0) + 1);
      }
      for (const [domain, n] of per) {
        const named = kw.kind === 'brand' && domain.startsWith(kw.head.replace(/\s+/g, ''));
        if (n > 2 && !named) over.push(`${kw.kw}: ${domain} ×${n}`);
      }
    }
    assert.deepEqual(over.slice(0, 10), []);
    // The served SERP follows the same rule.
    for (const { kw } of heads()) {
      const domains = t.search
        .serp({ kw: kw.kw, locationId: 2840 })
        .items.filter((i) => i.type === 'ORGANIC')
        .map((i) => i.domain!);
      for (const d of new Set(domains)) assert.ok(domains.filter((x) => x === d).length <= 2, `${kw.kw}: ${d} more than twice`);
    }
  });

  test(`${size}: foreign ccTLDs only where they fit: none in a US head's top 10 (".co.uk", ".ac.nz"), under 2% of all US top-10 results`, () => {
    const { t, index, ranked } = world();
    const inHeads: string[] = [];
    let foreign = 0;
    let results = 0;
    for (const { k, kw } of ranked) {
      for (const p of index.top(k, 10)) {
        const domain = t.search.page(p).domain;
        results++;
        const country = countryOf(domain);
        if (country === '' || country === 'us') continue;
        foreign++;
        if (kw.kind === 'head') inHeads.push(`${kw.kw}: ${domain}`);
      }
    }
    assert.deepEqual(inHeads.slice(0, 10), []);
    assert.ok(foreign <= 0.02 * results, `${foreign} of ${results} top-10 results on foreign ccTLDs`);
  });

  test(`${size}: no site without trust (root TrustFlow 0, a link-farm profile) in a head's top 10 — none`, () => {
    const { t, index } = world();
    const trust = new Map(
      (t.store.raw.prepare('SELECT entity_id, trust_flow FROM entity_metrics WHERE level = 2').raw(true).all() as [number, number][]).map(([id, tf]) => [
        id,
        tf,
      ]),
    );
    const untrusted: string[] = [];
    for (const { k, kw } of heads()) {
      for (const p of index.top(k, 10)) {
        const page = t.search.page(p);
        if ((trust.get(page.rootId) ?? 0) === 0) untrusted.push(`${kw.kw}: ${page.domain}`);
      }
    }
    assert.deepEqual(untrusted.slice(0, 10), []);
  });

  test(`${size}: no wiki of another niche in a head's top 10 ("Vpn – Coffeepedia") — none`, () => {
    const { t, index } = world();
    const wikiNiche = new Map(
      (t.store.raw.prepare("SELECT id, niche_id FROM root_domains WHERE kind = 'wiki'").raw(true).all() as [number, number | null][]).map(([id, niche]) => [
        id,
        niche,
      ]),
    );
    const off: string[] = [];
    let wikis = 0;
    for (const { k, kw } of heads()) {
      for (const p of index.top(k, 10)) {
        const page = t.search.page(p);
        if (!wikiNiche.has(page.rootId)) continue;
        wikis++;
        const niche = wikiNiche.get(page.rootId);
        if (niche !== null && niche !== kw.nicheId) off.push(`${kw.kw}: ${page.title}`);
      }
    }
    assert.ok(wikis > 0, 'wikis rank for heads');
    assert.deepEqual(off.slice(0, 10), []);
  });
}
