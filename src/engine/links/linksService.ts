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
import type { EntityMetricsTable, Level } from '../researchSchema.js';
import { TargetResolver, hexId, parseHexId, type ResolvedTarget, type TargetType } from './targets.js';
import { isoDay, dayNumber } from '../world/dates.js';
import { PageDetailsReader, type PageDetails } from './pageDetails.js';
import type { CsvRecordSource } from '../../lib/csv.js';
import { BACKLINK_CSV_COLUMNS, BACKLINK_CSV_RECORD, BacklinkCsvSource, PageCsvReader, type CsvLinkRow } from './backlinkCsv.js';

/** Filters of backlink lists and exports (the spec's export filter object plus list options). */
export interface BacklinkFilter {
  /** 0 all, 1 new (first seen in the last 30 days), 2 lost (deleted, last seen in the last 90 days). */
  source?: 0 | 1 | 2;
  /** 1 = only the strongest link of each referring root domain. */
  linksPerDomain?: 0 | 1;
  targetAnchorText?: string;
  targetHrefText?: string;
  linkType?: string;
  noFollow?: boolean;
  liveLinks?: boolean;
  minCitationFlow?: number;
  maxCitationFlow?: number;
  minTrustFlow?: number;
  maxTrustFlow?: number;
  minTopRank?: number;
  maxTopRank?: number;
  minLinkStrength?: number;
  maxLinkStrength?: number;
  flagTextLink?: boolean;
  flagImageLink?: boolean;
  flagFrameLink?: boolean;
  flagRedirectLink?: boolean;
  flagMentionLink?: boolean;
}

/** A backlink as the API shows it (DESIGN.md §5, "Backlinks"). */
export interface BacklinkItem {
  _id: string;
  domainId: string;
  source: string;
  target: string;
  title: string;
  type: 'text' | 'image' | 'redirect' | 'frame' | 'mention';
  anchor: string;
  alt: string;
  first_seen: string;
  last_seen: string;
  last_crawl: string;
  deleted: boolean;
  reason_lost: string | null;
  source_cf: number;
  source_tf: number;
  target_cf: number;
  target_tf: number;
  no_follow: boolean;
  image: boolean;
  redirect: boolean;
  frame: boolean;
  lang: string | null;
  internal_links: number;
  external_links: number;
  ls: number;
}

/** The fields of a backlink in the order lists and export columns show them. */
export const BACKLINK_FIELDS = [
  '_id',
  'domainId',
  'source',
  'target',
  'title',
  'type',
  'anchor',
  'alt',
  'first_seen',
  'last_seen',
  'last_crawl',
  'deleted',
  'reason_lost',
  'source_cf',
  'source_tf',
  'target_cf',
  'target_tf',
  'no_follow',
  'image',
  'redirect',
  'frame',
  'lang',
  'internal_links',
  'external_links',
  'ls',
] as const satisfies readonly (keyof BacklinkItem)[];

/** A backlink as an array of its `BACKLINK_FIELDS` values (what CSV exports stream). */
export type BacklinkRow = BacklinkValues<typeof BACKLINK_FIELDS>;
type BacklinkValues<Fields extends readonly (keyof BacklinkItem)[]> = { -readonly [I in keyof Fields]: BacklinkItem[Fields[I]] };

export interface BacklinkPage {
  meta: { url_type: TargetType; available_links: number };
  links: BacklinkItem[];
}

/** The spec's link-tool URL metrics `v` object. */
export interface LinkIndexMetrics {
  Status: string;
  ExtBackLinks: number;
  RefDomains: number;
  ACRank: number;
  RefIPs: number;
  ItemType: number;
  RefSubNets: number;
  CitationFlow: number;
  TrustFlow: number;
  TrustMetric: number;
  IndexedURLs: number;
  RefDomainsEDU: number;
  ExtBackLinksEDU: number;
  RefDomainsGOV: number;
  ExtBackLinksGOV: number;
  RefDomainsEDU_Exact: number;
  ExtBackLinksEDU_Exact: number;
  RefDomainsGOV_Exact: number;
  ExtBackLinksGOV_Exact: number;
  NonUniqueLinkTypeHomepages: string;
  NonUniqueLinkTypeIndirect: string;
  NonUniqueLinkTypeDeleted: string;
  NonUniqueLinkTypeNoFollow: string;
  NonUniqueLinkTypeProtocolHTTPS: string;
  NonUniqueLinkTypeFrame: string;
  NonUniqueLinkTypeImageLink: string;
  NonUniqueLinkTypeRedirect: string;
  NonUniqueLinkTypeTextLink: string;
  TotalNonUniqueLinks: string;
  OutLinksInternal: string;
  OutLinksExternal: string;
  OutDomainsExternal: string;
}

export interface ExportSuggestion {
  url: string;
  type: TargetType;
  refDomains: number;
  backLinks: number;
}

export interface BacklinkProfile {
  urlId: string;
  linkindex: LinkIndexMetrics;
  backLinkCalendar: { Date: string; NewLinks: number; LostLinks: number }[];
  refDomains: { domain: string; topRank: number; matchedLinks: number; citationFlow: number; trustFlow: number }[];
  anchors: { anchorText: string; refDomains: number; totalLinks: number; noFollowLinks: number; deletedLinks: number; class: string; citationFlow: number }[];
}

export interface TopContentItem {
  url: string;
  citationFlow: number;
  trustFlow: number;
  refDomains: number;
  extBackLinks: number;
  /** Social shares of the page. */
  social: number;
  title: string;
  description: string;
}

/** Majestic-style ItemType codes: 1 root domain, 2 subdomain, 3 URL. */
const ITEM_TYPE: Record<TargetType, number> = { RootDomain: 1, SubDomain: 2, URL: 3 };
const TARGET_COLUMN: Record<TargetType, string> = { RootDomain: 'target_root_id', SubDomain: 'target_host_id', URL: 'target_page_id' };
const BEST_COLUMN: Record<TargetType, string> = { RootDomain: 'best_root', SubDomain: 'best_host', URL: 'best_url' };
/** Links aggregated for a backlink profile's referring domains and anchors. */
const PROFILE_SAMPLE = 50_000;

/**
 * A link's own columns as backlink lists read them (raw, in `LinkRow` order); what they
 * show of the source and target pages comes from `PageDetailsReader`.
 */
const LINK_ROW_COLUMNS =
  'l.id, l.source_root_id, l.source_page_id, l.target_page_id, l.type, l.anchor, l.alt, l.first_seen, l.last_seen, l.deleted, l.reason_lost, l.nofollow, l.strength';

type LinkRow = [
  id: number,
  sourceRootId: number,
  sourcePageId: number,
  targetPageId: number,
  type: BacklinkItem['type'],
  anchor: string,
  alt: string,
  firstSeen: string,
  lastSeen: string,
  deleted: number,
  reasonLost: string,
  nofollow: number,
  strength: number,
];
const SOURCE_PAGE = 2;
const TARGET_PAGE = 3;

/** Links read, and their pages looked up, at a time while streaming. */
const STREAM_BATCH = 1024;

/** The backlink of a link and its pages, as a `BACKLINK_FIELDS` array. */
function backlinkRow(link: LinkRow, source: PageDetails, target: PageDetails): BacklinkRow {
  const [id, sourceRootId, , , type, anchor, alt, firstSeen, lastSeen, deleted, reasonLost, nofollow, strength] = link;
  const lost = deleted === 1;
  return [
    hexId(id),
    hexId(sourceRootId),
    source.url,
    target.url,
    source.title,
    type,
    anchor,
    alt,
    firstSeen,
    lastSeen,
    lastSeen,
    lost,
    lost ? reasonLost : null,
    source.citationFlow,
    source.trustFlow,
    target.citationFlow,
    target.trustFlow,
    nofollow === 1,
    type === 'image',
    type === 'redirect',
    type === 'frame',
    source.lang,
    source.outInternal,
    source.outExternal,
    strength,
  ];
}

/** A `BacklinkRow` as the API's object. */
function itemOfRow(row: BacklinkRow): BacklinkItem {
  const item: Record<string, unknown> = {};
  for (let i = 0; i < BACKLINK_FIELDS.length; i++) item[BACKLINK_FIELDS[i]] = row[i];
  return item as unknown as BacklinkItem;
}

/**
 * The backlinks of `links` (raw `LinkRow`s), in the same order, as `BACKLINK_FIELDS`
 * arrays. A link whose source or target page, or its metrics, is missing from the index
 * has no backlink to show and is left out.
 */
function backlinkRows(links: readonly LinkRow[], pages: PageDetailsReader): BacklinkRow[] {
  const pageIds: number[] = [];
  for (const link of links) pageIds.push(link[SOURCE_PAGE], link[TARGET_PAGE]);
  pages.load(pageIds);
  const rows: BacklinkRow[] = [];
  for (const link of links) {
    const source = pages.get(link[SOURCE_PAGE]);
    const target = pages.get(link[TARGET_PAGE]);
    if (source !== undefined && target !== undefined) rows.push(backlinkRow(link, source, target));
  }
  return rows;
}

/** A stored `entity_metrics` row (counters read by name). */
type MetricsRow = EntityMetricsTable & Record<string, number>;

/** All zeros (Status NotFound) for targets the index does not know. */
export function emptyLinkIndex(type: TargetType): LinkIndexMetrics {
  return linkIndexOf(null, type);
}

function linkIndexOf(m: MetricsRow | null, type: TargetType): LinkIndexMetrics {
  const n = (key: string): number => (m ? m[key] : 0);
  const s = (key: string): string => String(n(key));
  return {
    Status: m ? 'Found' : 'NotFound',
    ExtBackLinks: n('ext_backlinks'),
    RefDomains: n('ref_domains'),
    ACRank: n('ac_rank'),
    RefIPs: n('ref_ips'),
    ItemType: ITEM_TYPE[type],
    RefSubNets: n('ref_subnets'),
    CitationFlow: n('citation_flow'),
    TrustFlow: n('trust_flow'),
    // TrustMetric is the historical name of the same trust score; we report TrustFlow.
    TrustMetric: n('trust_flow'),
    IndexedURLs: n('indexed_urls'),
    RefDomainsEDU: n('ref_domains_edu'),
    ExtBackLinksEDU: n('ext_backlinks_edu'),
    RefDomainsGOV: n('ref_domains_gov'),
    ExtBackLinksGOV: n('ext_backlinks_gov'),
    RefDomainsEDU_Exact: n('ref_domains_edu_exact'),
    ExtBackLinksEDU_Exact: n('ext_backlinks_edu_exact'),
    RefDomainsGOV_Exact: n('ref_domains_gov_exact'),
    ExtBackLinksGOV_Exact: n('ext_backlinks_gov_exact'),
    NonUniqueLinkTypeHomepages: s('nu_homepages'),
    NonUniqueLinkTypeIndirect: s('nu_indirect'),
    NonUniqueLinkTypeDeleted: s('nu_deleted'),
    NonUniqueLinkTypeNoFollow: s('nu_nofollow'),
    NonUniqueLinkTypeProtocolHTTPS: s('nu_https'),
    NonUniqueLinkTypeFrame: s('nu_frame'),
    NonUniqueLinkTypeImageLink: s('nu_image'),
    NonUniqueLinkTypeRedirect: s('nu_redirect'),
    NonUniqueLinkTypeTextLink: s('nu_text'),
    TotalNonUniqueLinks: s('total_non_unique'),
    OutLinksInternal: s('out_internal'),
    OutLinksExternal: s('out_external'),
    OutDomainsExternal: s('out_domains_external'),
  };
}

function hasExtraFilters(f: BacklinkFilter): boolean {
  return Object.entries(f).some(([key, value]) => key !== 'linksPerDomain' && key !== 'source' && value !== undefined);
}

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

  private query(target: ResolvedTarget, filter: BacklinkFilter, at: number): { where: string; params: unknown[]; window: boolean; joins: string } {
    const params: unknown[] = [target.entityId];
    const clauses = [`l.${TARGET_COLUMN[target.type]} = ?`, 'l.internal = 0'];
    if (target.type !== 'RootDomain' && (filter.source ?? 0) !== 0) {
      // Lets the planner use the root-level new/lost indexes for hosts and pages too.
      clauses.push('l.target_root_id = ?');
      params.push(target.rootDomainId);
    }
    const today = dayNumber(at);
    if (filter.source === 1) {
      clauses.push('l.first_seen >= ?');
      params.push(isoDay(today - 30));
    } else if (filter.source === 2) {
      // deleted_on ≥ last_seen, so the extra bound selects nothing more and lets the
      // partial lost-links index answer.
      clauses.push('l.deleted = 1 AND l.last_seen >= ? AND l.deleted_on >= ?');
      params.push(isoDay(today - 90), isoDay(today - 90));
    }
    if (filter.targetAnchorText) {
      clauses.push("(lower(l.anchor) LIKE ? ESCAPE '\\' OR lower(l.alt) LIKE ? ESCAPE '\\')");
      const like = `%${filter.targetAnchorText.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      params.push(like, like);
    }
    if (filter.targetHrefText) {
      clauses.push("lower(tp.url) LIKE ? ESCAPE '\\'");
      params.push(`%${filter.targetHrefText.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    if (filter.linkType) {
      clauses.push('l.type = ?');
      params.push(filter.linkType.toLowerCase());
    }
    if (filter.noFollow !== undefined) {
      clauses.push('l.nofollow = ?');
      params.push(filter.noFollow ? 1 : 0);
    }
    if (filter.liveLinks) clauses.push('l.deleted = 0');
    const range = (column: string, min?: number, max?: number): void => {
      if (min !== undefined) {
        clauses.push(`${column} >= ?`);
        params.push(min);
      }
      if (max !== undefined) {
        clauses.push(`${column} <= ?`);
        params.push(max);
      }
    };
    range('sm.citation_flow', filter.minCitationFlow, filter.maxCitationFlow);
    range('sm.trust_flow', filter.minTrustFlow, filter.maxTrustFlow);
    range('l.strength', filter.minLinkStrength, filter.maxLinkStrength);
    if (filter.minTopRank !== undefined || filter.maxTopRank !== undefined) {
      clauses.push(
        'EXISTS (SELECT 1 FROM entity_metrics rm WHERE rm.level = 2 AND rm.entity_id = l.source_root_id' +
          (filter.minTopRank !== undefined ? ' AND rm.top_rank >= ?' : '') +
          (filter.maxTopRank !== undefined ? ' AND rm.top_rank <= ?' : '') +
          ')',
      );
      if (filter.minTopRank !== undefined) params.push(filter.minTopRank);
      if (filter.maxTopRank !== undefined) params.push(filter.maxTopRank);
    }
    const flags: string[] = [];
    if (filter.flagTextLink) flags.push('text');
    if (filter.flagImageLink) flags.push('image');
    if (filter.flagFrameLink) flags.push('frame');
    if (filter.flagRedirectLink) flags.push('redirect');
    if (filter.flagMentionLink) flags.push('mention');
    if (flags.length > 0) {
      clauses.push(`l.type IN (${flags.map(() => '?').join(', ')})`);
      params.push(...flags);
    }
    let window = false;
    if (filter.linksPerDomain === 1) {
      // With only the list selector, the precomputed strongest link per referring domain
      // answers; with more filters, "one per domain" applies among the matching links.
      if (!hasExtraFilters(filter) && (filter.source ?? 0) === 0) clauses.push(`l.${BEST_COLUMN[target.type]} = 1`);
      else window = true;
    }
    // Only the joins the filters need: paging then scans the links index alone.
    const where = clauses.join(' AND ');
    const joins = [
      where.includes('tp.') ? 'JOIN pages tp ON tp.id = l.target_page_id' : '',
      where.includes('sm.') ? 'JOIN entity_metrics sm ON sm.level = 0 AND sm.entity_id = l.source_page_id' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return { where, params, window, joins };
  }

  /**
   * SQL selecting `columns` (of `links l`) of the matching links, strongest first.
   * `l.id` alone is answered from the indexes.
   */
  private matchingSql(target: ResolvedTarget, filter: BacklinkFilter, at: number, columns: string): { sql: string; params: unknown[] } {
    const q = this.query(target, filter, at);
    // New/lost lists are a small slice of a target's links: the unary plus keeps the
    // planner on the (covering) first-seen / lost index and sorts that slice, instead of
    // walking the whole strongest-first index and checking dates row by row.
    const order = (filter.source ?? 0) !== 0 ? '+l.score DESC, l.id' : 'l.score DESC, l.id';
    if (!q.window) return { sql: `SELECT ${columns} FROM links l ${q.joins} WHERE ${q.where} ORDER BY ${order}`, params: q.params };
    const ranked = `SELECT l.id, l.score, ROW_NUMBER() OVER (PARTITION BY l.source_root_id ORDER BY l.score DESC, l.id) AS rn
        FROM links l ${q.joins} WHERE ${q.where}`;
    if (columns === 'l.id') return { sql: `SELECT id FROM (${ranked}) ranked WHERE rn = 1 ORDER BY score DESC, id`, params: q.params };
    // The ranking keeps one id per referring domain; the other columns are read back by id.
    return {
      sql: `SELECT ${columns} FROM (${ranked}) ranked JOIN links l ON l.id = ranked.id WHERE ranked.rn = 1 ORDER BY ranked.score DESC, ranked.id`,
      params: q.params,
    };
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
    const q = this.query(target, filter, at);
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
    const { sql, params } = this.matchingSql(target, filter, at, 'l.id');
    const ids = this.raw
      .prepare(`${sql} LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, page.limit, page.offset) as number[];
    return { meta, links: this.itemsOf(ids) };
  }

  /**
   * Every matching backlink, strongest first, as `BACKLINK_FIELDS` arrays. One scan of
   * the matching links in list order; the pages of each batch of links are read together
   * and remembered (PageDetailsReader), so a row costs little more than reading its link,
   * and memory stays flat whatever the number of rows.
   */
  *streamBacklinkRows(target: ResolvedTarget, filter: BacklinkFilter = {}, limit = Number.MAX_SAFE_INTEGER, at = this.clock.now()): Generator<BacklinkRow> {
    if (target.entityId === null || limit <= 0) return;
    const pages = new PageDetailsReader(this.raw);
    // The list's length without its other filters bounds it from above and costs no scan
    // (new and lost links have their own indexes).
    pages.preloadFor(Math.min(limit, this.countBacklinks(target, { source: filter.source }, at)));
    const { sql, params } = this.matchingSql(target, filter, at, LINK_ROW_COLUMNS);
    const links = this.raw
      .prepare(`${sql} LIMIT ?`)
      .raw()
      .iterate(...params, limit) as IterableIterator<LinkRow>;
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
    if (target.entityId === null || limit <= 0) return new BacklinkCsvSource(pages, [][Symbol.iterator](), linkById);
    pages.preloadFor(Math.min(limit, this.countBacklinks(target, { source: filter.source }, at)));
    const { sql, params } = this.matchingSql(target, filter, at, BACKLINK_CSV_RECORD);
    const links = this.raw
      .prepare(`${sql} LIMIT ?`)
      .pluck()
      .iterate(...params, limit) as IterableIterator<string>;
    return new BacklinkCsvSource(pages, links, linkById);
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

  /**
   * Backlink profile: link index metrics, a daily calendar of new and lost links over
   * the last `days` days, the top referring domains and the top anchors. Referring
   * domains and anchors are aggregated over the target's strongest `PROFILE_SAMPLE`
   * links (all of them below that), which bounds the work on giant targets.
   */
  backlinkProfile(url: string, options: { days?: number; top?: number } = {}, at = this.clock.now()): BacklinkProfile | null {
    const target = this.resolve(url);
    if (!target) return null;
    const days = options.days ?? 90;
    const top = options.top ?? 50;
    const v = linkIndexOf(this.metricsOf(target.level, target.entityId), target.type);
    const urlId = hexId(target.entityId ?? 0);
    if (target.entityId === null) return { urlId, linkindex: v, backLinkCalendar: [], refDomains: [], anchors: [] };
    const column = TARGET_COLUMN[target.type];
    const today = dayNumber(at);
    const since = isoDay(today - days + 1);
    const rootClause = target.type === 'RootDomain' ? '' : `AND target_root_id = ${Number(target.rootDomainId)}`;
    const newByDay = new Map(
      this.raw
        .prepare(`SELECT first_seen AS d, COUNT(*) AS n FROM links WHERE ${column} = ? ${rootClause} AND internal = 0 AND first_seen >= ? GROUP BY first_seen`)
        .all(target.entityId, since)
        .map((r) => {
          const row = r as { d: string; n: number };
          return [row.d, row.n] as const;
        }),
    );
    const lostByDay = new Map(
      this.raw
        .prepare(
          `SELECT deleted_on AS d, COUNT(*) AS n FROM links WHERE ${column} = ? ${rootClause} AND internal = 0 AND deleted = 1 AND deleted_on >= ? GROUP BY deleted_on`,
        )
        .all(target.entityId, since)
        .map((r) => {
          const row = r as { d: string; n: number };
          return [row.d, row.n] as const;
        }),
    );
    const backLinkCalendar = [];
    for (let d = today - days + 1; d <= today; d++) {
      const date = isoDay(d);
      backLinkCalendar.push({ Date: date, NewLinks: newByDay.get(date) ?? 0, LostLinks: lostByDay.get(date) ?? 0 });
    }
    const refDomains = (
      this.raw
        .prepare(
          `
      SELECT r.domain, m.top_rank, x.n, m.citation_flow, m.trust_flow FROM (
        SELECT source_root_id, COUNT(*) AS n FROM (SELECT source_root_id FROM links WHERE ${column} = ? AND internal = 0 ORDER BY score DESC, id LIMIT ${PROFILE_SAMPLE})
        GROUP BY source_root_id ORDER BY n DESC, source_root_id LIMIT ?
      ) x JOIN root_domains r ON r.id = x.source_root_id JOIN entity_metrics m ON m.level = 2 AND m.entity_id = x.source_root_id
      ORDER BY x.n DESC, r.id`,
        )
        .all(target.entityId, top) as { domain: string; top_rank: number; n: number; citation_flow: number; trust_flow: number }[]
    ).map((r) => ({
      domain: r.domain as string,
      topRank: r.top_rank as number,
      matchedLinks: r.n as number,
      citationFlow: r.citation_flow as number,
      trustFlow: r.trust_flow as number,
    }));
    const anchors = (
      this.raw
        .prepare(
          `
      SELECT CASE WHEN l.type = 'image' THEN l.alt ELSE l.anchor END AS text, COUNT(DISTINCT l.source_root_id) AS domains, COUNT(*) AS total,
        SUM(l.nofollow) AS nofollow, SUM(l.deleted) AS deleted, MAX(CASE WHEN l.type = 'image' THEN 1 ELSE 0 END) AS image, MAX(m.citation_flow) AS cf
      FROM (SELECT * FROM links WHERE ${column} = ? AND internal = 0 ORDER BY score DESC, id LIMIT ${PROFILE_SAMPLE}) l
      JOIN entity_metrics m ON m.level = 0 AND m.entity_id = l.source_page_id GROUP BY text ORDER BY domains DESC, total DESC, text LIMIT ?`,
        )
        .all(target.entityId, top) as { text: string; domains: number; total: number; nofollow: number; deleted: number; image: number; cf: number }[]
    ).map((r) => ({
      anchorText: r.text as string,
      refDomains: r.domains as number,
      totalLinks: r.total as number,
      noFollowLinks: r.nofollow as number,
      deletedLinks: r.deleted as number,
      class: r.image ? 'image' : 'text',
      citationFlow: r.cf as number,
    }));
    return { urlId, linkindex: v, backLinkCalendar, refDomains, anchors };
  }

  /** The strongest pages of a domain or host (by CitationFlow), for the site tool's top content. */
  topContent(url: string, limit = 50): { urlId: string; topContent: TopContentItem[] } | null {
    const target = this.resolve(url);
    if (!target) return null;
    const urlId = hexId(target.entityId ?? 0);
    if (target.rootDomainId === null) return { urlId, topContent: [] };
    const byHost = target.type === 'SubDomain' && target.hostId !== null;
    const rows = this.raw
      .prepare(
        `
      SELECT p.url, m.citation_flow, m.trust_flow, m.ref_domains, m.ext_backlinks, p.shares, p.title, p.description FROM pages p
      JOIN entity_metrics m ON m.level = 0 AND m.entity_id = p.id
      WHERE ${byHost ? 'p.host_id' : 'p.root_domain_id'} = ?
      ORDER BY m.citation_flow DESC, m.ref_domains DESC, p.id LIMIT ?`,
      )
      .all(byHost ? target.hostId : target.rootDomainId, limit) as {
      url: string;
      citation_flow: number;
      trust_flow: number;
      ref_domains: number;
      ext_backlinks: number;
      shares: number;
      title: string;
      description: string;
    }[];
    return {
      urlId,
      topContent: rows.map((r) => ({
        url: r.url,
        citationFlow: r.citation_flow,
        trustFlow: r.trust_flow,
        refDomains: r.ref_domains,
        extBackLinks: r.ext_backlinks,
        social: r.shares,
        title: r.title,
        description: r.description,
      })),
    };
  }
}
