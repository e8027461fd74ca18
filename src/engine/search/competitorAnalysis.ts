/**
 * What the rank index tells of a site: the keywords a URL, subdomain or domain ranks for,
 * the domains competing with it, the keywords to track for it, the gap with a competitor
 * and its ranking statistics.
 *
 * @example
 * const analysis = new CompetitorAnalysis({ ... }); // the search engine's (searchEngine.ts)
 * const ranking = await analysis.competitorKeywords('example.com', 2840, 200);
 */
import type { Clock } from '../../lib/clock.js';
import { hostRankStats, type HostRankStats } from './hostRankStats.js';
import type { KeywordCatalog } from './keywordCatalog.js';
import type { KeywordItem, KeywordMetrics } from './keywordMetrics.js';
import type { RankEntry, RankIndex } from './rankIndex.js';
import type { CorpusKeyword, SearchCorpus } from './searchCorpus.js';
import type { KeywordRef } from './searchStore.js';
import { classifyTarget, urlKey, type UrlType } from './searchTargets.js';
import type { ShortLocation } from './serpTypes.js';

export const MAX_COMPETITOR_KEYWORDS = 1_000;

export interface RankingKeyword extends KeywordItem {
  position: number;
  url: string;
}

export interface CompetitorKeywords {
  url_type: UrlType;
  location: ShortLocation;
  keywords: RankingKeyword[];
  totalCount: number;
}

export interface SuggestedKeyword {
  _id: string;
  position: number;
  kw: string;
  sv: number;
  lid: number;
}

export interface GapResult {
  domain: string;
  totalCount: number;
  keywords: (KeywordItem & { position: number })[];
}

/** What the analysis reads of the search engine (searchEngine.ts). */
export interface CompetitorSources {
  /** The corpus as it stands (an import swaps its keywords in). */
  corpus(): SearchCorpus;
  catalog(): KeywordCatalog;
  metrics(): KeywordMetrics;
  clock: Clock;
  /** A market's rank index, loaded or built (MarketRankIndexes.rankIndex). */
  rankIndex(locationId: number): Promise<RankIndex>;
  /** The rank indexes held now. */
  loadedRankIndexes(): Iterable<RankIndex>;
  /** A keyword's difficulty in a location's market, as every tool reads it (none if not computed). */
  difficultyOf(k: CorpusKeyword, locationId: number): { seo: number; ts: number } | undefined;
  /** Records issued keyword ids for later lookups by id. */
  recordRefs(refs: readonly KeywordRef[]): void;
  shortLocation(locationId: number): ShortLocation;
}

export class CompetitorAnalysis {
  private readonly sources: CompetitorSources;
  /** Pages by `urlKey`, built on the first URL lookup (a URL parse per page: a second of a small world's open that most requests never need). */
  private pageByUrlMap: Map<string, number> | undefined;
  private readonly rootByDomain = new Map<string, number>();
  private readonly domainByRoot = new Map<number, string>();

  constructor(sources: CompetitorSources) {
    this.sources = sources;
    sources.corpus().pages.forEach((p) => {
      if (!this.rootByDomain.has(p.domain)) this.rootByDomain.set(p.domain, p.rootId);
      this.domainByRoot.set(p.rootId, p.domain);
    });
  }

  private pageByUrl(): Map<string, number> {
    if (!this.pageByUrlMap) {
      const map = new Map<string, number>();
      this.sources.corpus().pages.forEach((p, i) => map.set(urlKey(p.url), i));
      this.pageByUrlMap = map;
    }
    return this.pageByUrlMap;
  }

  /** Classifies a url/domain/subdomain and returns the rank-index rows it owns. */
  private target(url: string, index: RankIndex): { type: UrlType; rows: readonly number[]; root: number | undefined } {
    const { type, host, domain, key } = classifyTarget(url);
    const root = domain ? this.rootByDomain.get(domain) : undefined;
    if (type === 'url') {
      const page = this.pageByUrl().get(key);
      return { type, rows: page === undefined ? [] : index.rowsOfPage(page), root };
    }
    if (type === 'subdomain') return { type, rows: index.rowsOfHost(host), root };
    return { type, rows: root === undefined ? [] : index.rowsOfRoot(root), root };
  }

  /**
   * Keywords a URL, subdomain or domain ranks for in a location: its best `limit` (≤ 1,000)
   * rankings, presented worst position first (the contract's display order).
   */
  async competitorKeywords(url: string, locationId: number, limit: number): Promise<CompetitorKeywords> {
    const index = await this.sources.rankIndex(locationId);
    const catalog = this.sources.catalog();
    const target = this.target(url, index);
    const best = index.bestPerKeyword(target.rows);
    const rows = [...best.values()].map((r) => index.entry(r));
    const byKeyword = (a: RankEntry, b: RankEntry) => catalog.at(a.keyword).kw.localeCompare(catalog.at(b.keyword).kw);
    // A row limit keeps the best rankings, not the worst: cut best-first, then present worst-first.
    rows.sort((a, b) => a.position - b.position || byKeyword(a, b));
    const max = Math.max(0, Math.min(limit, MAX_COMPETITOR_KEYWORDS));
    const kept = rows.slice(0, max).sort((a, b) => b.position - a.position || byKeyword(a, b));
    const now = this.sources.clock.now();
    const keywords = kept.map((e) => {
      const k = catalog.at(e.keyword);
      const item = this.sources.metrics().item(k, locationId, 0, now, this.sources.difficultyOf(k, locationId));
      return { ...item, position: e.position, url: this.sources.corpus().pages[e.page].url };
    });
    this.sources.recordRefs(keywords.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId: 0 })));
    return { url_type: target.type, location: this.sources.shortLocation(locationId), keywords, totalCount: rows.length };
  }

  /** For each other root domain, how many of `keywords` it ranks for in the top `depth` (its best page once). */
  private sharedKeywords(index: RankIndex, keywords: Iterable<number>, self: number | undefined, depth: number): Map<number, number> {
    const pages = this.sources.corpus().pages;
    const shared = new Map<number, number>();
    for (const k of keywords) {
      const seenRoots = new Set<number>();
      for (const page of index.top(k, depth)) {
        const root = pages[page].rootId;
        if (root === self || seenRoots.has(root)) continue;
        seenRoots.add(root);
        shared.set(root, (shared.get(root) ?? 0) + 1);
      }
    }
    return shared;
  }

  /** Domains sharing the most ranking keywords with a target, most shared first. */
  async competitorDomains(url: string, locationId: number, limit = 10): Promise<{ domain: string; rootId: number; shared: number; score: number }[]> {
    const index = await this.sources.rankIndex(locationId);
    const target = this.target(url, index);
    const mine = index.bestPerKeyword(target.rows);
    const shared = this.sharedKeywords(index, mine.keys(), target.root, 20);
    const total = Math.max(1, mine.size);
    return [...shared.entries()]
      .map(([rootId, n]) => ({ rootId, domain: this.domainOfRoot(rootId), shared: n, score: Math.round((100 * n) / total) }))
      .sort((a, b) => b.shared - a.shared || a.domain.localeCompare(b.domain))
      .slice(0, limit);
  }

  /**
   * Organic competitors of a site: root domains ranking in the top 20 for the same keywords,
   * scored by the cosine (Salton) similarity of the two keyword sets, |A ∩ B| / √(|A| · |B|)
   * ×100. Dividing by the competitor's own keyword count keeps generalists (an encyclopedia,
   * a national newspaper) that rank a little for everything below the sites that rank for
   * the same things: a shop's competitors are the shops selling what it sells.
   */
  async organicCompetitors(url: string, locationId: number, limit = 20): Promise<{ domain: string; rootId: number; shared: number; score: number }[]> {
    const depth = 20;
    const index = await this.sources.rankIndex(locationId);
    const target = this.target(url, index);
    const mine = [...index.bestPerKeyword(target.rows).entries()].filter(([, row]) => index.entry(row).position <= depth).map(([k]) => k);
    const shared = this.sharedKeywords(index, mine, target.root, depth);
    const keywordsOf = (root: number): number => {
      let n = 0;
      for (const row of index.bestPerKeyword(index.rowsOfRoot(root)).values()) if (index.entry(row).position <= depth) n++;
      return n;
    };
    return [...shared.entries()]
      .filter(([, n]) => n >= 2)
      .map(([rootId, n]) => ({
        rootId,
        domain: this.domainOfRoot(rootId),
        shared: n,
        score: Math.round((100 * n) / Math.sqrt(Math.max(1, mine.length) * Math.max(n, keywordsOf(rootId)))),
      }))
      .sort((a, b) => b.score - a.score || b.shared - a.shared || a.domain.localeCompare(b.domain))
      .slice(0, limit);
  }

  /** Keywords to track for a URL: the ones it ranks for, best position first, then by volume. */
  async suggestedKeywords(url: string, locationId: number, limit: number): Promise<SuggestedKeyword[]> {
    const ranking = (await this.competitorKeywords(url, locationId, MAX_COMPETITOR_KEYWORDS)).keywords;
    // The reference's `sv` is an integer: a keyword nobody has a volume for is not suggested.
    const known = ranking.filter((k): k is RankingKeyword & { sv: number } => k.sv !== null);
    known.sort((a, b) => a.position - b.position || b.sv - a.sv);
    return known.slice(0, limit).map((k) => ({ _id: k._id, position: k.position, kw: k.kw, sv: k.sv, lid: k.lid }));
  }

  /**
   * Gap analysis: keywords a competitor ranks for and the domain does not, by the
   * competitor's position, best first; `pageSize` keywords from page `page` (1-based).
   */
  async gap(domain: string, competitor: string, locationId: number, page: number, pageSize: number): Promise<GapResult> {
    const index = await this.sources.rankIndex(locationId);
    const catalog = this.sources.catalog();
    const mine = index.bestPerKeyword(this.target(domain, index).rows);
    const theirs = this.target(competitor, index);
    const rows = [...index.bestPerKeyword(theirs.rows).entries()].filter(([k]) => !mine.has(k)).map(([, r]) => index.entry(r));
    rows.sort((a, b) => a.position - b.position || catalog.at(a.keyword).kw.localeCompare(catalog.at(b.keyword).kw));
    const now = this.sources.clock.now();
    const keywords = rows.slice((page - 1) * pageSize, page * pageSize).map((e) => {
      const k = catalog.at(e.keyword);
      return { ...this.sources.metrics().item(k, locationId, 0, now, this.sources.difficultyOf(k, locationId)), position: e.position };
    });
    this.sources.recordRefs(keywords.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId: 0 })));
    return { domain: classifyTarget(competitor).domain ?? competitor, totalCount: rows.length, keywords };
  }

  /**
   * Organic ranking statistics of the host of a URL, domain or subdomain in every market
   * whose rank index is loaded, by location id: only what the indexes hold (nothing is
   * ranked for it, so a market still being ranked is left out).
   */
  hostRankStats(url: string): HostRankStats[] {
    // The key's host has no `www.`, like the index's host groups.
    const { host } = classifyTarget(url);
    const now = this.sources.clock.now();
    const catalog = this.sources.catalog();
    const metrics = this.sources.metrics();
    return [...this.sources.loadedRankIndexes()]
      .sort((a, b) => a.locationId - b.locationId)
      .map((index) => hostRankStats(index, host, index.rowsOfHost(host), (keyword) => metrics.volume(catalog.at(keyword), index.locationId, now)));
  }

  private domainOfRoot(rootId: number): string {
    return this.domainByRoot.get(rootId) ?? '';
  }
}
