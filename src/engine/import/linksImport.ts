/**
 * Imports links from a CSV with the columns source URL, target URL, anchor, nofollow,
 * first seen, last seen (header names matched loosely: "Source URL"/"source_url"/
 * "Source", ...; optional "Link Type", "Lost"/"Deleted" date columns). Unknown root
 * domains, hosts and pages are created (kind `imported`; a host's IP is unknown and
 * counts as its own IP and subnet; .edu/.gov roots join the TrustRank seed set); a link
 * already present (same source page, target page and anchor) gets its dates updated
 * (linkWriter.ts). Afterwards PageRank/TrustRank, flows, authority, counters and histories
 * are updated (incrementally where they can be: links/incrementalMetrics.ts), so imported
 * links are served exactly like sandbox ones, and stored rank
 * indexes are deleted (rankings follow authority; markets are ranked again on next use).
 *
 * Example: `await importLinksCsv('links.csv', { store, asOf: clock.now() })`.
 */
import type { ResearchStore } from '../researchStore.js';
import { fullRecomputeUpdate, updateLinkMetrics, type MetricsUpdate, type UpdateStage } from '../links/incrementalMetrics.js';
import { LinkWriter } from './linkWriter.js';
import { deleteStoredRankIndexes } from '../search/searchStore.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayNumber, isoDay } from '../world/dates.js';
import { columnIndex, readCsvTable } from './csvFile.js';
import { ImportError } from './importError.js';
import { parseTarget } from '../links/urls.js';

export interface LinksImportOptions {
  store: ResearchStore;
  /** The date the import refers to (ms); counters and history are computed as of then. */
  asOf: number;
  /** Called as the metrics update moves from stage to stage. */
  onStage?: (stage: UpdateStage) => void;
  /** Recompute every metric instead of updating what the links changed (benchmarks compare the two). */
  fullRecompute?: boolean;
}

export interface LinksImportResult {
  imported: number;
  created: number;
  updated: number;
  skipped: number;
  newRootDomains: number;
  newPages: number;
  /** Links read to update the metrics (all of them when a full recompute ran). */
  recomputedLinks: number;
  metrics?: MetricsUpdate;
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
  const { header, rows } = readCsvTable(
    file,
    (cells) => cells.some((c) => /source/i.test(c)) && cells.some((c) => /target/i.test(c)),
    'a links CSV (a header row with source URL and target URL columns)',
  );
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
  if (col.source < 0 || col.target < 0) throw new ImportError(`${file}: not a links CSV: it needs "Source URL" and "Target URL" columns; nothing was imported`);
  // Rows whose two URLs cannot be read are skipped; a file of nothing else is another kind of file.
  const readable = rows.filter((row) => parseTarget(row[col.source] ?? '') !== null && parseTarget(row[col.target] ?? '') !== null).length;
  if (readable === 0) throw new ImportError(`${file}: none of its ${rows.length} rows has a source and a target URL; nothing was imported`);
  const raw = options.store.raw;
  const today = isoDay(dayNumber(options.asOf));
  const result: LinksImportResult = { imported: 0, created: 0, updated: 0, skipped: 0, newRootDomains: 0, newPages: 0, recomputedLinks: 0 };
  const writer = new LinkWriter(raw);
  raw.transaction(() => {
    for (const row of rows) {
      const firstSeen = parseDate(col.firstSeen >= 0 ? row[col.firstSeen] : undefined, today);
      const lastSeen = parseDate(col.lastSeen >= 0 ? row[col.lastSeen] : undefined, today);
      const source = writer.ensurePage(row[col.source] ?? '', firstSeen);
      const target = writer.ensurePage(row[col.target] ?? '', firstSeen);
      if (!source || !target || source.id === target.id) {
        result.skipped++;
        continue;
      }
      const anchor = col.anchor >= 0 ? (row[col.anchor] ?? '').trim() : '';
      const lostText = col.lost >= 0 ? (row[col.lost] ?? '').trim() : '';
      const deletedOn = lostText === '' || /^(0|false|no)$/i.test(lostText) ? null : parseDate(lostText, lastSeen);
      const typeText = col.type >= 0 ? (row[col.type] ?? '').trim().toLowerCase() : 'text';
      const type = (LINK_TYPES as readonly string[]).includes(typeText) ? typeText : 'text';
      const nofollow = parseBool(col.nofollow >= 0 ? row[col.nofollow] : undefined);
      if (!writer.upsert({ source, target, anchor, alt: '', type, nofollow, firstSeen, lastSeen, deletedOn })) {
        result.skipped++;
        continue;
      }
      result.imported++;
    }
    // Authority follows links and rankings follow authority: stored rank indexes are stale.
    deleteStoredRankIndexes(raw);
    raw.prepare("INSERT OR IGNORE INTO world_meta (key, value) VALUES ('state', 'ready'), ('origin', 'import')").run();
  })();
  result.created = writer.counts.created;
  result.updated = writer.counts.updated + writer.counts.unchanged;
  result.newRootDomains = writer.counts.newRootDomains;
  result.newPages = writer.counts.newPages;
  result.metrics = options.fullRecompute ? fullRecomputeUpdate(raw, options.asOf, options.onStage) : updateLinkMetrics(raw, options.asOf, options.onStage);
  result.recomputedLinks = result.metrics.linksRead;
  return result;
}
