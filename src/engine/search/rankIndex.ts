/**
 * The rank index of one location: for every keyword of that market, the pages at
 * positions 1–RANK_DEPTH of its organic results on the index's date, inverted by page
 * (and through pages by host and root domain). It answers "which keywords does this
 * domain rank for" without re-ranking the keyword set, and gives every keyword's top 10
 * for SERP-overlap similarity (related keywords).
 *
 * Rows live in typed arrays (compressed sparse rows by keyword and by page): a small
 * world's ~2.7M rows take ~30 MB. The index is stored in the research store as blobs
 * (searchStore.ts) because ranking a small world's ~40k market keywords takes minutes,
 * while loading the stored arrays takes a fraction of a second.
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

/** Rows of an index as parallel arrays, sorted by keyword then position. */
export interface RankRows {
  keyword: Int32Array;
  position: Uint8Array;
  page: Int32Array;
}

/**
 * Pages of each host and root domain, shared by the rank indexes of all locations. Grouped on
 * the first lookup by domain, not when an index loads: a restart loads the default market's
 * index before /healthz, and grouping a small world's 211,543 pages was ~0.1 CPU-s of it.
 */
export class PageGroups {
  private groups: { byRoot: Map<number, number[]>; byHost: Map<string, number[]> } | undefined;

  constructor(private readonly corpus: SearchCorpus) {}

  get byRoot(): Map<number, number[]> {
    return this.grouped().byRoot;
  }

  get byHost(): Map<string, number[]> {
    return this.grouped().byHost;
  }

  private grouped(): { byRoot: Map<number, number[]>; byHost: Map<string, number[]> } {
    if (this.groups) return this.groups;
    const groups = { byRoot: new Map<number, number[]>(), byHost: new Map<string, number[]>() };
    this.corpus.pages.forEach((p, i) => {
      push(groups.byRoot, p.rootId, i);
      push(groups.byHost, p.host.replace(/^www\./, ''), i);
    });
    return (this.groups = groups);
  }
}

/**
 * Collects the rows of a build keyword by keyword, in the order of RankRows (keywords
 * ascending, each keyword's pages best first), in growing typed arrays: a small world's
 * 2.7M rows as objects took seconds of garbage collection and sorting.
 */
export class RankRowsBuilder {
  private rows: RankRows = { keyword: new Int32Array(1 << 16), position: new Uint8Array(1 << 16), page: new Int32Array(1 << 16) };
  private length = 0;

  /** Appends a keyword's ranking (pages best first); keywords must come in ascending order. */
  add(keyword: number, pages: readonly number[]): void {
    if (this.length + pages.length > this.rows.keyword.length) this.grow(this.length + pages.length);
    for (let p = 0; p < pages.length; p++) {
      this.rows.keyword[this.length] = keyword;
      this.rows.position[this.length] = p + 1;
      this.rows.page[this.length++] = pages[p];
    }
  }

  finish(): RankRows {
    return {
      keyword: this.rows.keyword.slice(0, this.length),
      position: this.rows.position.slice(0, this.length),
      page: this.rows.page.slice(0, this.length),
    };
  }

  private grow(needed: number): void {
    const size = Math.max(needed, this.rows.keyword.length * 2);
    const keyword = new Int32Array(size);
    const position = new Uint8Array(size);
    const page = new Int32Array(size);
    keyword.set(this.rows.keyword);
    position.set(this.rows.position);
    page.set(this.rows.page);
    this.rows = { keyword, position, page };
  }
}

export class RankIndex {
  private readonly rowsByKeyword: RankRows;
  /** CSR over catalogue indexes: rows of keyword k are [keywordStart[k], keywordStart[k + 1]). */
  private readonly keywordStart: Int32Array;
  /** CSR over corpus pages: rows of page p are pageRows[pageStart[p] .. pageStart[p + 1]). */
  private readonly pageStart: Int32Array;
  private readonly pageRows: Int32Array;

  constructor(
    readonly locationId: number,
    readonly date: string,
    private readonly groups: PageGroups,
    keywordCount: number,
    pageCount: number,
    rows: RankRows,
  ) {
    this.rowsByKeyword = rows;
    const n = rows.keyword.length;
    this.keywordStart = new Int32Array(keywordCount + 1);
    this.pageStart = new Int32Array(pageCount + 1);
    for (let i = 0; i < n; i++) {
      this.keywordStart[rows.keyword[i] + 1]++;
      this.pageStart[rows.page[i] + 1]++;
    }
    for (let k = 0; k < keywordCount; k++) this.keywordStart[k + 1] += this.keywordStart[k];
    for (let p = 0; p < pageCount; p++) this.pageStart[p + 1] += this.pageStart[p];
    this.pageRows = new Int32Array(n);
    const cursor = this.pageStart.slice(0, pageCount);
    for (let i = 0; i < n; i++) this.pageRows[cursor[rows.page[i]]++] = i;
  }

  get rows(): number {
    return this.rowsByKeyword.keyword.length;
  }

  /** The rows (keyword, position, page), sorted by keyword then position. */
  allRows(): RankRows {
    return this.rowsByKeyword;
  }

  entry(row: number): RankEntry {
    const r = this.rowsByKeyword;
    return { keyword: r.keyword[row], position: r.position[row], page: r.page[row] };
  }

  /** Whether the keyword was ranked for this index. */
  covers(keyword: number): boolean {
    return this.keywordStart[keyword + 1] > this.keywordStart[keyword];
  }

  /** Corpus pages of a keyword's top `n` positions, best first. */
  top(keyword: number, n = 10): number[] {
    const out: number[] = [];
    const r = this.rowsByKeyword;
    for (let i = this.keywordStart[keyword]; i < this.keywordStart[keyword + 1] && r.position[i] <= n; i++) out.push(r.page[i]);
    return out;
  }

  rowsOfPage(page: number): number[] {
    return Array.from(this.pageRows.subarray(this.pageStart[page], this.pageStart[page + 1]));
  }

  rowsOfPages(pages: readonly number[]): number[] {
    const out: number[] = [];
    for (const p of pages) for (let i = this.pageStart[p]; i < this.pageStart[p + 1]; i++) out.push(this.pageRows[i]);
    return out;
  }

  /** Rows of a root domain or a host (without `www.`). */
  rowsOfRoot(rootId: number): number[] {
    return this.rowsOfPages(this.groups.byRoot.get(rootId) ?? []);
  }

  rowsOfHost(host: string): number[] {
    return this.rowsOfPages(this.groups.byHost.get(host.replace(/^www\./, '')) ?? []);
  }

  /**
   * Best position per keyword among rows: keyword → its best row. A domain ranking twice
   * for a keyword (host crowding allows two) counts once, at its better position.
   */
  bestPerKeyword(rows: readonly number[]): Map<number, number> {
    const r = this.rowsByKeyword;
    const best = new Map<number, number>();
    for (const row of rows) {
      const k = r.keyword[row];
      const current = best.get(k);
      if (current === undefined || r.position[row] < r.position[current]) best.set(k, row);
    }
    return best;
  }
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
