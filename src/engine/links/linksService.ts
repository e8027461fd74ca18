/**
 * The `links` engine service: backlinks of a target with filters, paging, exact totals
 * and streaming; a backlink by id; the link-tool URL metrics (`linkindex.v`); backlink
 * profile data; top content; export suggestions.
 *
 * Queries are plain, portable SQL over the research store, driven by the
 * `links_target_*` indexes (target, internal, score DESC, id): a page of the strongest
 * backlinks is an index range scan, whatever the size of the target. What a backlink
 * shows of its pages is read per batch of links (PageDetailsReader), not joined per row.
 *
 * Example:
 * ```ts
 * const page = engine.links.backlinks('openpedia.org', { source: 0, linksPerDomain: 0 }, { offset: 0, limit: 500 });
 * const target = engine.links.resolve('openpedia.org')!;
 * for (const row of engine.links.streamBacklinkRows(target, { noFollow: false })) out.write(csvRecord(row));
 * await writeCsvExport({ dir, fileName, attemptTag, columns: BACKLINK_FIELDS, rows: engine.links.backlinkCsv(target, { noFollow: false }) }); // same bytes
 * ```
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../../lib/clock.js';
import type { Level } from '../researchSchema.js';
import { TargetResolver, parseHexId, type ResolvedTarget, type TargetType } from './targets.js';
import { PageDetailsReader } from './pageDetails.js';
import type { CsvRecordSource } from '../../lib/csv.js';
import { BACKLINK_CSV_COLUMNS, BACKLINK_CSV_RECORD, BacklinkCsvSource, PageCsvReader, type CsvLinkRow } from './backlinkCsv.js';
import type {
  BacklinkFilter,
  BacklinkItem,
  BacklinkPage,
  BacklinkProfile,
  BacklinkRow,
  ExportSuggestion,
  LinkIndexMetrics,
  TopContentItem,
} from './backlinkTypes.js';
import { linkIndexOf, type MetricsRow } from './linkIndex.js';
import { LINK_ROW_COLUMNS, backlinkRows, itemOfRow, type LinkRow } from './backlinkRows.js';
import { backlinkQuery, hasExtraFilters, matchingSql } from './backlinkQuery.js';
import { backlinkProfileOf, topContentOf } from './backlinkProfile.js';

/** Links read, and their pages looked up, at a time while streaming. */
const STREAM_BATCH = 1024;

export class LinksService {
  private readonly resolver: TargetResolver;
  private readonly metricsStatement: SqliteDatabase.Statement;

  constructor(
    private readonly raw: SqliteDatabase.Database,
    private readonly clock: Clock,
  ) {
    this.resolver = new TargetResolver(raw);
    this.metricsStatement = raw.prepare('SELECT * FROM entity_metrics WHERE level = ? AND entity_id = ?');
  }

  /** Resolves a URL, host or domain (type auto-detected unless given); null when not a URL/domain. */
  resolve(url: string, type?: TargetType): ResolvedTarget | null {
    return this.resolver.resolve(url, type);
  }

  /** Stored metrics row of an entity, or null. */
  metricsOf(level: Level, entityId: number | null): MetricsRow | null {
    if (entityId === null) return null;
    return (this.metricsStatement.get(level, entityId) as MetricsRow | undefined) ?? null;
  }

  /** The spec's `linkindex.v` for a URL, subdomain or root domain, and its social share count. */
  urlMetrics(url: string, type?: TargetType): { target: ResolvedTarget; v: LinkIndexMetrics; social: number | null } | null {
    const target = this.resolve(url, type);
    if (!target) return null;
    const metrics = this.metricsOf(target.level, target.entityId);
    // Social shares of the target's pages; null when the index does not know the target.
    return { target, v: linkIndexOf(metrics, target.type), social: metrics ? (metrics.social ?? null) : null };
  }

  /** Full items of the given link ids, in the same (strongest first) order. */
  private itemsOf(ids: number[]): BacklinkItem[] {
    if (ids.length === 0) return [];
    const links = this.raw
      .prepare(`SELECT ${LINK_ROW_COLUMNS} FROM links l WHERE l.id IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(ids)) as LinkRow[];
    const byId = new Map(links.map((link) => [link[0], link]));
    const ordered = ids.map((id) => byId.get(id)).filter((link): link is LinkRow => link !== undefined);
    return backlinkRows(ordered, new PageDetailsReader(this.raw)).map(itemOfRow);
  }

  /** Exact number of backlinks matching a filter. */
  countBacklinks(target: ResolvedTarget, filter: BacklinkFilter = {}, at = this.clock.now()): number {
    if (target.entityId === null) return 0;
    if (!hasExtraFilters(filter) && (filter.source ?? 0) === 0) {
      const m = this.metricsOf(target.level, target.entityId);
      if (!m) return 0;
      return filter.linksPerDomain === 1 ? m.ref_domains_all : m.total_non_unique;
    }
    const q = backlinkQuery(target, filter, at);
    const sql = `SELECT ${q.window ? 'COUNT(DISTINCT l.source_root_id)' : 'COUNT(*)'} FROM links l ${q.joins} WHERE ${q.where}`;
    return this.raw
      .prepare(sql)
      .pluck()
      .get(...q.params) as number;
  }

  /**
   * One page of backlinks, strongest first, with the exact total of matching links.
   * Returns null when `url` is not a URL or domain.
   */
  backlinks(
    url: string,
    filter: BacklinkFilter = {},
    page: { offset: number; limit: number } = { offset: 0, limit: 500 },
    type?: TargetType,
    at = this.clock.now(),
  ): BacklinkPage | null {
    const target = this.resolve(url, type);
    if (!target) return null;
    return this.backlinksOf(target, filter, page, at);
  }

  backlinksOf(target: ResolvedTarget, filter: BacklinkFilter, page: { offset: number; limit: number }, at = this.clock.now()): BacklinkPage {
    const meta = { url_type: target.type, available_links: this.countBacklinks(target, filter, at) };
    if (target.entityId === null || page.limit <= 0) return { meta, links: [] };
    const { sql, params } = matchingSql(target, filter, at, 'l.id');
    const ids = this.raw
      .prepare(`${sql} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, page.limit, page.offset) as number[];
    return { meta, links: this.itemsOf(ids) };
  }

  /**
   * The one scan behind `streamBacklinkRows` and `backlinkCsv`: `columns` of the matching
   * links, strongest first, at most `limit`, as raw rows or as their single value
   * (`pluck`), with `pages` first sized for the rows to come. Null when there is nothing
   * to scan.
   */
  private scanMatching(
    target: ResolvedTarget,
    filter: BacklinkFilter,
    limit: number,
    at: number,
    columns: string,
    pages: { preloadFor(expectedLinks: number): void },
    rows: 'raw' | 'pluck',
  ): IterableIterator<unknown> | null {
    if (target.entityId === null || limit <= 0) return null;
    // The list's length without its other filters bounds it from above and costs no scan
    // (new and lost links have their own indexes).
    pages.preloadFor(Math.min(limit, this.countBacklinks(target, { source: filter.source }, at)));
    const { sql, params } = matchingSql(target, filter, at, columns);
    const statement = this.raw.prepare(`${sql} LIMIT ?`);
    return (rows === 'raw' ? statement.raw() : statement.pluck()).iterate(...params, limit);
  }

  /**
   * Every matching backlink, strongest first, as `BACKLINK_FIELDS` arrays. One scan of
   * the matching links in list order; the pages of each batch of links are read together
   * and remembered (PageDetailsReader), so a row costs little more than reading its link,
   * and memory stays flat whatever the number of rows.
   */
  *streamBacklinkRows(target: ResolvedTarget, filter: BacklinkFilter = {}, limit = Number.MAX_SAFE_INTEGER, at = this.clock.now()): Generator<BacklinkRow> {
    const pages = new PageDetailsReader(this.raw);
    const links = this.scanMatching(target, filter, limit, at, LINK_ROW_COLUMNS, pages, 'raw') as IterableIterator<LinkRow> | null;
    if (links === null) return;
    const batch: LinkRow[] = [];
    try {
      for (let next = links.next(); !next.done;) {
        batch.length = 0;
        for (; !next.done && batch.length < STREAM_BATCH; next = links.next()) batch.push(next.value);
        yield* backlinkRows(batch, pages);
      }
    } finally {
      // Ends the scan when the consumer stops early.
      links.return?.();
    }
  }

  /**
   * What a CSV export writes: every matching backlink, strongest first, as its CSV record
   * (`csvRecord` of its `streamBacklinkRows` row, the same bytes) written straight into
   * the export's buffers (backlinkCsv.ts). Close it if it is not read to the end.
   */
  backlinkCsv(target: ResolvedTarget, filter: BacklinkFilter = {}, limit = Number.MAX_SAFE_INTEGER, at = this.clock.now()): CsvRecordSource {
    const pages = new PageCsvReader(this.raw);
    const byId = this.raw.prepare(`SELECT ${BACKLINK_CSV_COLUMNS} FROM links l WHERE l.id = ?`).raw();
    const linkById = (id: number) => byId.get(id) as CsvLinkRow | undefined;
    const links = this.scanMatching(target, filter, limit, at, BACKLINK_CSV_RECORD, pages, 'pluck') as IterableIterator<string> | null;
    return new BacklinkCsvSource(pages, links ?? [][Symbol.iterator](), linkById);
  }

  /** Every matching backlink, strongest first, as objects (see `streamBacklinkRows`). */
  *streamBacklinks(target: ResolvedTarget, filter: BacklinkFilter = {}, limit = Number.MAX_SAFE_INTEGER, at = this.clock.now()): Generator<BacklinkItem> {
    for (const row of this.streamBacklinkRows(target, filter, limit, at)) yield itemOfRow(row);
  }

  /** Full data of one backlink by its `_id`, or null for an unknown id. */
  backlinkById(id: string): (BacklinkItem & { targetRootDomain: string }) | null {
    const numeric = parseHexId(id);
    if (numeric === null) return null;
    const link = this.raw
      .prepare(`SELECT ${LINK_ROW_COLUMNS}, (SELECT domain FROM root_domains WHERE id = l.target_root_id) FROM links l WHERE l.id = ?`)
      .raw()
      .get(numeric) as [...LinkRow, targetRoot: string] | undefined;
    if (!link) return null;
    const [row] = backlinkRows([link.slice(0, -1) as LinkRow], new PageDetailsReader(this.raw));
    return row ? { ...itemOfRow(row), targetRootDomain: link[link.length - 1] as string } : null;
  }

  /** Root domain, subdomain, exact URL and protocol variants of a URL with their backlink counts. */
  exportSuggestions(url: string): { suggestedType: TargetType; suggestions: ExportSuggestion[] } | null {
    const parsed = this.resolve(url);
    if (!parsed) return null;
    const candidates: { url: string; type: TargetType }[] = [{ url: parsed.parsed.rootDomain, type: 'RootDomain' }];
    if (parsed.parsed.host !== parsed.parsed.rootDomain) candidates.push({ url: parsed.parsed.host, type: 'SubDomain' });
    if (parsed.type === 'URL') {
      const https = parsed.parsed.url.replace(/^http:/, 'https:');
      const http = https.replace(/^https:/, 'http:');
      candidates.push({ url: parsed.parsed.url, type: 'URL' });
      candidates.push({ url: parsed.parsed.url === https ? http : https, type: 'URL' });
    }
    const suggestions = candidates.map((c) => {
      const t = this.resolve(c.url, c.type)!;
      const m = this.metricsOf(t.level, t.entityId);
      return { url: c.url, type: c.type, refDomains: m?.ref_domains_all ?? 0, backLinks: m?.total_non_unique ?? 0 };
    });
    return { suggestedType: parsed.type, suggestions };
  }

  /** Backlink profile of a URL, host or domain (see `backlinkProfileOf`); null when not a URL or domain. */
  backlinkProfile(url: string, options: { days?: number; top?: number } = {}, at = this.clock.now()): BacklinkProfile | null {
    const target = this.resolve(url);
    if (!target) return null;
    return backlinkProfileOf(this.raw, target, linkIndexOf(this.metricsOf(target.level, target.entityId), target.type), options, at);
  }

  /** The strongest pages of a domain or host (by CitationFlow), for the site tool's top content. */
  topContent(url: string, limit = 50): { urlId: string; topContent: TopContentItem[] } | null {
    const target = this.resolve(url);
    if (!target) return null;
    return topContentOf(this.raw, target, limit);
  }
}
