/**
 * Imports links from a CSV with the columns source URL, target URL, anchor, nofollow,
 * first seen, last seen (header names matched loosely: "Source URL"/"source_url"/
 * "Source", ...; optional "Link Type", "Lost"/"Deleted" date columns). Unknown root
 * domains, hosts and pages are created (kind `imported`; a host's IP is unknown and
 * counts as its own IP and subnet; .edu/.gov roots join the TrustRank seed set); a link
 * already present (same source page, target page and anchor) gets its dates updated.
 * Afterwards PageRank/TrustRank, flows, authority, counters and histories are
 * recomputed, so imported links are served exactly like sandbox ones, and stored rank
 * indexes are deleted (rankings follow authority; markets are ranked again on next use).
 *
 * Example: `await importLinksCsv('links.csv', { store, asOf: clock.now() })`.
 */
import type { ResearchStore } from '../researchStore.js';
import { parseTarget, domainClasses } from '../links/urls.js';
import { recomputeLinkMetrics } from '../links/recomputeLinkMetrics.js';
import { deleteStoredRankIndexes } from '../search/searchStore.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayFromIso, dayNumber, isoDay } from '../world/dates.js';
import { columnIndex, readCsvTable } from './csvFile.js';

export interface LinksImportOptions {
  store: ResearchStore;
  /** The date the import refers to (ms); counters and history are computed as of then. */
  asOf: number;
}

export interface LinksImportResult {
  imported: number;
  created: number;
  updated: number;
  skipped: number;
  newRootDomains: number;
  newPages: number;
  recomputedLinks: number;
}

function parseDate(text: string | undefined, fallback: string): string {
  const t = (text ?? '').trim();
  if (t === '') return fallback;
  const ms = Date.parse(/^\d{4}-\d\d-\d\d$/.test(t) ? `${t}T00:00:00Z` : t);
  return Number.isNaN(ms) ? fallback : isoDay(dayNumber(ms));
}

function parseBool(text: string | undefined): boolean {
  return /^(1|true|yes|y|nofollow)$/i.test((text ?? '').trim());
}

export async function importLinksCsv(file: string, options: LinksImportOptions): Promise<LinksImportResult> {
  const { header, rows } = readCsvTable(file, (cells) => cells.some((c) => /source/i.test(c)) && cells.some((c) => /target/i.test(c)));
  const col = {
    source: columnIndex(header, 'Source URL', 'source_url', 'SourceURL', 'Source'),
    target: columnIndex(header, 'Target URL', 'target_url', 'TargetURL', 'Target'),
    anchor: columnIndex(header, 'Anchor', 'Anchor Text', 'anchor_text', 'AnchorText'),
    nofollow: columnIndex(header, 'NoFollow', 'nofollow', 'No Follow', 'FlagNoFollow'),
    firstSeen: columnIndex(header, 'First Seen', 'first_seen', 'FirstIndexedDate', 'FirstSeen'),
    lastSeen: columnIndex(header, 'Last Seen', 'last_seen', 'LastSeenDate', 'LastSeen'),
    lost: columnIndex(header, 'Lost', 'Deleted', 'Lost Date', 'deleted_on', 'DateLost'),
    type: columnIndex(header, 'Link Type', 'link_type', 'Type'),
  };
  if (col.source < 0 || col.target < 0) throw new Error(`${file}: needs source URL and target URL columns`);
  const raw = options.store.raw;
  const today = isoDay(dayNumber(options.asOf));
  const result: LinksImportResult = { imported: 0, created: 0, updated: 0, skipped: 0, newRootDomains: 0, newPages: 0, recomputedLinks: 0 };

  const rootId = raw.prepare('SELECT id FROM root_domains WHERE domain = ?').pluck();
  const hostId = raw.prepare('SELECT id FROM hosts WHERE host = ?').pluck();
  const pageRow = raw.prepare('SELECT id, host_id, root_domain_id, https FROM pages WHERE url = ?');
  const nextId = (table: string) => raw.prepare(`SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}`).pluck();
  const nextRoot = nextId('root_domains');
  const nextHost = nextId('hosts');
  const nextPage = nextId('pages');
  const nextLink = nextId('links');
  const insertRoot = raw.prepare(
    "INSERT INTO root_domains (id, domain, kind, niche_id, language_id, brand, trusted, created_on) VALUES (?, ?, 'imported', NULL, 0, ?, ?, ?)",
  );
  const insertHost = raw.prepare("INSERT INTO hosts (id, host, root_domain_id, ip, subnet) VALUES (?, ?, ?, '', '')");
  const insertPage =
    raw.prepare(`INSERT INTO pages (id, url, host_id, root_domain_id, https, is_homepage, title, description, body, keyword, niche_id, language_id, kind, published, shares)
    VALUES (?, ?, ?, ?, ?, ?, '', '', '', '', NULL, 0, 'imported', ?, 0)`);
  const findLink = raw.prepare('SELECT id, first_seen, last_seen FROM links WHERE source_page_id = ? AND target_page_id = ? AND anchor = ?');
  const updateLink = raw.prepare('UPDATE links SET first_seen = ?, last_seen = ?, nofollow = ?, deleted = ?, deleted_on = ?, reason_lost = ? WHERE id = ?');
  const insertLink =
    raw.prepare(`INSERT INTO links (id, source_page_id, target_page_id, source_host_id, target_host_id, source_root_id, target_root_id, anchor, alt, type,
    nofollow, https, first_seen, last_seen, deleted, deleted_on, reason_lost, internal, score, strength, best_root, best_host, best_url)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0)`);

  const ensurePage = (url: string, firstSeen: string): { id: number; host: number; root: number; https: number } | null => {
    const parsed = parseTarget(url);
    if (!parsed) return null;
    const existing = pageRow.get(parsed.url) as { id: number; host_id: number; root_domain_id: number; https: number } | undefined;
    if (existing) return { id: existing.id, host: existing.host_id, root: existing.root_domain_id, https: existing.https };
    let root = rootId.get(parsed.rootDomain) as number | undefined;
    if (root === undefined) {
      root = nextRoot.get() as number;
      const classes = domainClasses(parsed.rootDomain);
      const brand = parsed.rootDomain.split('.')[0];
      insertRoot.run(root, parsed.rootDomain, brand.charAt(0).toUpperCase() + brand.slice(1), classes.edu === 2 || classes.gov === 2 ? 1 : 0, firstSeen);
      result.newRootDomains++;
    }
    let host = hostId.get(parsed.host) as number | undefined;
    if (host === undefined) {
      host = nextHost.get() as number;
      insertHost.run(host, parsed.host, root);
    }
    const id = nextPage.get() as number;
    const https = parsed.url.startsWith('https:') ? 1 : 0;
    insertPage.run(id, parsed.url, host, root, https, parsed.hostOnly ? 1 : 0, firstSeen);
    result.newPages++;
    return { id, host, root, https };
  };

  raw.transaction(() => {
    for (const row of rows) {
      const firstSeen = parseDate(col.firstSeen >= 0 ? row[col.firstSeen] : undefined, today);
      const lastSeen = parseDate(col.lastSeen >= 0 ? row[col.lastSeen] : undefined, today);
      const source = ensurePage(row[col.source] ?? '', firstSeen);
      const target = ensurePage(row[col.target] ?? '', firstSeen);
      if (!source || !target || source.id === target.id) {
        result.skipped++;
        continue;
      }
      const anchor = col.anchor >= 0 ? (row[col.anchor] ?? '').trim() : '';
      const nofollow = parseBool(col.nofollow >= 0 ? row[col.nofollow] : undefined) ? 1 : 0;
      const lostText = col.lost >= 0 ? (row[col.lost] ?? '').trim() : '';
      const deletedOn = lostText === '' || /^(0|false|no)$/i.test(lostText) ? null : parseDate(lostText, lastSeen);
      const typeText = col.type >= 0 ? (row[col.type] ?? '').trim().toLowerCase() : 'text';
      const type = (LINK_TYPES as readonly string[]).includes(typeText) ? typeText : 'text';
      const existing = findLink.get(source.id, target.id, anchor) as { id: number; first_seen: string; last_seen: string } | undefined;
      const first = existing && existing.first_seen < firstSeen ? existing.first_seen : firstSeen;
      const last = existing && existing.last_seen > lastSeen ? existing.last_seen : lastSeen;
      if (dayFromIso(last) < dayFromIso(first)) {
        result.skipped++;
        continue;
      }
      const reason = deletedOn ? 'Link removed from page' : '';
      if (existing) {
        updateLink.run(first, last, nofollow, deletedOn ? 1 : 0, deletedOn, reason, existing.id);
        result.updated++;
      } else {
        insertLink.run(
          nextLink.get(),
          source.id,
          target.id,
          source.host,
          target.host,
          source.root,
          target.root,
          anchor,
          type,
          nofollow,
          source.https,
          first,
          last,
          deletedOn ? 1 : 0,
          deletedOn,
          reason,
          source.root === target.root ? 1 : 0,
        );
        result.created++;
      }
      result.imported++;
    }
    // Authority follows links and rankings follow authority: stored rank indexes are stale.
    deleteStoredRankIndexes(raw);
    raw.prepare("INSERT OR IGNORE INTO world_meta (key, value) VALUES ('state', 'ready'), ('origin', 'import')").run();
  })();
  result.recomputedLinks = recomputeLinkMetrics(raw, options.asOf).links;
  return result;
}
