/**
 * The search side of the research engine: keyword lookup and metrics, related keywords,
 * SERPs, keyword details and the rank index services (competitor keywords, competitor
 * domains, suggested keywords, gap analysis).
 *
 * @example
 * const search = new SearchEngine({ corpus, clock, locations, store });
 * const serp = search.serp({ kw: 'running shoes', locationId: 2840, platform: 1 });
 * const ranking = await search.competitorKeywords('example.com', 2840, 200);
 */
import { parse as parseDomain } from 'tldts';
import type { Clock } from '../../lib/clock.js';
import { defaultLanguageFor, languageById, type Language } from '../../locations/languages.js';
import type { Location, LocationRegistry } from '../../locations/registry.js';
import { Bm25Index, PAGE_FIELD_WEIGHTS } from './bm25Index.js';
import { clickThroughRate } from './clickThroughCurve.js';
import { contentTypes, keywordOpportunities, type KeywordOpportunities } from './contentTypes.js';
import { KeywordCatalog } from './keywordCatalog.js';
import { keywordDifficulty } from './keywordDifficulty.js';
import { keywordId } from './keywordIds.js';
import { KeywordMetrics, UNKNOWN_KIND, type KeywordItem } from './keywordMetrics.js';
import { MarketItems } from './marketItems.js';
import { OrganicRanker, type Retrieval } from './organicRanking.js';
import { RankCandidates } from './rankCandidates.js';
import { hostRankStats, type HostRankStats } from './hostRankStats.js';
import { PageGroups, RANK_DEPTH, RankIndex, RankRowsBuilder, type RankEntry, type RankRows } from './rankIndex.js';
import { relatedCandidates } from './relatedKeywords.js';
import type { CorpusKeyword, CorpusPage, SearchCorpus } from './searchCorpus.js';
import type { IntentLabel } from './searchIntent.js';
import { SerpBuilder, type QueryRef } from './serpBuilder.js';
import type { Platform } from './serpFeatures.js';
import type { SearchStore, KeywordRef } from './searchStore.js';
import type { Serp, ShortLocation } from './serpTypes.js';
import { contentTokens, normaliseKeyword } from './text.js';

/** Default SERP location: location 0 or none means the United States (spec). */
export const DEFAULT_SERP_LOCATION = 2840;
export const MAX_RELATED = 10_000;
export const MAX_COMPETITOR_KEYWORDS = 1_000;

export interface SearchEngineOptions {
  corpus: SearchCorpus;
  clock: Clock;
  locations: LocationRegistry;
  /** Persistence of issued ids, difficulty and rank indexes; without it they live in memory. */
  store?: SearchStore;
  /** A BM25 index over the corpus pages built by the loader; built from `pages` otherwise. */
  index?: Bm25Index;
  /** The loader's fingerprint of the indexed page texts: with a store, rank candidates are stored under it. */
  textFingerprint?: string;
  /**
   * Whether the keywords are the sandbox's, so that unknown text in its vocabulary gets
   * derived metrics (keywordMetrics.ts); false for a store without a sandbox (QUARRY_WORLD_SIZE=none).
   * Default true.
   */
  sandboxKeywords?: boolean;
}

/** Whether a lookup waits for a rank-index build; a background build (warm-up) gives way to those that are. */
export interface BuildPriority {
  urgent: boolean;
}

/** Work between two yields of a rank-index build to the event loop (ms): requests keep being answered. */
const BUILD_SLICE_MS = 20;

export interface SerpQuery {
  kw: string;
  locationId?: number;
  languageId?: number;
  platform?: Platform;
  page?: number;
  /** YYYY-MM-DD: the day the SERP stands for (a stored snapshot's date); default: the clock's day. */
  date?: string;
}

export interface KeywordDetail {
  serp: Serp;
  kwOpps: KeywordOpportunities;
  searchIntent: Record<string, IntentLabel[] | null>;
  contentTypes: string[];
  serpFeatures: string[];
}

export type UrlType = 'domain' | 'subdomain' | 'url';

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

export interface ImportedKeyword extends KeywordItem {
  serp: { position: number; url: string; title: string; domain: string; ctr: number }[];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class SearchEngine {
  catalog: KeywordCatalog;
  metrics: KeywordMetrics;
  private readonly index: Bm25Index;
  private readonly ranker: OrganicRanker;
  private readonly builder: SerpBuilder;
  private corpus: SearchCorpus;
  private readonly clock: Clock;
  private readonly locations: LocationRegistry;
  private readonly store: SearchStore | undefined;
  private readonly rankIndexes = new Map<number, RankIndex>();
  private readonly pendingRankIndexes = new Map<number, { index: Promise<RankIndex>; priority: BuildPriority }>();
  /** Builds running now, each with a promise settled when it ends (see giveWay). */
  private readonly runningBuilds = new Set<{ priority: BuildPriority; ended: Promise<void> }>();
  private readonly rankCandidates: RankCandidates;
  /** Identifies the stored rank candidates this engine can reuse (page texts and ranking depth). */
  private readonly candidatesFingerprint: string | undefined;
  private storedCandidatesLoaded = false;
  /** Difficulties computed by one ranking (keywords no rank index covers), for the day of `difficultyDay`. */
  private readonly difficultyCache = new Map<string, { seo: number; ts: number }>();
  private difficultyDay = '';
  /** Pages by `urlKey`, built on the first URL lookup (a URL parse per page: a second of a small world's open that most requests never need). */
  private pageByUrlMap: Map<string, number> | undefined;
  private readonly rootByDomain = new Map<string, number>();
  private readonly domainByRoot = new Map<number, string>();
  private readonly refs = new Map<string, KeywordRef>();
  /** Items and difficulties of catalogue keywords per market, built once (related keywords). */
  private readonly marketItems = new MarketItems();
  /** See SearchEngineOptions.sandboxKeywords; `useKeywordProvider` turns it off. */
  private sandboxKeywords: boolean;

  constructor(options: SearchEngineOptions) {
    this.corpus = options.corpus;
    this.clock = options.clock;
    this.locations = options.locations;
    this.store = options.store;
    const pages = this.corpus.pages;
    this.index =
      options.index ??
      Bm25Index.build(pages.length, (i) => [pages[i].title, pages[i].description, pages[i].body], PAGE_FIELD_WEIGHTS, {
        preTokenized: [false, false, true],
      });
    this.ranker = new OrganicRanker(this.corpus, this.index);
    this.builder = new SerpBuilder(this.corpus, this.index, this.ranker);
    this.rankCandidates = new RankCandidates(this.ranker, RANK_DEPTH, SearchEngine.SHORT_RANKING_CANDIDATES);
    this.candidatesFingerprint =
      options.textFingerprint === undefined ? undefined : `${options.textFingerprint}|${RANK_DEPTH}|${SearchEngine.SHORT_RANKING_CANDIDATES}`;
    this.catalog = new KeywordCatalog(this.corpus);
    this.sandboxKeywords = options.sandboxKeywords ?? true;
    this.metrics = new KeywordMetrics(
      this.corpus,
      this.catalog,
      (id) => this.marketOf(id),
      () => this.sandboxKeywords,
    );
    pages.forEach((p) => {
      if (!this.rootByDomain.has(p.domain)) this.rootByDomain.set(p.domain, p.rootId);
      this.domainByRoot.set(p.rootId, p.domain);
    });
  }

  /**
   * Swaps in a fresh keyword set (after an import added keywords): lookups, metrics and
   * related keywords see them at once. Rank indexes are reloaded from the store on next
   * use; `buildRankIndex` re-ranks a market to include the new keywords.
   */
  reloadKeywords(data: Pick<SearchCorpus, 'keywords' | 'marketShare' | 'hasMarkets' | 'storedHistory'>): void {
    this.corpus = { ...this.corpus, ...data };
    this.catalog = new KeywordCatalog(this.corpus);
    this.metrics = new KeywordMetrics(
      this.corpus,
      this.catalog,
      (id) => this.marketOf(id),
      () => this.sandboxKeywords,
    );
    this.rankIndexes.clear();
    this.difficultyCache.clear();
  }

  // ---- locations and languages -------------------------------------------------------

  /** The market (country id) of a location: 0 stays global; a city, region or state → its country. */
  marketOf(locationId: number): number {
    if (locationId === 0) return 0;
    return this.locations.countryOf(locationId)?.id ?? locationId;
  }

  shortLocation(locationId: number): ShortLocation {
    const loc = this.locations.get(locationId);
    return { _id: locationId, label: loc?.label ?? 'Anywhere', code: loc?.code ?? '' };
  }

  /** The language a lookup runs in: the given one, else the main language of the location's country. */
  languageFor(locationId: number, languageId: number): Language {
    if (languageId !== 0) return languageById(languageId) ?? defaultLanguageFor(null);
    return defaultLanguageFor(this.locations.countryOf(locationId)?.countryCode ?? 'us');
  }

  // ---- keywords ----------------------------------------------------------------------

  /** The keyword record for a text in a language (known, or derived for unknown text). */
  keyword(text: string, languageId: number): CorpusKeyword {
    return this.metrics.keywordFor(text, languageId);
  }

  /**
   * A keyword provider serves the keywords the catalogue lacks (sources/index.ts): from then
   * on unknown text has no figures (null), rather than figures derived from sandbox keywords.
   */
  useKeywordProvider(): void {
    this.sandboxKeywords = false;
  }

  /**
   * Whether the catalogue has figures of a keyword for a location (a provider's keyword only
   * in the markets it was asked about: keywordMetrics.ts hasDataIn).
   */
  holdsKeyword(text: string, locationId: number, languageId: number): boolean {
    const idx = this.catalog.find(text, this.languageFor(locationId, languageId)._id);
    return idx !== undefined && this.metrics.hasDataIn(this.catalog.at(idx), locationId);
  }

  /** The keyword item of a text for (location, language); records its id for later lookups. */
  keywordItem(text: string, locationId: number, languageId: number): KeywordItem {
    const lang = this.languageFor(locationId, languageId);
    const k = this.metrics.keywordFor(text, lang._id);
    const item = this.metrics.item(k, locationId, languageId, this.clock.now(), this.difficultyOf(k, locationId));
    this.recordRefs([{ id: item._id, kw: item.kw, locationId, languageId }]);
    return item;
  }

  /**
   * The issued ones of `ids`, in their order: what a keyword list may store. Only the ids
   * are looked up; building the items (their histories) would cost a hundred times more.
   */
  knownKeywordIds(ids: readonly string[]): string[] {
    return ids.filter((id) => this.refs.has(id) || this.store?.keywordRef(id) !== undefined);
  }

  /** Resolves issued keyword ids to keyword items (unknown ids are dropped). */
  keywordsById(ids: readonly string[]): (KeywordItem & { languageId: number })[] {
    const out: (KeywordItem & { languageId: number })[] = [];
    for (const id of ids) {
      const ref = this.refs.get(id) ?? this.store?.keywordRef(id);
      if (!ref) continue;
      const lang = this.languageFor(ref.locationId, ref.languageId);
      const k = this.metrics.keywordFor(ref.kw, lang._id);
      out.push({ ...this.metrics.item(k, ref.locationId, ref.languageId, this.clock.now(), this.difficultyOf(k, ref.locationId)), languageId: ref.languageId });
    }
    return out;
  }

  /**
   * Related keywords of a seed (seed first), at most `limit` (≤ 10,000), with the count
   * before the limit.
   */
  async relatedKeywords(
    seedText: string,
    locationId: number,
    languageId: number,
    limit: number,
  ): Promise<{ keywords: KeywordItem[]; countKeywordsBeforeLimit: number; provisional: boolean }> {
    const lang = this.languageFor(locationId, languageId);
    const seed = this.metrics.keywordFor(seedText, lang._id);
    const market = this.marketOf(locationId);
    const index = await this.overlapIndex(market === 0 ? DEFAULT_SERP_LOCATION : market);
    const seedIdx = this.catalog.find(seed.kw, lang._id);
    const seedTop = index && seedIdx !== undefined && index.covers(seedIdx) ? index.top(seedIdx) : this.organicPages(seed, market, 10);
    const ranked = relatedCandidates({
      catalog: this.catalog,
      seed,
      seedIndex: seedIdx,
      seedTop,
      topOf: (k) => (index?.covers(k) ? index.top(k) : undefined),
      inMarket: (k) => market === 0 || this.corpus.marketShare(this.catalog.at(k).id, market) !== undefined,
    });
    const max = Math.max(0, Math.min(limit, MAX_RELATED));
    const now = this.clock.now();
    const keywords: KeywordItem[] = [];
    // The seed's difficulty is known before answering: one ranking when no index has it.
    if (max > 0) keywords.push(this.metrics.item(seed, locationId, languageId, now, this.difficultyOf(seed, locationId, true)));
    for (const k of ranked) {
      if (keywords.length >= max) break;
      keywords.push(this.catalogueItem(k, locationId, languageId, now));
    }
    this.recordRefs(keywords.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId })));
    return { keywords, countKeywordsBeforeLimit: ranked.length + 1, provisional: keywords.some((k) => k.seo === null) && this.difficultyPending(locationId) };
  }

  /**
   * Whether keywords of a location's market still lack a difficulty that its rank index,
   * being built in the background, will give them: an answer showing them must not be
   * cached. Starts that build if nothing started it.
   */
  difficultyPending(locationId: number): boolean {
    const market = this.marketOf(locationId) || DEFAULT_SERP_LOCATION;
    if (this.rankIndexes.has(market)) return false;
    this.warmRankIndex(market).catch(() => undefined);
    return true;
  }

  /**
   * The rank index related keywords read SERP overlap from, never waiting for a build: the
   * market's own when loaded or stored (loading takes well under a second), else the default
   * engine's on the same terms. While neither is ready — the first minutes after a first
   * start, while the default market is ranked in the background — there is none: candidates
   * are then ranked by shared words and niche alone, and the default market's build is
   * started if nothing started it. (Without a store every index is built in process, as before.)
   */
  private async overlapIndex(market: number): Promise<RankIndex | undefined> {
    for (const m of market === DEFAULT_SERP_LOCATION ? [market] : [market, DEFAULT_SERP_LOCATION]) {
      const loaded = this.rankIndexes.get(m);
      if (loaded) return loaded;
      if (this.store === undefined || this.store.hasRankIndex(m)) return this.rankIndex(m);
    }
    this.warmRankIndex(DEFAULT_SERP_LOCATION).catch(() => undefined);
    return undefined;
  }

  /**
   * Keyword-planner style metrics for a list of keywords, each with its organic top 10
   * and their CTRs; keywords the world does not know get derived metrics.
   */
  importKeywords(texts: readonly string[], locationId: number, languageId: number): ImportedKeyword[] {
    const lang = this.languageFor(locationId, languageId);
    const serpLocation = locationId === 0 ? DEFAULT_SERP_LOCATION : locationId;
    const seen = new Set<string>();
    const out: ImportedKeyword[] = [];
    for (const text of texts) {
      const kw = normaliseKeyword(text);
      if (kw === '' || seen.has(kw)) continue;
      seen.add(kw);
      const k = this.metrics.keywordFor(kw, lang._id);
      const top = this.organicPages(k, this.marketOf(serpLocation), 10);
      const item = this.metrics.item(k, locationId, languageId, this.clock.now(), this.difficultyOf(k, serpLocation, true));
      out.push({
        ...item,
        serp: top.map((p, i) => {
          const page = this.corpus.pages[p];
          return { position: i + 1, url: page.url, title: page.title, domain: page.domain, ctr: clickThroughRate(i + 1, []) };
        }),
      });
    }
    this.recordRefs(out.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId })));
    return out;
  }

  // ---- SERPs -------------------------------------------------------------------------

  /** The SERP of a keyword for (location, platform, page) on the clock's date. */
  serp(query: SerpQuery): Serp {
    return this.buildSerp(query).serp;
  }

  /** The keyword-tool SERP lookup: SERP, keyword opportunities, intent, content types, features. */
  keywordDetail(query: SerpQuery): KeywordDetail {
    const built = this.buildSerp(query);
    const pages = this.corpus.pages;
    const date = day(this.clock.now());
    const topFive = built.topTen.slice(0, 5).map((p) => pages[p]);
    const serpFeatures = [...new Set(built.serp.items.map((i) => i.type).filter((t) => t !== 'ORGANIC'))];
    return {
      serp: built.serp,
      kwOpps: keywordOpportunities(built.serp.kw, topFive, date),
      searchIntent: { [built.serp.mId]: built.signals.labels.length > 0 ? built.signals.labels : null },
      contentTypes: contentTypes(built.topTen.map((p) => pages[p])),
      serpFeatures,
    };
  }

  private buildSerp(query: SerpQuery) {
    const locationId = query.locationId ? query.locationId : DEFAULT_SERP_LOCATION;
    const location: Location | undefined = this.locations.get(locationId);
    const country = this.locations.countryOf(locationId);
    const lang = this.serpLanguage(query.kw, locationId, query.languageId ?? 0);
    const k = this.metrics.keywordFor(query.kw, lang._id);
    const nowMs = this.clock.now();
    const date = query.date ?? day(nowMs);
    const mId = keywordId(k.kw, locationId, query.languageId ?? 0);
    const related = this.catalog.size > 0 ? this.queryRefs(k, locationId, query.languageId ?? 0) : { questions: [], queries: [] };
    const engineDomain = location?.engineDomain ?? 'google.com';
    const built = this.builder.build({
      keyword: k.kw,
      keywordId: mId,
      location: this.shortLocation(locationId),
      countryCode: country?.code ?? location?.code ?? 'us',
      engineDomain,
      tld: engineDomain.replace(/^google\./, ''),
      languageId: lang._id,
      languageCode: lang.code,
      platform: query.platform ?? 1,
      page: query.page ?? 0,
      date,
      createdAt: Math.floor(nowMs / 1000),
      cpc: k.cpc,
      intentHints: k.intentHints,
      head: k.head,
      fallbackTokens: this.fallbackTokens(k),
      similarQueries: related.queries,
      similarQuestions: related.questions,
    });
    // The keyword's difficulty in the market (one value for every tool), not this page's own
    // top ten: a city's or a phone's results differ a little, and the rank index ranks fewer candidates.
    const difficulty = this.difficultyOf(k, locationId, true);
    if (difficulty) {
      built.serp.rank = difficulty.seo;
      built.serp.rank_updated_at = difficulty.ts;
    }
    this.recordRefs([{ id: mId, kw: k.kw, locationId, languageId: query.languageId ?? 0 }]);
    return built;
  }

  /** A SERP's language: the given one; else the location's, unless the keyword exists only in another. */
  private serpLanguage(text: string, locationId: number, languageId: number): Language {
    const lang = this.languageFor(locationId, languageId);
    if (languageId !== 0 || this.catalog.find(text, lang._id) !== undefined) return lang;
    const any = this.catalog.find(text, 0, lang._id);
    return any === undefined ? lang : (languageById(this.catalog.at(any).languageId) ?? lang);
  }

  private fallbackTokens(k: CorpusKeyword): string[] {
    const tokens = contentTokens(k.head);
    const niche = k.nicheId === null ? undefined : this.corpus.niches.find((n) => n.id === k.nicheId);
    if (niche) tokens.push(...contentTokens(niche.name));
    return tokens;
  }

  /**
   * Question and query keywords about the keyword, for "people also ask" and related
   * searches: keywords of its head term first, then others containing all its words, each
   * group most searched first ("how much do running shoes cost" for "running shoes", not
   * "how much do trail running shoes cost" before it).
   */
  private queryRefs(k: CorpusKeyword, locationId: number, languageId: number): { questions: QueryRef[]; queries: QueryRef[] } {
    const tokens = contentTokens(k.kw);
    const candidates: { kw: string; question: boolean; sameHead: boolean; volume: number }[] = [];
    const seen = new Set<string>([k.kw]);
    for (const t of tokens) {
      for (const i of this.catalog.withToken(t)) {
        const other = this.catalog.at(i);
        if (other.languageId !== k.languageId || seen.has(other.kw)) continue;
        seen.add(other.kw);
        const sameHead = other.head === k.head;
        if (!sameHead) {
          const words = new Set(contentTokens(other.kw));
          if (!tokens.every((w) => words.has(w))) continue;
        }
        candidates.push({ kw: other.kw, question: other.kind === 'question', sameHead, volume: other.volume });
      }
    }
    candidates.sort((a, b) => Number(b.sameHead) - Number(a.sameHead) || b.volume - a.volume || (a.kw < b.kw ? -1 : a.kw > b.kw ? 1 : 0));
    const ref = (kw: string): QueryRef => ({ kw, id: keywordId(kw, locationId, languageId) });
    const questions = candidates
      .filter((c) => c.question)
      .slice(0, 4)
      .map((c) => ref(c.kw));
    const queries = candidates
      .filter((c) => !c.question)
      .slice(0, 8)
      .map((c) => ref(c.kw));
    this.recordRefs([...questions, ...queries].map((r) => ({ id: r.id, kw: r.kw, locationId, languageId })));
    return { questions, queries };
  }

  /** Candidates re-ranked for short rankings (imports' top 10, the rank index's top 50). */
  private static readonly SHORT_RANKING_CANDIDATES = 200;

  /** The best `limit` pages for a keyword in a market, from its remembered retrieval when given. */
  private organicPages(k: CorpusKeyword, market: number, limit: number, retrieval?: Retrieval): number[] {
    const locationId = market === 0 ? DEFAULT_SERP_LOCATION : market;
    const location = this.locations.get(locationId);
    const engineDomain = location?.engineDomain ?? 'google.com';
    return this.builder
      .organic(
        {
          keyword: k.kw,
          languageId: k.languageId,
          location: this.shortLocation(locationId),
          tld: engineDomain.replace(/^google\./, ''),
          platform: 1,
          date: day(this.clock.now()),
          cpc: k.cpc,
          intentHints: k.intentHints,
          head: k.head,
          fallbackTokens: this.fallbackTokens(k),
        },
        limit,
        SearchEngine.SHORT_RANKING_CANDIDATES,
        retrieval,
      )
      .map((r) => r.page);
  }

  // ---- difficulty ---------------------------------------------------------------------

  /**
   * A keyword's difficulty in a location's market, computed one way for every tool: from the
   * top ten of the market's rank index (desktop, the index's day), or, for a keyword the index
   * does not cover, from the same ranking of that keyword alone (`compute`: one ranking of the
   * rank index's depth, kept for the day). Lists never rank keywords one by one: without
   * `compute` an uncovered keyword has none (undefined). Any location counts as its country,
   * anywhere (0) as the default engine's. The tools read the day's stored value, which this
   * computes (sources/difficultyBook.ts).
   */
  private difficultyOf(k: CorpusKeyword, locationId: number, compute = false): { seo: number; ts: number } | undefined {
    // Text nobody has data on has no difficulty either (issue 24: "asdfqwer" had KD 0).
    if (k.kind === UNKNOWN_KIND) return undefined;
    const market = this.marketOf(locationId) || DEFAULT_SERP_LOCATION;
    const index = this.rankIndexes.get(market);
    const idx = this.catalog.find(k.kw, k.languageId);
    if (index && idx !== undefined && index.covers(idx)) {
      return { seo: keywordDifficulty(index.top(idx).map((p) => this.corpus.pages[p])), ts: this.rankBuiltAt(index) };
    }
    return this.cachedDifficulty(k, market, compute);
  }

  /** `difficultyOf` past the rank index: the day's computed value, computed now if `compute`. */
  private cachedDifficulty(k: CorpusKeyword, market: number, compute: boolean): { seo: number; ts: number } | undefined {
    const today = day(this.clock.now());
    if (today !== this.difficultyDay) {
      this.difficultyCache.clear();
      this.difficultyDay = today;
    }
    const key = `${k.kw}|${k.languageId}|${market}`;
    const cached = this.difficultyCache.get(key);
    if (cached || !compute) return cached;
    const topTen = this.organicPages(k, market, RANK_DEPTH).slice(0, 10);
    // Dated like a rank index's (its day's start): the same ranking on the index's day gives the same value and time.
    const value = { seo: keywordDifficulty(topTen.map((p) => this.corpus.pages[p])), ts: Date.parse(`${today}T00:00:00Z`) / 1000 };
    if (this.difficultyCache.size > 100_000) this.difficultyCache.clear();
    this.difficultyCache.set(key, value);
    return value;
  }

  /**
   * The item of catalogue keyword `index`, as `metrics.item` with `difficultyOf` gives it, from
   * the per-market arrays (marketItems.ts): the item's figures built once per market and month,
   * its difficulty once per rank index. A fresh object each call (the caller may settle `seo`).
   */
  private catalogueItem(index: number, locationId: number, languageId: number, nowMs: number): KeywordItem {
    const k = this.catalog.at(index);
    const base = this.marketItems.item(this.metrics, index, locationId, languageId, nowMs, () => this.metrics.item(k, locationId, languageId, nowMs));
    let difficulty: { seo: number; ts: number } | undefined;
    const rankIndex = k.kind === UNKNOWN_KIND ? undefined : this.rankIndexes.get(this.marketOf(locationId) || DEFAULT_SERP_LOCATION);
    if (rankIndex) {
      // What difficultyOf reads from the rank index (the keyword as `find` resolves it), or -1 when the index has none.
      const seo = this.marketItems.difficulty(rankIndex, index, this.catalog.size, () => {
        const found = this.catalog.find(k.kw, k.languageId);
        return found !== undefined && rankIndex.covers(found) ? keywordDifficulty(rankIndex.top(found).map((p) => this.corpus.pages[p])) : -1;
      });
      if (seo >= 0) difficulty = { seo, ts: this.rankBuiltAt(rankIndex) };
    }
    // Not from the index (-1, or none loaded): the day's computed value, as difficultyOf gives it.
    difficulty ??= k.kind === UNKNOWN_KIND ? undefined : this.cachedDifficulty(k, this.marketOf(locationId) || DEFAULT_SERP_LOCATION, false);
    return { ...base, seo: difficulty?.seo ?? null, seo_ts: difficulty?.ts ?? null };
  }

  private recordRefs(refs: readonly KeywordRef[]): void {
    const fresh = refs.filter((r) => !this.refs.has(r.id));
    for (const r of fresh) this.refs.set(r.id, r);
    this.store?.recordKeywordRefs(fresh);
  }

  // ---- rank index ---------------------------------------------------------------------

  private rankBuiltAt(index: RankIndex): number {
    return Date.parse(`${index.date}T00:00:00Z`) / 1000;
  }

  /**
   * The rank index of a market (location 0 uses the default engine, 2840): loaded from the
   * store, or built by ranking the market's keywords on the clock's date and stored.
   * Concurrent callers share one build; the build yields to the event loop every few
   * milliseconds so that a server keeps answering while a market is ranked the first time.
   */
  rankIndex(locationId: number): Promise<RankIndex> {
    return this.requestRankIndex(locationId, true);
  }

  /**
   * Loads or builds a market's rank index in the background (the warm-up at open): the
   * build pauses while a build a lookup waits for runs, unless a lookup asks for this one.
   */
  warmRankIndex(locationId: number): Promise<RankIndex> {
    return this.requestRankIndex(locationId, false);
  }

  /** A market's rank index like `rankIndex`, reporting a build's progress (keywords ranked of all). */
  requireRankIndex(locationId: number, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    return this.requestRankIndex(locationId, true, onProgress);
  }

  private requestRankIndex(locationId: number, urgent: boolean, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    const market = this.marketOf(locationId) || DEFAULT_SERP_LOCATION;
    const ready = this.rankIndexes.get(market);
    if (ready) return Promise.resolve(ready);
    const pending = this.pendingRankIndexes.get(market);
    if (pending) {
      if (urgent) pending.priority.urgent = true;
      return pending.index;
    }
    const priority: BuildPriority = { urgent };
    const index = this.loadOrBuildRankIndex(market, priority, onProgress).finally(() => this.pendingRankIndexes.delete(market));
    this.pendingRankIndexes.set(market, { index, priority });
    return index;
  }

  private async loadOrBuildRankIndex(market: number, priority: BuildPriority, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    const stored = this.store?.rankIndex(market);
    if (!stored) return this.buildRankIndex(market, priority, onProgress);
    // Research-store ids → catalogue and corpus indexes (ids are dense small integers).
    const keywordIndex = denseIndex(this.corpus.keywords.map((k) => k.id));
    const pageIndex = denseIndex(this.corpus.pages.map((p) => p.id));
    const n = stored.keywordIds.length;
    const rows: RankRows = { keyword: new Int32Array(n), position: new Uint8Array(n), page: new Int32Array(n) };
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const keyword = stored.keywordIds[i] < keywordIndex.length ? keywordIndex[stored.keywordIds[i]] : -1;
      const page = stored.pageIds[i] < pageIndex.length ? pageIndex[stored.pageIds[i]] : -1;
      if (keyword < 0 || page < 0) continue;
      rows.keyword[kept] = keyword;
      rows.position[kept] = stored.positions[i];
      rows.page[kept] = page;
      kept++;
    }
    const index = new RankIndex(market, stored.date, this.pageGroups(), this.catalog.size, this.corpus.pages.length, {
      keyword: rows.keyword.subarray(0, kept),
      position: rows.position.subarray(0, kept),
      page: rows.page.subarray(0, kept),
    });
    this.rankIndexes.set(market, index);
    return index;
  }

  private groups: PageGroups | undefined;

  private pageGroups(): PageGroups {
    return (this.groups ??= new PageGroups(this.corpus));
  }

  /**
   * Ranks every keyword of a market (top RANK_DEPTH) and stores the result, replacing an
   * older build: run it from a job to refresh the index, or at world build to have it ready.
   * Each keyword's BM25 candidates are retrieved once and re-scored by the builds of
   * later markets (rankCandidates.ts), which then take a small part of the first build's time.
   */
  async buildRankIndex(locationId: number, priority: BuildPriority = { urgent: true }, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    let ended!: () => void;
    const running = { priority, ended: new Promise<void>((resolve) => (ended = resolve)) };
    this.runningBuilds.add(running);
    try {
      return await this.rankMarket(this.marketOf(locationId) || DEFAULT_SERP_LOCATION, priority, onProgress);
    } finally {
      this.runningBuilds.delete(running);
      ended();
    }
  }

  private async rankMarket(market: number, priority: BuildPriority, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    const date = day(this.clock.now());
    this.loadStoredCandidates();
    const ranked = new RankRowsBuilder();
    let keywords = 0;
    const all = this.corpus.keywords;
    let sliceStart = performance.now();
    for (let i = 0; i < all.length; i++) {
      if (performance.now() - sliceStart >= BUILD_SLICE_MS) {
        onProgress?.(i, all.length);
        await this.giveWay(priority);
        sliceStart = performance.now();
      }
      const k = all[i];
      if (this.corpus.marketShare(k.id, market) === undefined) continue;
      keywords++;
      const retrieval = this.rankCandidates.retrieval(k.id, { keyword: k.kw, head: k.head, fallbackTokens: this.fallbackTokens(k) });
      ranked.add(i, this.organicPages(k, market, RANK_DEPTH, retrieval));
    }
    const unsaved = this.rankCandidates.takeUnsaved();
    if (this.candidatesFingerprint !== undefined) this.store?.saveRankCandidates(this.candidatesFingerprint, unsaved);
    onProgress?.(all.length, all.length);
    const index = new RankIndex(market, date, this.pageGroups(), this.catalog.size, this.corpus.pages.length, ranked.finish());
    const rows = index.allRows();
    this.store?.saveRankIndex(
      { locationId: market, date, builtAt: Math.floor(this.clock.now() / 1000), keywords },
      Int32Array.from(rows.keyword, (k) => this.corpus.keywords[k].id),
      rows.position,
      Int32Array.from(rows.page, (p) => this.corpus.pages[p].id),
    );
    this.rankIndexes.set(market, index);
    return index;
  }

  /**
   * Lets the event loop run. A background build then waits while a build a lookup waits
   * for runs: both would otherwise take turns, and the lookup would wait for both.
   */
  private async giveWay(priority: BuildPriority): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (!priority.urgent) {
      const urgent = [...this.runningBuilds].filter((b) => b.priority.urgent).map((b) => b.ended);
      if (urgent.length === 0) return;
      await Promise.race(urgent);
    }
  }

  /** Adds the rank candidates stored by earlier processes, once (before the first build). */
  private loadStoredCandidates(): void {
    if (this.storedCandidatesLoaded) return;
    this.storedCandidatesLoaded = true;
    if (this.store && this.candidatesFingerprint !== undefined) this.rankCandidates.addStored(this.store.rankCandidates(this.candidatesFingerprint));
  }

  private pageByUrl(): Map<string, number> {
    if (!this.pageByUrlMap) {
      const map = new Map<string, number>();
      this.corpus.pages.forEach((p, i) => map.set(urlKey(p.url), i));
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
    const index = await this.rankIndex(locationId);
    const target = this.target(url, index);
    const best = index.bestPerKeyword(target.rows);
    const rows = [...best.values()].map((r) => index.entry(r));
    const byKeyword = (a: RankEntry, b: RankEntry) => this.catalog.at(a.keyword).kw.localeCompare(this.catalog.at(b.keyword).kw);
    // A row limit keeps the best rankings, not the worst: cut best-first, then present worst-first.
    rows.sort((a, b) => a.position - b.position || byKeyword(a, b));
    const max = Math.max(0, Math.min(limit, MAX_COMPETITOR_KEYWORDS));
    const kept = rows.slice(0, max).sort((a, b) => b.position - a.position || byKeyword(a, b));
    const now = this.clock.now();
    const keywords = kept.map((e) => {
      const k = this.catalog.at(e.keyword);
      const item = this.metrics.item(k, locationId, 0, now, this.difficultyOf(k, locationId));
      return { ...item, position: e.position, url: this.corpus.pages[e.page].url };
    });
    this.recordRefs(keywords.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId: 0 })));
    return { url_type: target.type, location: this.shortLocation(locationId), keywords, totalCount: rows.length };
  }

  /** For each other root domain, how many of `keywords` it ranks for in the top `depth` (its best page once). */
  private sharedKeywords(index: RankIndex, keywords: Iterable<number>, self: number | undefined, depth: number): Map<number, number> {
    const shared = new Map<number, number>();
    for (const k of keywords) {
      const seenRoots = new Set<number>();
      for (const page of index.top(k, depth)) {
        const root = this.corpus.pages[page].rootId;
        if (root === self || seenRoots.has(root)) continue;
        seenRoots.add(root);
        shared.set(root, (shared.get(root) ?? 0) + 1);
      }
    }
    return shared;
  }

  /** Domains sharing the most ranking keywords with a target, most shared first. */
  async competitorDomains(url: string, locationId: number, limit = 10): Promise<{ domain: string; rootId: number; shared: number; score: number }[]> {
    const index = await this.rankIndex(locationId);
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
    const index = await this.rankIndex(locationId);
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
    const index = await this.rankIndex(locationId);
    const mine = index.bestPerKeyword(this.target(domain, index).rows);
    const theirs = this.target(competitor, index);
    const rows = [...index.bestPerKeyword(theirs.rows).entries()].filter(([k]) => !mine.has(k)).map(([, r]) => index.entry(r));
    rows.sort((a, b) => a.position - b.position || this.catalog.at(a.keyword).kw.localeCompare(this.catalog.at(b.keyword).kw));
    const now = this.clock.now();
    const keywords = rows.slice((page - 1) * pageSize, page * pageSize).map((e) => {
      const k = this.catalog.at(e.keyword);
      return { ...this.metrics.item(k, locationId, 0, now, this.difficultyOf(k, locationId)), position: e.position };
    });
    this.recordRefs(keywords.map((k) => ({ id: k._id, kw: k.kw, locationId, languageId: 0 })));
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
    const now = this.clock.now();
    return [...this.rankIndexes.values()]
      .sort((a, b) => a.locationId - b.locationId)
      .map((index) => hostRankStats(index, host, index.rowsOfHost(host), (keyword) => this.metrics.volume(this.catalog.at(keyword), index.locationId, now)));
  }

  private domainOfRoot(rootId: number): string {
    return this.domainByRoot.get(rootId) ?? '';
  }

  /** Pages of the corpus (for callers that show ranking pages). */
  page(index: number): CorpusPage {
    return this.corpus.pages[index];
  }
}

/** An array mapping each id to its position in `ids` (−1 for ids not present). */
function denseIndex(ids: readonly number[]): Int32Array {
  let max = 0;
  for (const id of ids) if (id > max) max = id;
  const index = new Int32Array(max + 1).fill(-1);
  ids.forEach((id, i) => {
    if (id >= 0) index[id] = i;
  });
  return index;
}

/** Lookup key of a URL: host and path without scheme, `www.` or trailing slash. */
export function urlKey(url: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  try {
    const u = new URL(withScheme);
    const host = u.hostname.toLowerCase().replace(/^www\./, '');
    const path = u.pathname.replace(/\/+$/, '');
    return `${host}${path}${u.search}`;
  } catch {
    return url.toLowerCase();
  }
}

/**
 * Whether a target is a root domain, a subdomain or a URL (a path beyond `/`), with its
 * host and registrable domain (tldts). `www.` counts as the root domain.
 */
export function classifyTarget(url: string): { type: UrlType; host: string; domain: string | null; key: string } {
  const key = urlKey(url);
  const slash = key.indexOf('/');
  const host = slash === -1 ? key.split('?')[0] : key.slice(0, slash);
  const parsed = parseDomain(host);
  const domain = parsed.domain;
  const hasPath = slash !== -1 && key.length > slash + 1;
  const type: UrlType = hasPath ? 'url' : domain !== null && host !== domain ? 'subdomain' : 'domain';
  return { type, host, domain, key };
}
