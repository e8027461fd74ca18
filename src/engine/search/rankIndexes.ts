/**
 * The rank indexes of the markets (rankIndex.ts): loaded from the search store, or built by
 * ranking every keyword of a market and stored; one build per market however many ask, and
 * a background build (the warm-up at open) gives way to the builds lookups wait for.
 *
 * @example
 * const indexes = new MarketRankIndexes({ ranking, clock, store, candidates, candidatesFingerprint });
 * const index = await indexes.rankIndex(2840);
 */
import type { Clock } from '../../lib/clock.js';
import type { MarketRanking } from './marketRanking.js';
import type { RankCandidates } from './rankCandidates.js';
import { PageGroups, RANK_DEPTH, RankIndex, RankRowsBuilder, type RankRows } from './rankIndex.js';
import type { SearchStore } from './searchStore.js';

/** Whether a lookup waits for a rank-index build; a background build (warm-up) gives way to those that are. */
export interface BuildPriority {
  urgent: boolean;
}

/** Work between two yields of a rank-index build to the event loop (ms): requests keep being answered. */
const BUILD_SLICE_MS = 20;

export interface MarketRankIndexesOptions {
  ranking: MarketRanking;
  clock: Clock;
  store: SearchStore | undefined;
  candidates: RankCandidates;
  /** Identifies the stored rank candidates this engine can reuse (page texts and ranking depth). */
  candidatesFingerprint: string | undefined;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The time a rank index stands for (its day's start, in seconds): a difficulty read from it is dated so. */
export function rankBuiltAt(index: RankIndex): number {
  return Date.parse(`${index.date}T00:00:00Z`) / 1000;
}

export class MarketRankIndexes {
  private readonly ranking: MarketRanking;
  private readonly clock: Clock;
  private readonly store: SearchStore | undefined;
  private readonly rankIndexes = new Map<number, RankIndex>();
  private readonly pendingRankIndexes = new Map<number, { index: Promise<RankIndex>; priority: BuildPriority }>();
  /** Builds running now, each with a promise settled when it ends (see giveWay). */
  private readonly runningBuilds = new Set<{ priority: BuildPriority; ended: Promise<void> }>();
  private readonly rankCandidates: RankCandidates;
  private readonly candidatesFingerprint: string | undefined;
  private storedCandidatesLoaded = false;

  constructor(options: MarketRankIndexesOptions) {
    this.ranking = options.ranking;
    this.clock = options.clock;
    this.store = options.store;
    this.rankCandidates = options.candidates;
    this.candidatesFingerprint = options.candidatesFingerprint;
  }

  /** A market's rank index if this process holds it now (loaded or built). */
  get(market: number): RankIndex | undefined {
    return this.rankIndexes.get(market);
  }

  /** The rank indexes this process holds now. */
  loaded(): IterableIterator<RankIndex> {
    return this.rankIndexes.values();
  }

  /** Forgets the loaded indexes (new keywords): the next use loads them again from the store. */
  clear(): void {
    this.rankIndexes.clear();
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
    const market = this.ranking.indexMarket(locationId);
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
    return this.stored(market) ?? this.buildRankIndex(market, priority, onProgress);
  }

  /**
   * A market's rank index as loaded, or loaded now from the store (a difficulty asked before the
   * load at open has run reads its market's scale from it, marketDifficulty.ts); undefined when
   * none is stored.
   */
  stored(market: number): RankIndex | undefined {
    const ready = this.rankIndexes.get(market);
    if (ready) return ready;
    const stored = this.store?.rankIndex(market);
    if (!stored) return undefined;
    // Research-store ids → catalogue and corpus indexes (ids are dense small integers).
    const keywordIndex = denseIndex(this.ranking.corpus().keywords.map((k) => k.id));
    const pageIndex = denseIndex(this.ranking.corpus().pages.map((p) => p.id));
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
    const index = new RankIndex(market, stored.date, this.pageGroups(), this.ranking.catalog().size, this.ranking.corpus().pages.length, {
      keyword: rows.keyword.subarray(0, kept),
      position: rows.position.subarray(0, kept),
      page: rows.page.subarray(0, kept),
    });
    this.rankIndexes.set(market, index);
    return index;
  }

  private groups: PageGroups | undefined;

  private pageGroups(): PageGroups {
    return (this.groups ??= new PageGroups(this.ranking.corpus()));
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
      return await this.rankMarket(this.ranking.indexMarket(locationId), priority, onProgress);
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
    const all = this.ranking.corpus().keywords;
    let sliceStart = performance.now();
    for (let i = 0; i < all.length; i++) {
      if (performance.now() - sliceStart >= BUILD_SLICE_MS) {
        onProgress?.(i, all.length);
        await this.giveWay(priority);
        sliceStart = performance.now();
      }
      const k = all[i];
      if (this.ranking.corpus().marketShare(k.id, market) === undefined) continue;
      keywords++;
      const retrieval = this.rankCandidates.retrieval(k.id, { keyword: k.kw, head: k.head, fallbackTokens: this.ranking.fallbackTokens(k) });
      ranked.add(i, this.ranking.organicPages(k, market, RANK_DEPTH, retrieval));
    }
    const unsaved = this.rankCandidates.takeUnsaved();
    if (this.candidatesFingerprint !== undefined) this.store?.saveRankCandidates(this.candidatesFingerprint, unsaved);
    onProgress?.(all.length, all.length);
    const index = new RankIndex(market, date, this.pageGroups(), this.ranking.catalog().size, this.ranking.corpus().pages.length, ranked.finish());
    const rows = index.allRows();
    this.store?.saveRankIndex(
      { locationId: market, date, builtAt: Math.floor(this.clock.now() / 1000), keywords },
      Int32Array.from(rows.keyword, (k) => this.ranking.corpus().keywords[k].id),
      rows.position,
      Int32Array.from(rows.page, (p) => this.ranking.corpus().pages[p].id),
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
