/**
 * Organic ranking of the sandbox web's pages for a query.
 *
 * Candidates come from BM25 over page text (bm25Index.ts). Their final score is their
 * relevance scaled by a quality factor that blends, as a learning-to-rank model would
 * weigh them (Liu, "Learning to Rank for Information
 * Retrieval", Foundations and Trends in IR 3(3), 2009, §1.2 lists these feature
 * families): relevance (BM25, normalised by the best candidate), link authority
 * (page and domain authority, the PageRank family), intent match between the query and
 * the kind of site, freshness (exponential decay of age, strong for news queries), a
 * geographic boost for the country's ccTLD, and a small deterministic daily perturbation
 * seeded by (keyword, location, platform, date): positions drift from one day to the
 * next and never change within a day. Host crowding keeps at most two results per root
 * domain in a row of results, as Google limits results per site (Google Search Central
 * blog, "Site diversity change", June 2019).
 */
import type { Bm25Index } from './bm25Index.js';
import { hashString32, unitNoise } from './deterministicNoise.js';
import type { SearchCorpus } from './searchCorpus.js';
import type { IntentSignals } from './searchIntent.js';
import { tokenize } from './text.js';

export interface RankQuery {
  /** Normalised keyword. */
  keyword: string;
  languageId: number;
  locationId: number;
  /** Top-level domain of the location's search engine (com, de, co.uk, ...). */
  tld: string;
  platform: 1 | 2;
  /** YYYY-MM-DD. */
  date: string;
  signals: IntentSignals;
  /** Root domain named by the keyword (navigational queries rank it first). */
  entityRootId?: number;
  /** Extra query tokens used, at low weight, when the keyword alone matches few pages. */
  fallbackTokens?: readonly string[];
}

export interface RankedPage {
  /** Index into corpus.pages. */
  page: number;
  score: number;
  /** BM25 relevance normalised to 0–1. */
  relevance: number;
}

/** How well a kind of site answers each intent (0–1), the model's own table. */
const INTENT_SITE_FIT: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  informational: { wiki: 1, blog: 0.85, edu: 0.8, gov: 0.65, forum: 0.6, news: 0.5, brand: 0.3, shop: 0.2, directory: 0.2 },
  commercial: { blog: 0.9, shop: 0.7, brand: 0.6, forum: 0.6, news: 0.45, wiki: 0.3, directory: 0.3 },
  transactional: { shop: 1, brand: 0.8, directory: 0.35, blog: 0.25, forum: 0.1 },
  local: { directory: 1, shop: 0.7, brand: 0.5, blog: 0.2 },
  navigational: { brand: 1, shop: 0.4, wiki: 0.3 },
  news: { news: 1, blog: 0.4, forum: 0.3 },
};

/** Weights of the quality signals (the model's own calibration; they sum to 1). */
const QUALITY = { base: 0.4, authority: 0.4, intent: 0.1, freshness: 0.06, geo: 0.04 };
/**
 * Relative score noise: a lasting part per (keyword, location, platform, page) that breaks
 * near-ties the same way every day, and a smaller daily part that makes close pages trade
 * places from one day to the next.
 */
const LASTING_NOISE = 0.03;
const DAILY_NOISE = 0.008;
const CANDIDATES = 600;
const PER_DOMAIN = 2;
const DAY_MS = 86_400_000;

export class OrganicRanker {
  private readonly publishedDay: Int32Array;
  private readonly authority: Float32Array;

  constructor(private readonly corpus: SearchCorpus, private readonly index: Bm25Index) {
    const n = corpus.pages.length;
    this.publishedDay = new Int32Array(n);
    this.authority = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const p = corpus.pages[i];
      const t = Date.parse(`${p.published}T00:00:00Z`);
      this.publishedDay[i] = Number.isFinite(t) ? Math.floor(t / DAY_MS) : 0;
      // Page strength 0–1: page authority counts more than its domain's.
      this.authority[i] = (0.6 * p.upa + 0.4 * p.pda) / 100;
    }
  }

  /** Page strength (0–1) used in ranking. */
  strength(page: number): number {
    return this.authority[page];
  }

  /** Days between a page's publication and a date (YYYY-MM-DD). */
  ageInDays(page: number, date: string): number {
    return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS) - this.publishedDay[page];
  }

  /**
   * The best `limit` pages for the query, best first, re-ranking the `candidates` best
   * BM25 matches (fewer candidates rank faster, for the rank index's top 50).
   */
  rank(query: RankQuery, limit: number, candidates = CANDIDATES): RankedPage[] {
    const pages = this.corpus.pages;
    const tokens = tokenize(query.keyword);
    const found = this.index.search(tokens, Math.max(candidates, limit));
    const relevance = new Map<number, number>();
    const best = found.scores[0] ?? 1;
    // A page missing some of the query's words answers it only in part (coordination
    // factor: the share of the query's idf mass the page contains, squared).
    for (let i = 0; i < found.docs.length; i++) relevance.set(found.docs[i], (found.scores[i] / best) * found.coverage[i] ** 2);
    if (found.docs.length < limit * 2 && query.fallbackTokens && query.fallbackTokens.length > 0) {
      // Too few pages use the keyword's words: pages of its topic answer at lower relevance.
      const extra = this.index.search(query.fallbackTokens, Math.max(candidates, limit));
      const extraBest = extra.scores[0] ?? 1;
      for (let i = 0; i < extra.docs.length; i++) {
        if (!relevance.has(extra.docs[i])) relevance.set(extra.docs[i], (0.35 * extra.scores[i]) / extraBest);
      }
    }
    const today = Math.floor(Date.parse(`${query.date}T00:00:00Z`) / DAY_MS);
    const lastingSeed = hashString32(`${query.keyword}|${query.locationId}|${query.platform}`);
    const dailySeed = hashString32(`${query.keyword}|${query.locationId}|${query.platform}|${query.date}`);
    const labels = [...query.signals.labels, ...(query.signals.news ? ['news'] : [])];
    const freshnessDays = query.signals.news ? 30 : 3 * 365;
    const geoSuffix = `.${query.tld}`;
    const scored: RankedPage[] = [];
    for (const [page, rel] of relevance) {
      const p = pages[page];
      let intent = 0;
      for (const label of labels) intent = Math.max(intent, INTENT_SITE_FIT[label]?.[p.siteKind] ?? 0);
      const age = Math.max(0, today - this.publishedDay[page]);
      const freshness = Math.exp(-age / freshnessDays);
      const geo = query.tld !== 'com' && p.domain.endsWith(geoSuffix) ? 1 : 0;
      // Relevance gates everything else: quality signals scale a page's relevance, so an
      // authoritative page that does not answer the query cannot outrank one that does.
      const quality =
        QUALITY.base +
        QUALITY.authority * this.authority[page] +
        QUALITY.intent * intent +
        QUALITY.freshness * freshness +
        QUALITY.geo * geo;
      const noise = 1 + LASTING_NOISE * (2 * unitNoise(lastingSeed, p.id) - 1) + DAILY_NOISE * (2 * unitNoise(dailySeed, p.id) - 1);
      let score = rel * quality * noise;
      // Pages in another language rarely rank; link farms are demoted as spam.
      if (p.languageId !== query.languageId) score *= 0.3;
      if (p.siteKind === 'farm') score -= 0.1;
      if (query.entityRootId !== undefined && p.rootId === query.entityRootId) score += p.isHomepage ? 0.6 : 0.2;
      scored.push({ page, score, relevance: rel });
    }
    scored.sort((a, b) => b.score - a.score || pages[a.page].id - pages[b.page].id);
    // Host crowding: a third result of the same root domain waits until the list runs short.
    const out: RankedPage[] = [];
    const deferred: RankedPage[] = [];
    const perDomain = new Map<number, number>();
    for (const r of scored) {
      const root = pages[r.page].rootId;
      const n = perDomain.get(root) ?? 0;
      if (n >= PER_DOMAIN) deferred.push(r);
      else {
        perDomain.set(root, n + 1);
        out.push(r);
        if (out.length === limit) return out;
      }
    }
    for (const r of deferred) {
      out.push(r);
      if (out.length === limit) break;
    }
    return out;
  }
}
