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
 * domain in a list of results, as Google limits results per site (Google Search Central
 * blog, "Site diversity change", June 2019), but for the site a navigational query names.
 * Two demotions an SEO expects: a site on another country's ccTLD is geotargeted there
 * (Google Search Central, "Managing multi-regional and multilingual sites": a ccTLD is a
 * strong signal of the country a site targets), and a site no trusted site links to
 * (root TrustFlow 0, a link-farm profile) is treated as link spam. On a bare English head
 * the kinds of sites its searchers want lead (headFit.ts: shops and brands on "tent", the
 * encyclopedia on "latte art", government sites only on heads of public interest).
 */
import type { Bm25Index, ScoredDocs } from './bm25Index.js';
import { hashString32, unitNoise } from './deterministicNoise.js';
import type { SearchCorpus } from './searchCorpus.js';
import type { IntentSignals } from './searchIntent.js';
import { tokenize } from './text.js';
import { intentForm } from '../world/headProfiles.js';
import { PageFeatures, topicKey } from './pageFeatures.js';
import { HEAD_AUTHORITY_EXPONENT, HEAD_AUTHORITY_MIDDLE, headSiteFactors } from './headFit.js';

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
  /** The head term the keyword was built from (itself for a head): pages about it are on topic. */
  head?: string;
}

/**
 * The BM25 candidates of a query before scoring. They depend on the keyword's text and
 * topic only, not on location, platform or date: the rank index retrieves them once per
 * keyword and re-scores them in every market (see rankCandidates.ts).
 */
export interface Retrieval {
  found: ScoredDocs;
  /** Pages of the keyword's topic (its fallback tokens), searched when the keyword matches few pages. */
  fallback?: ScoredDocs;
}

/** The documents of a retrieval, to re-score later (OrganicRanker.rescore). */
export interface RetrievedDocs {
  docs: Int32Array;
  fallbackDocs?: Int32Array;
}

export interface RankedPage {
  /** Index into corpus.pages. */
  page: number;
  score: number;
  /** BM25 relevance normalised to 0–1. */
  relevance: number;
  /** How well the page's subject matches the query (TOPIC): 1 written for it, less for its head, least for another subject. */
  topic: number;
}

/**
 * Topical match of a page's subject (the keyword it was written for) with the query, as a
 * factor on its text relevance: BM25 alone ranks a page about "trail running shoes" as high
 * as one about "running shoes" for the query "running shoes" (it has every word), where a
 * searcher, and a search engine that understands the page's main subject, sees another
 * topic. A page written for the query itself (or the same keyword) is exact; one about a
 * variant of the query's head term ("cheap running shoes" for "running shoes") is on topic;
 * a page whose subject the index does not know (a homepage, an imported page) is judged by
 * its text alone, between the two; a page about another head term is off topic. When no
 * page is about the query's head (an unknown keyword), every page is judged by its text.
 */
const TOPIC = { exact: 1, sameHead: 0.8, unknown: 0.45, otherHead: 0.22 };

/** How well a kind of site answers each intent (0–1), the model's own table. */
const INTENT_SITE_FIT: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  informational: { wiki: 1, blog: 0.85, edu: 0.8, gov: 0.65, forum: 0.6, news: 0.5, brand: 0.3, shop: 0.2, directory: 0.2 },
  commercial: { blog: 0.9, shop: 0.8, brand: 0.7, forum: 0.6, news: 0.45, wiki: 0.2, edu: 0.15, directory: 0.3 },
  transactional: { shop: 1, brand: 0.85, directory: 0.35, blog: 0.25, forum: 0.1 },
  local: { directory: 1, shop: 0.7, brand: 0.5, blog: 0.2 },
  navigational: { brand: 1, shop: 0.4, wiki: 0.3 },
  news: { news: 1, blog: 0.4, forum: 0.3 },
};

/**
 * Weights of the quality signals (the model's own calibration; they sum to 1). Link
 * authority weighs most among pages on topic: the top results of real searches have
 * markedly stronger link profiles than those further down.
 */
const QUALITY = { base: 0.15, authority: 0.6, intent: 0.15, freshness: 0.06, geo: 0.04 };
/**
 * Factors on the score of a page whose site is on another country's ccTLD than the market's
 * (".co.uk" in the US), and of one whose site has no trust at all (root TrustFlow 0: its
 * links come from farms and other untrusted sites). The model's own calibration: strong
 * enough that neither reaches a head's top 10 on the test worlds (realismSuite.ts).
 */
const FOREIGN_CCTLD = 0.5;
const UNTRUSTED_SITE = 0.5;
/**
 * Relative score noise: a lasting part per (keyword, location, platform, page) that breaks
 * near-ties the same way every day, and a smaller daily part that makes close pages trade
 * places from one day to the next.
 */
const LASTING_NOISE = 0.03;
/** Compression of BM25 relevance (0–1) before the other signals scale it (see rank). */
const RELEVANCE_EXPONENT = 0.35;
/** Extra discount of pages found through the keyword's topic only (fallback tokens), after compression. */
const FALLBACK_DISCOUNT = 0.35;
const DAILY_NOISE = 0.008;
const CANDIDATES = 600;
const PER_DOMAIN = 2;
const DAY_MS = 86_400_000;

export class OrganicRanker {
  /** What scoring reads of each page (pageFeatures.ts), made on the first ranking: a restart answers none. */
  private pageFeatures: PageFeatures | undefined;

  constructor(
    private readonly corpus: SearchCorpus,
    private readonly index: Bm25Index,
  ) {}

  private get features(): PageFeatures {
    return (this.pageFeatures ??= new PageFeatures(this.corpus));
  }

  /** The topical factor (TOPIC) of each page for a query, by page; undefined when no page is about its head term. */
  private topicFactors(query: Pick<RankQuery, 'keyword' | 'head' | 'languageId'>): ((page: number) => number) | undefined {
    const { headIds, topicIds, pageTopic, pageHead } = this.features;
    const head = headIds.get(query.languageId)?.get(query.head ?? query.keyword);
    if (head === undefined) return undefined;
    const topic = topicIds.get(topicKey(query.languageId, query.keyword)) ?? -2;
    return (page) =>
      pageTopic[page] === topic ? TOPIC.exact : pageHead[page] === head ? TOPIC.sameHead : pageHead[page] < 0 ? TOPIC.unknown : TOPIC.otherHead;
  }

  /** Page strength (0–1) used in ranking. */
  strength(page: number): number {
    return this.features.authority[page];
  }

  /** Days between a page's publication and a date (YYYY-MM-DD). */
  ageInDays(page: number, date: string): number {
    return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS) - this.features.publishedDay[page];
  }

  /**
   * The BM25 candidates `rank` re-ranks for a query: the `candidates` best matches of
   * the keyword and, when fewer than twice `limit` pages match it, those of its fallback
   * tokens.
   */
  retrieve(query: Pick<RankQuery, 'keyword' | 'fallbackTokens' | 'head'>, limit: number, candidates = CANDIDATES): Retrieval {
    const depth = Math.max(candidates, limit);
    const tokens = queryTokens(query.keyword);
    let found = this.index.search(tokens, depth);
    if (query.head && query.head !== query.keyword) {
      // The best matches of a long keyword can all be pages sharing its pattern words ("how
      // much does … cost" about other things): the pages best matching its head term are
      // candidates too, scored for the whole keyword.
      const known = new Set(found.docs);
      const extra = this.headDocs(query.head, depth).filter((d) => !known.has(d));
      if (extra.length > 0) {
        const docs = new Int32Array(found.docs.length + extra.length);
        docs.set(found.docs);
        docs.set(extra, found.docs.length);
        found = this.index.scoreDocs(tokens, docs);
      }
    }
    if (found.docs.length < limit * 2 && query.fallbackTokens && query.fallbackTokens.length > 0) {
      return { found, fallback: this.index.search(query.fallbackTokens, depth) };
    }
    return { found };
  }

  private readonly headSearches = new Map<string, Int32Array>();

  /** The best `depth` matches of a head term (remembered: a head has dozens of keywords). */
  private headDocs(head: string, depth: number): Int32Array {
    const key = `${depth}|${head}`;
    let docs = this.headSearches.get(key);
    if (!docs) this.headSearches.set(key, (docs = this.index.search(tokenize(head), depth).docs));
    return docs;
  }

  /** The retrieval `retrieve` returned for the query, from its documents (same scores). */
  rescore(query: Pick<RankQuery, 'keyword' | 'fallbackTokens'>, retrieved: RetrievedDocs): Retrieval {
    const found = this.index.scoreDocs(queryTokens(query.keyword), retrieved.docs);
    if (!retrieved.fallbackDocs) return { found };
    return { found, fallback: this.index.scoreDocs(query.fallbackTokens ?? [], retrieved.fallbackDocs) };
  }

  /**
   * The best `limit` pages for the query, best first, re-ranking the `candidates` best
   * BM25 matches (fewer candidates rank faster, for the rank index's top 50). A caller
   * that remembers the query's retrieval passes it (`retrieve` with the same limit and
   * candidates, or `rescore` of its documents).
   */
  rank(query: RankQuery, limit: number, candidates = CANDIDATES, retrieval = this.retrieve(query, limit, candidates)): RankedPage[] {
    const { found, fallback } = retrieval;
    const fallbackExtra = fallback ? fallback.docs.length : 0;
    const candidatePage = new Int32Array(found.docs.length + fallbackExtra);
    const relevance = new Float64Array(candidatePage.length);
    const fromFallback = new Uint8Array(candidatePage.length);
    let count = 0;
    // The best score (the head term's extra candidates, scored after the search's own, are not in order).
    let best = 0;
    for (let i = 0; i < found.scores.length; i++) best = Math.max(best, found.scores[i]);
    if (best === 0) best = 1;
    // A page missing some of the query's words answers it only in part (coordination
    // factor: the share of the query's idf mass the page contains, squared).
    for (let i = 0; i < found.docs.length; i++) {
      candidatePage[count] = found.docs[i];
      relevance[count++] = (found.scores[i] / best) * found.coverage[i] ** 2;
    }
    if (fallback) {
      // Too few pages use the keyword's words: pages of its topic answer at lower relevance.
      const fallbackBest = fallback.scores[0] ?? 1;
      const known = new Set(found.docs);
      for (let i = 0; i < fallback.docs.length; i++) {
        if (known.has(fallback.docs[i])) continue;
        candidatePage[count] = fallback.docs[i];
        relevance[count] = (0.35 * fallback.scores[i]) / fallbackBest;
        // Compressed like the keyword's own matches, then discounted again (see below).
        fromFallback[count++] = 1;
      }
    }
    const today = Math.floor(Date.parse(`${query.date}T00:00:00Z`) / DAY_MS);
    const lastingSeed = hashString32(`${query.keyword}|${query.locationId}|${query.platform}`);
    const dailySeed = hashString32(`${query.keyword}|${query.locationId}|${query.platform}|${query.date}`);
    const labels = [...query.signals.labels, ...(query.signals.news ? ['news'] : [])];
    // How well each kind of site answers the query: the mean fit over its intents (a head
    // term that is both commercial and informational is answered best by reviews and
    // guides, less by an encyclopedia or a shop alone).
    const f = this.features;
    const intentOfKind = f.siteKinds.map((kind) => {
      let intent = 0;
      for (const label of labels) intent += INTENT_SITE_FIT[label]?.[kind] ?? 0;
      return labels.length > 0 ? intent / labels.length : 0;
    });
    const topicOf = this.topicFactors(query);
    // Which kinds of sites the head's searchers want (headFit.ts): shops on "tent", not an encyclopedia.
    const headFit = headSiteFactors(query, f.siteKinds);
    const freshnessDays = query.signals.news ? 30 : 3 * 365;
    const geoSuffix = `.${query.tld}`;
    // The market's country by its engine's domain: google.com is the US's (and that of territories without their own).
    const marketCountry = query.tld === 'com' ? 'us' : query.tld.slice(query.tld.lastIndexOf('.') + 1);
    const score = new Float64Array(count);
    const topical = new Float64Array(count);
    const candidateId = new Float64Array(count);
    for (let c = 0; c < count; c++) {
      const page = candidatePage[c];
      const id = f.pageId[page];
      candidateId[c] = id;
      const age = Math.max(0, today - f.publishedDay[page]);
      const freshness = Math.exp(-age / freshnessDays);
      const geo = query.tld !== 'com' && f.domain[page].endsWith(geoSuffix) ? 1 : 0;
      // Relevance gates everything else: quality signals scale a page's relevance, so an
      // authoritative page that does not answer the query cannot outrank one that does.
      const quality =
        QUALITY.base +
        QUALITY.authority * f.authority[page] +
        QUALITY.intent * intentOfKind[f.siteKind[page]] +
        QUALITY.freshness * freshness +
        QUALITY.geo * geo;
      const noise = 1 + LASTING_NOISE * (2 * unitNoise(lastingSeed, id) - 1) + DAILY_NOISE * (2 * unitNoise(dailySeed, id) - 1);
      const topic = topicOf ? topicOf(page) : 1;
      topical[c] = topic;
      // Text relevance saturates: past a good match, more repetitions of the query's words
      // (keyword stuffing) or a shorter page do not make a page more relevant.
      // A page found only through the keyword's topic keeps its discount after compression.
      let s = relevance[c] ** RELEVANCE_EXPONENT * (fromFallback[c] ? FALLBACK_DISCOUNT : 1) * topic * quality * noise;
      // Pages in another language rarely rank; link farms are demoted as spam.
      if (f.languageId[page] !== query.languageId) s *= 0.3;
      if (f.siteKind[page] === f.farmKind) s -= 0.1;
      const foreign = f.country[page] !== '' && f.country[page] !== marketCountry;
      if (foreign) s *= FOREIGN_CCTLD;
      if (f.untrusted[page]) s *= UNTRUSTED_SITE;
      if (headFit) {
        s *= headFit.kind[f.siteKind[page]];
        // Among the pages about a head, authority decides more: it lifts the kinds of sites
        // the head's searchers want, and only lowers the others (an encyclopedia's links do
        // not make it a shop). Links earned abroad or from farms count at the same discounts
        // there, and a head's searchers want the market's own sites: a foreign one takes its
        // discount again.
        if (headFit.bare && topic >= TOPIC.sameHead) {
          const trusted = f.authority[page] * (foreign ? FOREIGN_CCTLD : 1) * (f.untrusted[page] ? UNTRUSTED_SITE : 1);
          const lift = (trusted / HEAD_AUTHORITY_MIDDLE) ** HEAD_AUTHORITY_EXPONENT;
          s *= headFit.wanted[f.siteKind[page]] ? lift : Math.min(1, lift);
        }
        if (headFit.bare && foreign) s *= FOREIGN_CCTLD;
      }
      if (query.entityRootId !== undefined && f.rootId[page] === query.entityRootId) s += f.isHomepage[page] ? 0.6 : 0.2;
      score[c] = s;
    }
    const order = bestFirst(score, candidateId, count);
    // Host crowding: two results of a root domain at most, but for the site the query names
    // (its pages wait until the list runs short: a brand's search shows its site more).
    const ranked = (c: number): RankedPage => ({ page: candidatePage[c], score: score[c], relevance: relevance[c], topic: topical[c] });
    const out: RankedPage[] = [];
    const deferred: number[] = [];
    const perDomain = new Map<number, number>();
    for (const c of order) {
      const root = f.rootId[candidatePage[c]];
      const n = perDomain.get(root) ?? 0;
      if (n >= PER_DOMAIN) {
        if (root === query.entityRootId) deferred.push(c);
      } else {
        perDomain.set(root, n + 1);
        out.push(ranked(c));
        if (out.length === limit) return out;
      }
    }
    for (const c of deferred) {
      out.push(ranked(c));
      if (out.length === limit) break;
    }
    return out;
  }
}

/**
 * The words a query is searched by: those of its intent's spelling ("hiking boots for men"
 * is searched as "mens hiking boots"), as a search engine that knows synonyms rewrites a
 * query, so that spellings of one intent find the same pages.
 */
function queryTokens(keyword: string): string[] {
  return tokenize(intentForm(keyword));
}

/**
 * Candidates 0..count−1 ordered by score, highest first, equal scores by page id: a total
 * order (page ids are distinct), so any correct sort gives the same list. A quicksort over
 * typed arrays: Array.prototype.sort calling a comparator was most of a rank index
 * build's scoring time.
 */
export function bestFirst(score: Float64Array, id: Float64Array, count: number): Int32Array {
  const order = new Int32Array(count);
  for (let c = 0; c < count; c++) order[c] = c;
  const before = (a: number, b: number) => score[a] > score[b] || (score[a] === score[b] && id[a] < id[b]);
  const ranges = [0, count - 1];
  while (ranges.length > 0) {
    const hi = ranges.pop()!;
    const lo = ranges.pop()!;
    if (hi - lo < 16) {
      for (let i = lo + 1; i <= hi; i++) {
        const c = order[i];
        let j = i - 1;
        while (j >= lo && before(c, order[j])) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = c;
      }
      continue;
    }
    // Median of the first, middle and last as the pivot; Hoare partition around it.
    const a = order[lo];
    const b = order[(lo + hi) >> 1];
    const c = order[hi];
    const pivot = before(a, b) ? (before(b, c) ? b : before(a, c) ? c : a) : before(a, c) ? a : before(b, c) ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (before(order[i], pivot)) i++;
      while (before(pivot, order[j])) j--;
      if (i <= j) {
        const t = order[i];
        order[i++] = order[j];
        order[j--] = t;
      }
    }
    if (lo < j) ranges.push(lo, j);
    if (i < hi) ranges.push(i, hi);
  }
  return order;
}
