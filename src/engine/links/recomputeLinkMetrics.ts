/**
 * Recomputes every link metric of a research store from its tables (after a links
 * import): loads the graph into typed arrays, runs the same computation as the world
 * generator (linkMetrics.ts), rewrites `entity_metrics` and `root_history`, and updates
 * the score, strength and best-per-domain flags of the links whose values changed.
 *
 * Entity ids must be dense (1..N), which the generator and the importers guarantee.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { LinkGraphInput } from './linkGraphInput.js';
import { computeLinkMetrics } from './linkMetrics.js';
import { writeEntityMetrics } from './metricsWriter.js';
import { domainClasses } from './urls.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayFromIso, dayNumber } from '../world/dates.js';

function maxId(raw: SqliteDatabase.Database, table: string): number {
  return raw.prepare(`SELECT COALESCE(MAX(id), 0) FROM ${table}`).pluck().get() as number;
}

/** Loads the link graph of a research store (`asOf` = the date counters and history refer to). */
export function loadLinkGraph(
  raw: SqliteDatabase.Database,
  asOf: number,
): { input: LinkGraphInput; linkIds: Int32Array; stored: { score: Int32Array; strength: Uint8Array; best: Uint8Array } } {
  const asOfDay = dayNumber(asOf);
  const pageCount = maxId(raw, 'pages');
  const hostCount = maxId(raw, 'hosts');
  const rootCount = maxId(raw, 'root_domains');
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
    pagePublished[id - 1] = dayFromIso(published);
  }
  const hostRoot = new Int32Array(hostCount);
  const hostIp = new Int32Array(hostCount);
  const hostSubnet = new Int32Array(hostCount);
  const ips = new Map<string, number>();
  const subnets = new Map<string, number>();
  for (const [id, root, ip, subnet] of raw.prepare('SELECT id, root_domain_id, ip, subnet FROM hosts').raw().iterate() as IterableIterator<
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
  const linkCount = raw.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;
  const linkIds = new Int32Array(linkCount);
  const linkSource = new Int32Array(linkCount);
  const linkTarget = new Int32Array(linkCount);
  const linkType = new Uint8Array(linkCount);
  const linkNofollow = new Uint8Array(linkCount);
  const linkHttps = new Uint8Array(linkCount);
  const linkDeleted = new Uint8Array(linkCount);
  const linkFirstDay = new Int32Array(linkCount);
  const linkEndDay = new Int32Array(linkCount);
  const score = new Int32Array(linkCount);
  const strength = new Uint8Array(linkCount);
  const best = new Uint8Array(linkCount);
  const typeCodes = new Map<string, number>(LINK_TYPES.map((t, i) => [t, i]));
  let i = 0;
  for (const row of raw
    .prepare(
      'SELECT id, source_page_id, target_page_id, type, nofollow, https, deleted, first_seen, last_seen, score, strength, best_root, best_host, best_url FROM links ORDER BY id',
    )
    .raw()
    .iterate() as IterableIterator<[number, number, number, string, number, number, number, string, string, number, number, number, number, number]>) {
    linkIds[i] = row[0];
    linkSource[i] = row[1] - 1;
    linkTarget[i] = row[2] - 1;
    linkType[i] = typeCodes.get(row[3]) ?? 0;
    linkNofollow[i] = row[4];
    linkHttps[i] = row[5];
    linkDeleted[i] = row[6];
    linkFirstDay[i] = dayFromIso(row[7]);
    linkEndDay[i] = row[6] ? dayFromIso(row[8]) : asOfDay;
    score[i] = row[9];
    strength[i] = row[10];
    best[i] = row[11] | (row[12] << 1) | (row[13] << 2);
    i++;
  }
  const input: LinkGraphInput = {
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
    linkCount,
    linkSource,
    linkTarget,
    linkType,
    linkNofollow,
    linkHttps,
    linkDeleted,
    linkFirstDay,
    linkEndDay,
  };
  return { input, linkIds, stored: { score, strength, best } };
}

/** Recomputes and stores all link metrics; returns how many links changed score or flags. */
export function recomputeLinkMetrics(raw: SqliteDatabase.Database, asOf: number): { links: number; changedLinks: number } {
  const { input, linkIds, stored } = loadLinkGraph(raw, asOf);
  const metrics = computeLinkMetrics(input);
  const update = raw.prepare('UPDATE links SET score = ?, strength = ?, best_root = ?, best_host = ?, best_url = ? WHERE id = ?');
  let changed = 0;
  raw.transaction(() => {
    writeEntityMetrics(raw, metrics);
    for (let i = 0; i < input.linkCount; i++) {
      const best = metrics.bestRoot[i] | (metrics.bestHost[i] << 1) | (metrics.bestUrl[i] << 2);
      if (metrics.linkScore[i] === stored.score[i] && metrics.linkStrength[i] === stored.strength[i] && best === stored.best[i]) continue;
      update.run(metrics.linkScore[i], metrics.linkStrength[i], metrics.bestRoot[i], metrics.bestHost[i], metrics.bestUrl[i], linkIds[i]);
      changed++;
    }
    raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
  })();
  return { links: input.linkCount, changedLinks: changed };
}
