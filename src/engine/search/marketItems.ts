/**
 * Per-market arrays of the catalogue's keyword items (issue 26): a related-keywords answer of
 * 10,000 rows built every item afresh — its stored history read from SQLite, or its derived
 * history scaled to the market, sums over the last 24 months and an md5 `_id` — 0.4–1 s per
 * lookup. Here each (location, language, month) has an array indexed by catalogue index of
 * items without their difficulty, each built once by `KeywordMetrics.item` itself (so the
 * figures are the same by construction), and each rank index an array of its keywords'
 * difficulties. A lookup copies the cached item and sets its difficulty: the copy is the
 * caller's (the difficulty book settles `seo` on it), the month histories are shared, and
 * nothing downstream writes to them.
 *
 * The arrays belong to one `KeywordMetrics` (a keyword reload makes a new one, and the arrays
 * start over) and to the month the figures are as of. Their size is bounded by the months of
 * history they hold (a sandbox keyword's history is ~140 months): past the bound, the oldest
 * market's array is dropped.
 */
import { lastCompleteMonth } from '../world/keywordHistory.js';
import type { KeywordItem, KeywordMetrics } from './keywordMetrics.js';
import type { RankIndex } from './rankIndex.js';

/** Months of history the item arrays hold at most (~70 bytes each: ~140 MB). */
const MAX_CACHED_MONTHS = 2_000_000;

interface MarketArray {
  items: (KeywordItem | undefined)[];
  months: number;
}

export class MarketItems {
  private metrics: KeywordMetrics | undefined;
  /** By `location|language|month`, oldest first (a Map keeps insertion order). */
  private readonly arrays = new Map<string, MarketArray>();
  private months = 0;
  /** Difficulty by catalogue index for each rank index (NaN: not computed yet). */
  private readonly difficulties = new WeakMap<RankIndex, Float64Array>();

  /**
   * The item of catalogue keyword `index` in (location, language) as of `nowMs`, without a
   * difficulty (`seo` and `seo_ts` null): `build` makes it the first time.
   */
  item(metrics: KeywordMetrics, index: number, locationId: number, languageId: number, nowMs: number, build: () => KeywordItem): KeywordItem {
    if (metrics !== this.metrics) {
      this.metrics = metrics;
      this.arrays.clear();
      this.months = 0;
    }
    const end = lastCompleteMonth(nowMs);
    const key = `${locationId}|${languageId}|${end.year}-${end.month}`;
    let array = this.arrays.get(key);
    if (!array) this.arrays.set(key, (array = { items: [], months: 0 }));
    let item = array.items[index];
    if (item === undefined) {
      item = build();
      array.items[index] = item;
      array.months += item.msv.length;
      this.months += item.msv.length;
      if (this.months > MAX_CACHED_MONTHS) this.dropOldest(key);
    }
    return item;
  }

  /** A rank index's difficulty of catalogue keyword `index` (which it covers): `compute` gives it the first time. */
  difficulty(rankIndex: RankIndex, index: number, catalogueSize: number, compute: () => number): number {
    let values = this.difficulties.get(rankIndex);
    if (!values || values.length < catalogueSize) {
      const grown = new Float64Array(Math.max(catalogueSize, index + 1)).fill(NaN);
      if (values) grown.set(values);
      this.difficulties.set(rankIndex, (values = grown));
    }
    let value = values[index];
    if (Number.isNaN(value)) values[index] = value = compute();
    return value;
  }

  /** Drops the oldest arrays (never the one in use) until the months held are within the bound. */
  private dropOldest(keep: string): void {
    for (const [key, array] of this.arrays) {
      if (this.months <= MAX_CACHED_MONTHS) return;
      if (key === keep) continue;
      this.arrays.delete(key);
      this.months -= array.months;
    }
    // The array in use alone is over the bound: it starts over.
    if (this.months > MAX_CACHED_MONTHS) {
      this.arrays.delete(keep);
      this.months = 0;
    }
  }
}
