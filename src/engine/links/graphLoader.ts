/**
 * Loads the link graph of a research store into typed arrays (LinkGraphInput): every
 * page, host and root domain, and the links a query selects — all of them for a full
 * recompute, the links around the touched root domains for an incremental one
 * (incrementalMetrics.ts). Entity ids are dense (1..N; index = id − 1), which the
 * generator and the importers guarantee.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { LinkGraphInput } from './linkGraphInput.js';
import { domainClasses } from './urls.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayFromIso } from '../world/dates.js';

export type EntityArrays = Omit<
  LinkGraphInput,
  'linkCount' | 'linkSource' | 'linkTarget' | 'linkType' | 'linkNofollow' | 'linkHttps' | 'linkDeleted' | 'linkFirstDay' | 'linkEndDay'
>;

export interface LoadedLinks {
  ids: Int32Array;
  source: Int32Array;
  target: Int32Array;
  type: Uint8Array;
  nofollow: Uint8Array;
  https: Uint8Array;
  deleted: Uint8Array;
  firstDay: Int32Array;
  endDay: Int32Array;
  /** Stored score, strength and best flags (bit 0 root, 1 host, 2 url), to write only what changed. */
  score: Int32Array;
  strength: Uint8Array;
  best: Uint8Array;
}

/** The columns `loadLinks` expects, in order. */
export const LINK_LOAD_COLUMNS =
  'id, source_page_id, target_page_id, type, nofollow, https, deleted, first_seen, last_seen, score, strength, best_root, best_host, best_url';

function maxId(raw: SqliteDatabase.Database, table: string): number {
  return raw.prepare(`SELECT COALESCE(MAX(id), 0) FROM ${table}`).pluck().get() as number;
}

/** Day numbers of `YYYY-MM-DD` texts, memoised: a link table holds a few thousand distinct dates. */
function dayParser(): (text: string) => number {
  const cache = new Map<string, number>();
  return (text) => {
    let day = cache.get(text);
    if (day === undefined) {
      day = dayFromIso(text);
      cache.set(text, day);
    }
    return day;
  };
}

export function loadEntities(raw: SqliteDatabase.Database, asOfDay: number): EntityArrays {
  const pageCount = maxId(raw, 'pages');
  const hostCount = maxId(raw, 'hosts');
  const rootCount = maxId(raw, 'root_domains');
  const day = dayParser();
  const pageHost = new Int32Array(pageCount);
  const pageRoot = new Int32Array(pageCount);
  const pageIsHome = new Uint8Array(pageCount);
  const pageShares = new Int32Array(pageCount);
  const pagePublished = new Int32Array(pageCount);
  for (const [id, host, root, home, shares, published] of raw
    .prepare('SELECT id, host_id, root_domain_id, is_homepage, shares, published FROM pages')
    .raw()
    .iterate() as IterableIterator<[number, number, number, number, number, string]>) {
    pageHost[id - 1] = host - 1;
    pageRoot[id - 1] = root - 1;
    pageIsHome[id - 1] = home;
    pageShares[id - 1] = shares;
    pagePublished[id - 1] = day(published);
  }
  const hostRoot = new Int32Array(hostCount);
  const hostIp = new Int32Array(hostCount);
  const hostSubnet = new Int32Array(hostCount);
  const ips = new Map<string, number>();
  const subnets = new Map<string, number>();
  for (const [id, root, ip, subnet] of raw.prepare('SELECT id, root_domain_id, ip, subnet FROM hosts ORDER BY id').raw().iterate() as IterableIterator<
    [number, number, string, string]
  >) {
    hostRoot[id - 1] = root - 1;
    // A host whose IP is unknown (imports) counts as its own IP and subnet.
    const ipKey = ip === '' ? `host:${id}` : ip;
    const subnetKey = subnet === '' ? `host:${id}` : subnet;
    if (!ips.has(ipKey)) ips.set(ipKey, ips.size);
    if (!subnets.has(subnetKey)) subnets.set(subnetKey, subnets.size);
    hostIp[id - 1] = ips.get(ipKey)!;
    hostSubnet[id - 1] = subnets.get(subnetKey)!;
  }
  const rootTrusted = new Uint8Array(rootCount);
  const rootEdu = new Uint8Array(rootCount);
  const rootGov = new Uint8Array(rootCount);
  for (const [id, domain, trusted] of raw.prepare('SELECT id, domain, trusted FROM root_domains').raw().iterate() as IterableIterator<
    [number, string, number]
  >) {
    const c = domainClasses(domain);
    rootTrusted[id - 1] = trusted;
    rootEdu[id - 1] = c.edu;
    rootGov[id - 1] = c.gov;
  }
  return {
    asOfDay,
    pageCount,
    pageHost,
    pageRoot,
    pageIsHome,
    pageShares,
    pagePublished,
    hostCount,
    hostRoot,
    hostIp,
    hostSubnet,
    rootCount,
    rootTrusted,
    rootEdu,
    rootGov,
  };
}

/**
 * Links selected by `query` (its columns: LINK_LOAD_COLUMNS, ordered by id so that sums
 * and tie-breaks run in the same order as a full load), 0-based page indexes.
 */
export function loadLinks(raw: SqliteDatabase.Database, asOfDay: number, query: string, params: unknown[] = []): LoadedLinks {
  // Columns grow by doubling (the count of a selection is not known beforehand) and are
  // cut to length at the end: typed arrays keep a large world's links compact.
  let capacity = 1024;
  let out: LoadedLinks = allocate(capacity);
  let n = 0;
  const typeCodes = new Map<string, number>(LINK_TYPES.map((t, i) => [t, i]));
  const day = dayParser();
  for (const row of raw
    .prepare(query)
    .raw()
    .iterate(...params) as IterableIterator<[number, number, number, string, number, number, number, string, string, number, number, number, number, number]>) {
    if (n === capacity) {
      capacity *= 2;
      out = grow(out, capacity);
    }
    out.ids[n] = row[0];
    out.source[n] = row[1] - 1;
    out.target[n] = row[2] - 1;
    out.type[n] = typeCodes.get(row[3]) ?? 0;
    out.nofollow[n] = row[4];
    out.https[n] = row[5];
    out.deleted[n] = row[6];
    out.firstDay[n] = day(row[7]);
    // A lost link ended on its last-seen day; a live one is alive through the as-of day.
    out.endDay[n] = row[6] ? day(row[8]) : asOfDay;
    out.score[n] = row[9];
    out.strength[n] = row[10];
    out.best[n] = row[11] | (row[12] << 1) | (row[13] << 2);
    n++;
  }
  return cut(out, n);
}

/** Every link of the store, in id order (what a full recompute and an incremental update both start from). */
export function loadAllLinks(raw: SqliteDatabase.Database, asOfDay: number): LoadedLinks {
  return loadLinks(raw, asOfDay, `SELECT ${LINK_LOAD_COLUMNS} FROM links ORDER BY id`);
}

/**
 * The rank-passing links (live, followed, with an href: linkMetrics.ts passesRank) as
 * 0-based page indexes, in id order: all PageRank needs, read without the other columns.
 */
export function loadRankEdges(raw: SqliteDatabase.Database): { source: Int32Array; target: Int32Array } {
  let capacity = 1 << 16;
  let source = new Int32Array(capacity);
  let target = new Int32Array(capacity);
  let n = 0;
  for (const [s, t] of raw
    .prepare("SELECT source_page_id, target_page_id FROM links WHERE deleted = 0 AND nofollow = 0 AND type != 'mention' ORDER BY id")
    .raw()
    .iterate() as IterableIterator<[number, number]>) {
    if (n === capacity) {
      capacity *= 2;
      const [moreSource, moreTarget] = [new Int32Array(capacity), new Int32Array(capacity)];
      moreSource.set(source);
      moreTarget.set(target);
      [source, target] = [moreSource, moreTarget];
    }
    source[n] = s - 1;
    target[n] = t - 1;
    n++;
  }
  return { source: source.subarray(0, n), target: target.subarray(0, n) };
}

function allocate(n: number): LoadedLinks {
  return {
    ids: new Int32Array(n),
    source: new Int32Array(n),
    target: new Int32Array(n),
    type: new Uint8Array(n),
    nofollow: new Uint8Array(n),
    https: new Uint8Array(n),
    deleted: new Uint8Array(n),
    firstDay: new Int32Array(n),
    endDay: new Int32Array(n),
    score: new Int32Array(n),
    strength: new Uint8Array(n),
    best: new Uint8Array(n),
  };
}

function grow(links: LoadedLinks, capacity: number): LoadedLinks {
  const bigger = allocate(capacity);
  for (const key of Object.keys(links) as (keyof LoadedLinks)[]) (bigger[key] as Int32Array).set(links[key] as Int32Array);
  return bigger;
}

function cut(links: LoadedLinks, n: number): LoadedLinks {
  const out = { ...links };
  for (const key of Object.keys(links) as (keyof LoadedLinks)[]) (out[key] as Int32Array) = (links[key] as Int32Array).slice(0, n);
  return out;
}

export function graphInput(entities: EntityArrays, links: LoadedLinks): LinkGraphInput {
  return {
    ...entities,
    linkCount: links.ids.length,
    linkSource: links.source,
    linkTarget: links.target,
    linkType: links.type,
    linkNofollow: links.nofollow,
    linkHttps: links.https,
    linkDeleted: links.deleted,
    linkFirstDay: links.firstDay,
    linkEndDay: links.endDay,
  };
}
