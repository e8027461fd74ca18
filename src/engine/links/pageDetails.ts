/**
 * What a backlink shows of its source and target pages (URL, title, language, flows,
 * outgoing link counts), read for many links at once. A backlink list asks for the
 * pages of a batch of links; the pages not in memory yet are read in one query, the rest
 * cost an array lookup instead of two page reads and two metrics reads. A giant target's
 * links come from far fewer pages (on the `small` world, 1.1 million backlinks of the
 * biggest domain come from 171,000 source pages and 12,000 target pages).
 *
 * Looking a page up costs several microseconds (its row is scattered in a large table);
 * reading every page in one pass in id order costs about a third of that per page. So a
 * list longer than the index has pages (it will touch most of them) reads them all
 * first (`preloadFor`).
 *
 * The reader holds at most `MAX_CACHED_PAGES` pages and starts over when full, so its
 * memory does not grow with the length of a list.
 *
 * @example
 * const pages = new PageDetailsReader(raw);
 * pages.load([sourcePageId, targetPageId]);
 * pages.get(sourcePageId)?.url; // 'https://blog.example/post'
 */
import type SqliteDatabase from 'better-sqlite3';
import { LANGUAGES } from '../../locations/languages.js';

export interface PageDetails {
  url: string;
  title: string;
  /** Language code of the page, or null when the index has none for its language. */
  lang: string | null;
  citationFlow: number;
  trustFlow: number;
  outInternal: number;
  outExternal: number;
}

/** About 50 MB of page details at most (URL and title strings, one object each). */
export const MAX_CACHED_PAGES = 250_000;

const LANGUAGE_CODES = new Map(LANGUAGES.map((l) => [l._id, l.code]));

const PAGES_SQL = `
  SELECT p.id, p.url, p.title, p.language_id, m.citation_flow, m.trust_flow, m.out_internal, m.out_external
  FROM pages p JOIN entity_metrics m ON m.level = 0 AND m.entity_id = p.id`;
/** Ids arrive as one JSON array parameter, so one statement serves every batch. */
const PAGES_BY_ID_SQL = `${PAGES_SQL} WHERE p.id IN (SELECT value FROM json_each(?))`;

export type PageRow = [id: number, url: string, title: string, languageId: number, cf: number, tf: number, outInternal: number, outExternal: number];

/** The language code of a language id, as backlinks show it (null when unknown). */
export function languageCode(languageId: number): string | null {
  return LANGUAGE_CODES.get(languageId) ?? null;
}

/**
 * What the page readers share: which pages are in memory, reading the missing ones of a
 * batch in one query, reading them all at once for a long list, and starting over when
 * full. A subclass keeps each page's fields as it needs them (`add`, `clear`).
 */
export abstract class PageReader {
  protected readonly raw: SqliteDatabase.Database;
  protected readonly maxPages: number;
  private readonly byIds: SqliteDatabase.Statement;
  private cachedCount = 0;
  private all = false;
  private readonly missing = new Set<number>();

  /** `maxPages`: how many pages it holds at most (tests make it small). */
  constructor(raw: SqliteDatabase.Database, maxPages = MAX_CACHED_PAGES) {
    this.raw = raw;
    this.maxPages = maxPages;
    this.byIds = raw.prepare(PAGES_BY_ID_SQL).raw();
  }

  /** True when every page is in memory (`preloadFor`): `load` has nothing to read. */
  get complete(): boolean {
    return this.all;
  }

  /** Pages in memory. */
  get size(): number {
    return this.cachedCount;
  }

  /** True when the page's fields are in memory. */
  protected abstract has(id: number): boolean;
  /** Keeps one page's fields. */
  protected abstract add(row: PageRow): void;
  /** Forgets every page. */
  protected abstract clear(): void;

  /**
   * Reads every page at once when a list of `expectedLinks` links will likely touch most
   * of them (more links than pages) and they all fit in memory; otherwise pages are read
   * as `load` asks for them.
   */
  preloadFor(expectedLinks: number): void {
    // Page ids are dense, so the largest is about the number of pages (and costs no scan).
    const pages = (this.raw.prepare('SELECT max(id) FROM pages').pluck().get() as number | null) ?? 0;
    if (expectedLinks < pages || pages > this.maxPages) return;
    this.reset();
    // In no particular order: sorting the pages by id would cost a temporary B-tree of all
    // of them (the planner walks the metrics first), a third of the read.
    for (const row of this.raw.prepare(PAGES_SQL).raw().iterate() as IterableIterator<PageRow>) this.keep(row);
    this.all = true;
  }

  /**
   * Reads the pages of `ids` that are not in memory yet. Afterwards every one of them
   * that exists and has metrics is in memory (as an inner join would answer).
   */
  load(ids: readonly number[]): void {
    if (this.all) return;
    const { missing } = this;
    missing.clear();
    for (const id of ids) if (!this.has(id)) missing.add(id);
    if (missing.size === 0) return;
    if (this.cachedCount + missing.size > this.maxPages) {
      // Start over, keeping nothing: every page of this batch is read again.
      this.reset();
      for (const id of ids) missing.add(id);
    }
    for (const row of this.byIds.iterate(JSON.stringify([...missing])) as IterableIterator<PageRow>) this.keep(row);
  }

  private keep(row: PageRow): void {
    this.add(row);
    this.cachedCount++;
  }

  private reset(): void {
    this.clear();
    this.cachedCount = 0;
  }
}

/** Pages as `PageDetails` objects (backlink lists). */
export class PageDetailsReader extends PageReader {
  /** Page details by page id (an array: ids are small dense integers). */
  private byId: (PageDetails | undefined)[] = [];

  get(id: number): PageDetails | undefined {
    return this.byId[id];
  }

  protected has(id: number): boolean {
    return this.byId[id] !== undefined;
  }

  protected add([id, url, title, languageId, citationFlow, trustFlow, outInternal, outExternal]: PageRow): void {
    this.byId[id] = { url, title, lang: languageCode(languageId), citationFlow, trustFlow, outInternal, outExternal };
  }

  protected clear(): void {
    this.byId = [];
  }
}
