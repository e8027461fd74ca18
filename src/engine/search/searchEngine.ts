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
import type { Clock } from '../../lib/clock.js';
import { defaultLanguageFor, languageById, type Language } from '../../locations/languages.js';
import type { Location, LocationRegistry } from '../../locations/registry.js';
import { Bm25Index, PAGE_FIELD_WEIGHTS } from './bm25Index.js';
import { buildBm25Index } from './bm25Builder.js';
import { clickThroughRate } from './clickThroughCurve.js';
import { CompetitorAnalysis, type CompetitorKeywords, type GapResult, type SuggestedKeyword } from './competitorAnalysis.js';
import { contentTypes, keywordOpportunities } from './contentTypes.js';
import { KeywordCatalog } from './keywordCatalog.js';
import { keywordId } from './keywordIds.js';
import { KeywordMetrics, UNKNOWN_KIND, type KeywordItem } from './keywordMetrics.js';
import { MarketItems } from './marketItems.js';
import { OrganicRanker } from './organicRanking.js';
import { RankCandidates } from './rankCandidates.js';
import type { HostRankStats } from './hostRankStats.js';
import { RANK_DEPTH, type RankIndex } from './rankIndex.js';
import { MarketDifficulty } from './marketDifficulty.js';
import { DEFAULT_SERP_LOCATION, MarketRanking, SHORT_RANKING_CANDIDATES } from './marketRanking.js';
import { MarketRankIndexes, rankBuiltAt, type BuildPriority } from './rankIndexes.js';
import { relatedCandidates, similarSearches } from './relatedKeywords.js';
import type { CorpusKeyword, CorpusPage, SearchCorpus } from './searchCorpus.js';
import { SerpBuilder, type QueryRef } from './serpBuilder.js';
import type { SearchStore, KeywordRef } from './searchStore.js';
import type { KeywordDetail, Serp, SerpQuery, ShortLocation } from './serpTypes.js';
import { normaliseKeyword } from './text.js';

export { DEFAULT_SERP_LOCATION };
export type { KeywordDetail, SerpQuery } from './serpTypes.js';
export const MAX_RELATED = 10_000;

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
  private readonly rankIndexes: MarketRankIndexes;
  private readonly competitors: CompetitorAnalysis;
  private readonly difficulty: MarketDifficulty;
  private readonly ranking: MarketRanking;
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
      buildBm25Index(pages.length, (i) => [pages[i].title, pages[i].description, pages[i].body], PAGE_FIELD_WEIGHTS, {
        preTokenized: [false, false, true],
      });
    this.ranker = new OrganicRanker(this.corpus, this.index);
    this.builder = new SerpBuilder(this.corpus, this.index, this.ranker);
    this.ranking = new MarketRanking({
      builder: this.builder,
      locations: this.locations,
      clock: this.clock,
      corpus: () => this.corpus,
      catalog: () => this.catalog,
      marketOf: (locationId) => this.marketOf(locationId),
      shortLocation: (locationId) => this.shortLocation(locationId),
    });
    this.rankIndexes = new MarketRankIndexes({
      ranking: this.ranking,
      clock: this.clock,
      store: this.store,
      candidates: new RankCandidates(this.ranker, RANK_DEPTH, SHORT_RANKING_CANDIDATES),
      candidatesFingerprint: options.textFingerprint === undefined ? undefined : `${options.textFingerprint}|${RANK_DEPTH}|${SHORT_RANKING_CANDIDATES}`,
    });
    this.catalog = new KeywordCatalog(this.corpus);
    this.sandboxKeywords = options.sandboxKeywords ?? true;
    this.metrics = this.keywordMetrics();
    this.difficulty = new MarketDifficulty({ ranking: this.ranking, clock: this.clock, rankIndexes: this.rankIndexes });
    this.competitors = new CompetitorAnalysis({
      corpus: () => this.corpus,
      catalog: () => this.catalog,
      metrics: () => this.metrics,
      clock: this.clock,
      rankIndex: (locationId) => this.rankIndex(locationId),
      loadedRankIndexes: () => this.rankIndexes.loaded(),
      difficultyOf: (k, locationId) => this.difficulty.difficultyOf(k, locationId),
      recordRefs: (refs) => this.recordRefs(refs),
      shortLocation: (locationId) => this.shortLocation(locationId),
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
    this.metrics = this.keywordMetrics();
    this.rankIndexes.clear();
    this.difficulty.clear();
  }

  /** Metrics over the catalogue as it stands (built at open and at each reload). */
  private keywordMetrics(): KeywordMetrics {
    return new KeywordMetrics(
      this.corpus,
      this.catalog,
      (id) => this.marketOf(id),
      () => this.sandboxKeywords,
    );
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
    const item = this.metrics.item(k, locationId, languageId, this.clock.now(), this.difficulty.difficultyOf(k, locationId));
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
      out.push({
        ...this.metrics.item(k, ref.locationId, ref.languageId, this.clock.now(), this.difficulty.difficultyOf(k, ref.locationId)),
        languageId: ref.languageId,
      });
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
    const seedTop = index && seedIdx !== undefined && index.covers(seedIdx) ? index.top(seedIdx) : this.ranking.organicPages(seed, market, 10);
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
    if (max > 0) keywords.push(this.metrics.item(seed, locationId, languageId, now, this.difficulty.difficultyOf(seed, locationId, true)));
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
    if (this.rankIndexes.get(market) !== undefined) return false;
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
      const top = this.ranking.organicPages(k, this.marketOf(serpLocation), 10);
      const item = this.metrics.item(k, locationId, languageId, this.clock.now(), this.difficulty.difficultyOf(k, serpLocation, true));
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
      fallbackTokens: this.ranking.fallbackTokens(k),
      similarQueries: related.queries,
      similarQuestions: related.questions,
    });
    // The keyword's difficulty in the market (one value for every tool), not this page's own
    // top ten: a city's or a phone's results differ a little, and the rank index ranks fewer candidates.
    const difficulty = this.difficulty.difficultyOf(k, locationId, true);
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

  /** Question and query keywords about the keyword (relatedKeywords.ts similarSearches), their ids recorded. */
  private queryRefs(k: CorpusKeyword, locationId: number, languageId: number): { questions: QueryRef[]; queries: QueryRef[] } {
    const { questions, queries } = similarSearches(this.catalog, k, locationId, languageId);
    this.recordRefs([...questions, ...queries].map((r) => ({ id: r.id, kw: r.kw, locationId, languageId })));
    return { questions, queries };
  }

  // ---- difficulty (marketDifficulty.ts) ----------------------------------------------

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
        return found !== undefined && rankIndex.covers(found) ? this.difficulty.difficultyFrom(rankIndex.top(found), k, rankIndex) : -1;
      });
      if (seo >= 0) difficulty = { seo, ts: rankBuiltAt(rankIndex) };
    }
    // Not from the index (-1, or none loaded): the day's computed value, as difficultyOf gives it.
    difficulty ??= k.kind === UNKNOWN_KIND ? undefined : this.difficulty.cachedDifficulty(k, this.marketOf(locationId) || DEFAULT_SERP_LOCATION, false);
    return { ...base, seo: difficulty?.seo ?? null, seo_ts: difficulty?.ts ?? null };
  }

  private recordRefs(refs: readonly KeywordRef[]): void {
    const fresh = refs.filter((r) => !this.refs.has(r.id));
    for (const r of fresh) this.refs.set(r.id, r);
    this.store?.recordKeywordRefs(fresh);
  }

  // ---- rank index (rankIndexes.ts) and what it tells of sites (competitorAnalysis.ts) ----

  /**
   * The rank index of a market (location 0 uses the default engine, 2840): loaded from the
   * store, or built by ranking the market's keywords on the clock's date and stored.
   */
  rankIndex(locationId: number): Promise<RankIndex> {
    return this.rankIndexes.rankIndex(locationId);
  }

  /** Loads or builds a market's rank index in the background (the warm-up at open). */
  warmRankIndex(locationId: number): Promise<RankIndex> {
    return this.rankIndexes.warmRankIndex(locationId);
  }

  /** A market's rank index like `rankIndex`, reporting a build's progress (keywords ranked of all). */
  requireRankIndex(locationId: number, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    return this.rankIndexes.requireRankIndex(locationId, onProgress);
  }

  /** Ranks every keyword of a market and stores the result, replacing an older build. */
  buildRankIndex(locationId: number, priority?: BuildPriority, onProgress?: (done: number, total: number) => void): Promise<RankIndex> {
    return this.rankIndexes.buildRankIndex(locationId, priority, onProgress);
  }

  competitorKeywords(url: string, locationId: number, limit: number): Promise<CompetitorKeywords> {
    return this.competitors.competitorKeywords(url, locationId, limit);
  }

  competitorDomains(url: string, locationId: number, limit?: number): Promise<{ domain: string; rootId: number; shared: number; score: number }[]> {
    return this.competitors.competitorDomains(url, locationId, limit);
  }

  organicCompetitors(url: string, locationId: number, limit?: number): Promise<{ domain: string; rootId: number; shared: number; score: number }[]> {
    return this.competitors.organicCompetitors(url, locationId, limit);
  }

  suggestedKeywords(url: string, locationId: number, limit: number): Promise<SuggestedKeyword[]> {
    return this.competitors.suggestedKeywords(url, locationId, limit);
  }

  gap(domain: string, competitor: string, locationId: number, page: number, pageSize: number): Promise<GapResult> {
    return this.competitors.gap(domain, competitor, locationId, page, pageSize);
  }

  hostRankStats(url: string): HostRankStats[] {
    return this.competitors.hostRankStats(url);
  }

  /** Pages of the corpus (for callers that show ranking pages). */
  page(index: number): CorpusPage {
    return this.corpus.pages[index];
  }
}
