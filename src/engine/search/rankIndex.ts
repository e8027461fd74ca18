/**
 * The rank index of one location: for every keyword of that market, the pages at
 * positions 1–RANK_DEPTH of its organic results on the index's date, inverted by root
 * domain, host and page. It answers "which keywords does this domain rank for" without
 * re-ranking the keyword set, and gives every keyword's top 10 for SERP-overlap
 * similarity (related keywords).
 *
 * Stored in the research store (search_rank_positions) because ranking a small world's
 * ~30k market keywords takes tens of seconds, too long for every start; loading the
 * stored rows takes well under a second.
 */
import type { SearchCorpus } from './searchCorpus.js';

/** Positions kept per keyword. */
export const RANK_DEPTH = 50;

export interface RankEntry {
  /** Catalogue index of the keyword. */
  keyword: number;
  position: number;
  /** Corpus page index. */
  page: number;
}

export class RankIndex {
  /** Rows sorted by keyword then position. */
  private readonly keywordOf: Int32Array;
  private readonly positionOf: Uint8Array;
  private readonly pageOf: Int32Array;
  /** CSR over catalogue indexes: rows of keyword k are [keywordStart[k], keywordStart[k + 1]). */
  private readonly keywordStart: Int32Array;
  private readonly byRoot = new Map<number, number[]>();
  private readonly byHost = new Map<string, number[]>();
  private readonly byPage = new Map<number, number[]>();

  constructor(
    readonly locationId: number,
    readonly date: string,
    corpus: SearchCorpus,
    keywordCount: number,
    entries: readonly RankEntry[],
  ) {
    const sorted = [...entries].sort((a, b) => a.keyword - b.keyword || a.position - b.position);
    const n = sorted.length;
    this.keywordOf = new Int32Array(n);
    this.positionOf = new Uint8Array(n);
    this.pageOf = new Int32Array(n);
    this.keywordStart = new Int32Array(keywordCount + 1);
    for (let i = 0; i < n; i++) {
      const e = sorted[i];
      this.keywordOf[i] = e.keyword;
      this.positionOf[i] = e.position;
      this.pageOf[i] = e.page;
      this.keywordStart[e.keyword + 1]++;
      const p = corpus.pages[e.page];
      push(this.byRoot, p.rootId, i);
      push(this.byHost, p.host, i);
      push(this.byPage, e.page, i);
    }
    for (let k = 0; k < keywordCount; k++) this.keywordStart[k + 1] += this.keywordStart[k];
  }

  get rows(): number {
    return this.keywordOf.length;
  }

  entry(row: number): RankEntry {
    return { keyword: this.keywordOf[row], position: this.positionOf[row], page: this.pageOf[row] };
  }

  /** Whether the keyword was ranked for this index. */
  covers(keyword: number): boolean {
    return this.keywordStart[keyword + 1] > this.keywordStart[keyword];
  }

  /** Corpus pages of a keyword's top `n` positions, best first. */
  top(keyword: number, n = 10): number[] {
    const out: number[] = [];
    for (let r = this.keywordStart[keyword]; r < this.keywordStart[keyword + 1] && this.positionOf[r] <= n; r++) out.push(this.pageOf[r]);
    return out;
  }

  /** Rows of a root domain, a host or a page. */
  rowsOfRoot(rootId: number): readonly number[] {
    return this.byRoot.get(rootId) ?? [];
  }

  rowsOfHost(host: string): readonly number[] {
    return this.byHost.get(host) ?? [];
  }

  rowsOfPage(page: number): readonly number[] {
    return this.byPage.get(page) ?? [];
  }

  /**
   * Best position per keyword among rows: keyword → its best row. A domain ranking twice
   * for a keyword (host crowding allows two) counts once, at its better position.
   */
  bestPerKeyword(rows: readonly number[]): Map<number, number> {
    const best = new Map<number, number>();
    for (const r of rows) {
      const k = this.keywordOf[r];
      const current = best.get(k);
      if (current === undefined || this.positionOf[r] < this.positionOf[current]) best.set(k, r);
    }
    return best;
  }
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
