/**
 * Keyword difficulty in a market, one way for every tool: read from the market's rank index,
 * or, for a keyword the index does not cover, computed from a ranking of that keyword alone
 * and kept for the day.
 *
 * @example
 * const difficulty = new MarketDifficulty({ ranking, clock, rankIndexes });
 * difficulty.difficultyOf(keyword, 2840, true); // { seo: 42, ts: 1790000000 }
 */
import type { Clock } from '../../lib/clock.js';
import { DifficultyScale } from './difficultyScale.js';
import { firstPageStrength, keywordDifficulty } from './keywordDifficulty.js';
import { UNKNOWN_KIND } from './keywordMetrics.js';
import { RANK_DEPTH } from './rankIndex.js';
import { DEFAULT_SERP_LOCATION, type MarketRanking } from './marketRanking.js';
import type { RankIndex } from './rankIndex.js';
import { rankBuiltAt, type MarketRankIndexes } from './rankIndexes.js';
import type { CorpusKeyword } from './searchCorpus.js';

export interface MarketDifficultyOptions {
  ranking: MarketRanking;
  clock: Clock;
  rankIndexes: MarketRankIndexes;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class MarketDifficulty {
  private readonly ranking: MarketRanking;
  private readonly clock: Clock;
  private readonly rankIndexes: MarketRankIndexes;
  /** Difficulties computed by one ranking (keywords no rank index covers), for the day of `difficultyDay`. */
  private readonly difficultyCache = new Map<string, { seo: number; ts: number }>();
  private difficultyDay = '';
  /** Each rank index's difficulty scale (its market's first pages), made at its first difficulty. */
  private readonly scales = new WeakMap<RankIndex, DifficultyScale>();

  constructor(options: MarketDifficultyOptions) {
    this.ranking = options.ranking;
    this.clock = options.clock;
    this.rankIndexes = options.rankIndexes;
  }

  /** Forgets the computed values (new keywords). */
  clear(): void {
    this.difficultyCache.clear();
  }

  /**
   * A keyword's difficulty in a location's market, computed one way for every tool: from the
   * top ten of the market's rank index (desktop, the index's day), or, for a keyword the index
   * does not cover, from the same ranking of that keyword alone (`compute`: one ranking of the
   * rank index's depth, kept for the day). Lists never rank keywords one by one: without
   * `compute` an uncovered keyword has none (undefined). Any location counts as its country,
   * anywhere (0) as the default engine's. The tools read the day's stored value, which this
   * computes (sources/difficultyBook.ts).
   */
  difficultyOf(k: CorpusKeyword, locationId: number, compute = false): { seo: number; ts: number } | undefined {
    // Text nobody has data on has no difficulty either (issue 24: "asdfqwer" had KD 0).
    if (k.kind === UNKNOWN_KIND) return undefined;
    const market = this.ranking.indexMarket(locationId);
    const index = this.rankIndexes.stored(market);
    const idx = this.ranking.catalog().find(k.kw, k.languageId);
    if (index && idx !== undefined && index.covers(idx)) {
      return { seo: this.difficultyFrom(index.top(idx), k, index), ts: rankBuiltAt(index) };
    }
    return this.cachedDifficulty(k, market, compute);
  }

  /** `difficultyOf` past the rank index: the day's computed value, computed now if `compute`. */
  cachedDifficulty(k: CorpusKeyword, market: number, compute: boolean): { seo: number; ts: number } | undefined {
    const today = day(this.clock.now());
    if (today !== this.difficultyDay) {
      this.difficultyCache.clear();
      this.difficultyDay = today;
    }
    const key = `${k.kw}|${k.languageId}|${market}`;
    const cached = this.difficultyCache.get(key);
    if (cached || !compute) return cached;
    const topTen = this.ranking.organicPages(k, market, RANK_DEPTH).slice(0, 10);
    // Dated like a rank index's (its day's start): the same ranking on the index's day gives the same value and time.
    const scaleIndex = this.rankIndexes.stored(market) ?? this.rankIndexes.stored(DEFAULT_SERP_LOCATION);
    const value = { seo: this.difficultyFrom(topTen, k, scaleIndex), ts: Date.parse(`${today}T00:00:00Z`) / 1000 };
    if (this.difficultyCache.size > 100_000) this.difficultyCache.clear();
    this.difficultyCache.set(key, value);
    return value;
  }

  /**
   * Difficulty of a keyword with this first page (corpus pages, best first), read against the
   * first pages of a rank index's market (difficultyScale.ts); with no rank index, on the fixed
   * curve of the authority alone.
   */
  difficultyFrom(top: readonly number[], k: CorpusKeyword, scaleIndex: RankIndex | undefined): number {
    const pages = this.ranking.corpus().pages;
    const firstPage = top.map((p) => pages[p]);
    if (!scaleIndex) return keywordDifficulty(firstPage);
    let scale = this.scales.get(scaleIndex);
    if (!scale) {
      const strengths: number[] = [];
      const size = this.ranking.catalog().size;
      for (let i = 0; i < size; i++) if (scaleIndex.covers(i)) strengths.push(firstPageStrength(scaleIndex.top(i).map((p) => pages[p])));
      this.scales.set(scaleIndex, (scale = new DifficultyScale(strengths)));
    }
    return scale.difficulty(firstPage, { volume: k.volume, cpc: k.cpc });
  }
}
