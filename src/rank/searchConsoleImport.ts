/**
 * Imports Google Search Console performance data into a rank tracking (`quarry import
 * search-console FILE --tracking ID`, issue 14): each query that is one of the tracking's
 * keywords gets a rank check with Search Console's average position (rounded; past 100 it
 * counts as not in the top 100) and the clicks and impressions it measured, which the
 * tracking's stats then count as its visits (rankStats.ts).
 *
 * Formats read, streamed whatever their size (plain or gzip):
 * - the Performance report's "Export → Download CSV" of the Queries tab (`Top queries,
 *   Clicks,Impressions,CTR,Position`): totals over the report's period, which the file does
 *   not name, so `period` is required; the check goes on the period's last day with the
 *   period's mean daily clicks and impressions;
 * - the report's ZIP export (Queries.csv, Dates.csv, Pages.csv, …): the same queries, the
 *   period read from the first and last day of Dates.csv (its per-day site totals);
 * - CSV with a Date column (`Date,Query,Clicks,…`, as Looker Studio and BigQuery exports
 *   write): one check per query and day;
 * - Search Analytics API answers (`searchanalytics.query`): `{"rows": [{"keys": [...],
 *   "clicks", "impressions", "ctr", "position"}]}`, one answer, an array of answers or of
 *   rows, or JSON Lines of answers (paged results saved one per line). Keys come in the
 *   order of the request's dimensions, which the answer does not repeat: `dimensions`
 *   names them, else each key's form tells (a date, a URL, a device; the one left is the
 *   query). Rows of one query and day (split by page, device or country) add up.
 *
 * A SERP check Quarry already made for that keyword and day keeps its position, URL and
 * features and gains the clicks and impressions; the import fills the other days. Resume
 * state (rows committed, the (keyword, day) pairs written) is committed with each batch,
 * so an interrupted import resumes after its last batch when run again. Written through the
 * state store's Kysely instance, so it runs on the embedded SQLite store and on PostgreSQL
 * (QUARRY_DATABASE_URL) alike.
 */
import type { Kysely, Transaction } from 'kysely';
import { ImportError } from '../engine/import/importError.js';
import { fileKey } from '../engine/import/importRuns.js';
import { normaliseKeyword } from '../engine/search/text.js';
import type { StateDatabase } from '../store/schema.js';
import {
  DIMENSIONS,
  openPerformanceRows,
  performanceFormat,
  periodDays,
  type Period,
  type PerformanceFormat,
  type PerformanceRow,
  type PerformanceRows,
} from './searchConsoleFiles.js';

export { parseApiRow, parsePeriod, periodDays, csvColumns, parseCsvRow, type Period, type PerformanceRow } from './searchConsoleFiles.js';

export interface SearchConsoleImportOptions {
  /** The state store (SQLite or PostgreSQL). */
  db: Kysely<StateDatabase>;
  trackingId: string;
  /** The period an export without dates covers (its Dates sheet gives it in a ZIP). */
  period?: Period;
  /** API answers: the request's dimensions in order (query, date, page, country, device, searchAppearance). */
  dimensions?: string[];
  now?: () => number;
  /** Rows per committed batch. */
  batchSize?: number;
  restart?: boolean;
  onProgress?: (stage: string, done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface SearchConsoleImportResult {
  alreadyImported: boolean;
  resumedFrom: number;
  format: PerformanceFormat;
  /** The export's period, for exports of totals. */
  period: Period | null;
  rows: number;
  /** Rows whose query is a tracked keyword. */
  matched: number;
  /** Rows whose query is not a tracked keyword (left out). */
  untracked: number;
  checksCreated: number;
  /** SERP checks (or earlier rows of this import) that gained clicks and impressions. */
  checksUpdated: number;
  /** Rows without a query, a valid date or numbers. */
  skipped: number;
}

// --- the import --------------------------------------------------------------------------

interface RunRow {
  id: number;
  records_done: number;
  status: string;
}

export async function importSearchConsole(file: string, options: SearchConsoleImportOptions): Promise<SearchConsoleImportResult> {
  const db = options.db;
  const now = options.now ?? Date.now;
  const progress = options.onProgress ?? (() => {});
  const batchSize = options.batchSize ?? 1000;
  const dimensions = options.dimensions?.map((d) => d.trim().toLowerCase());
  const unknown = dimensions?.filter((d) => !DIMENSIONS.includes(d)) ?? [];
  if (unknown.length > 0) throw new ImportError(`unknown dimensions ${unknown.join(', ')} (known: query, page, date, country, device, searchAppearance)`);
  if (dimensions && !dimensions.includes('query')) throw new ImportError('the dimensions must include query');

  const tracking = await db
    .selectFrom('rank_trackings')
    .select(['id', 'domain'])
    .where('id', '=', options.trackingId)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
  if (!tracking) throw new ImportError(`no rank tracking ${options.trackingId} (quarry import search-console takes a tracking id of the rank tool)`);
  const keywords = new Map<string, string>();
  for (const k of await db.selectFrom('rank_tracked_keywords').select(['id', 'kw']).where('tracking_id', '=', tracking.id).execute())
    keywords.set(normaliseKeyword(k.kw), k.id);

  const format = performanceFormat(file);

  const key = fileKey('search-console', file);
  let run: RunRow | undefined = await db
    .selectFrom('search_console_imports')
    .select(['id', 'records_done', 'status'])
    .where('tracking_id', '=', tracking.id)
    .where('file_key', '=', key)
    .executeTakeFirst();
  const result: SearchConsoleImportResult = {
    alreadyImported: run?.status === 'done' && !options.restart,
    resumedFrom: 0,
    format,
    period: options.period ?? null,
    rows: 0,
    matched: 0,
    untracked: 0,
    checksCreated: 0,
    checksUpdated: 0,
    skipped: 0,
  };
  if (result.alreadyImported) return result;
  if (run && options.restart) {
    const id = run.id;
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('search_console_written').where('import_id', '=', id).execute();
      await trx
        .updateTable('search_console_imports')
        .set({ records_done: 0, status: 'running', started_at: now(), updated_at: now() })
        .where('id', '=', id)
        .execute();
    });
    run = { id: run.id, records_done: 0, status: 'running' };
  }
  // A fresh import reads the file through before it writes: one that ends early (a truncated
  // gzip, ZIP or JSON) or that is no Search Console export changes no rank check.
  if (!run || run.records_done === 0) await checkFile(file, format, dimensions, result.period);
  if (!run) {
    const { id } = await db
      .insertInto('search_console_imports')
      .values({ tracking_id: tracking.id, file_key: key, records_done: 0, status: 'running', started_at: now(), updated_at: now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    run = { id: Number(id), records_done: 0, status: 'running' };
  }
  result.resumedFrom = run.records_done;

  // The rows, and how far through the input they are.
  const input = await openPerformanceRows(file, format, dimensions, result.period);
  result.period = input.period;
  const { rows, bytesDone, bytesTotal } = input;

  const importId = run.id;
  const onDomain = (page: string | null): string | null => {
    if (!page) return null;
    try {
      const host = new URL(page).hostname.toLowerCase();
      const domain = tracking.domain.toLowerCase();
      return host === domain || host.endsWith(`.${domain}`) ? page : null;
    } catch {
      return null;
    }
  };
  /** Writes one row of a tracked keyword: a new check, or its figures added to the day's check. */
  const write = async (trx: Transaction<StateDatabase>, keywordId: string, row: PerformanceRow, day: string, share: number) => {
    const clicks = row.clicks * share;
    const impressions = row.impressions * share;
    // Past 100 the rank tool counts a keyword as not ranking.
    const position = row.position === null || row.position > 100.5 ? null : Math.max(1, Math.round(row.position));
    const existing = await trx
      .selectFrom('rank_checks')
      .select(['position', 'url', 'clicks', 'impressions', 'source'])
      .where('keyword_id', '=', keywordId)
      .where('day', '=', day)
      .executeTakeFirst();
    // Written earlier by this import: a row of the same query and day for another page,
    // device or country, whose figures add to it. Otherwise the row replaces earlier figures.
    const again =
      (await trx
        .selectFrom('search_console_written')
        .select('day')
        .where('import_id', '=', importId)
        .where('keyword_id', '=', keywordId)
        .where('day', '=', day)
        .executeTakeFirst()) !== undefined;
    if (!existing) {
      await trx
        .insertInto('rank_checks')
        .values({
          keyword_id: keywordId,
          day,
          tracking_id: tracking.id,
          position,
          url: onDomain(row.page),
          visual: null,
          features: '[]',
          serp_snapshot_id: null,
          checked_ms: now(),
          clicks,
          impressions,
          source: 'search-console',
        })
        .execute();
      result.checksCreated++;
    } else {
      const before = again ? { clicks: existing.clicks ?? 0, impressions: existing.impressions ?? 0 } : { clicks: 0, impressions: 0 };
      // A SERP check keeps what it saw; a check of the import takes the rows' position,
      // weighted by impressions across the rows of one day.
      let merged = existing.position;
      let url = existing.url;
      if (existing.source === 'search-console') {
        url = onDomain(row.page) ?? (again ? existing.url : null);
        if (!again) merged = position;
        else if (existing.position !== null && position !== null)
          merged = Math.round((existing.position * before.impressions + position * impressions) / Math.max(1e-9, before.impressions + impressions));
        else merged = existing.position ?? position;
      }
      await trx
        .updateTable('rank_checks')
        .set({ position: merged, url, clicks: before.clicks + clicks, impressions: before.impressions + impressions })
        .where('keyword_id', '=', keywordId)
        .where('day', '=', day)
        .execute();
      result.checksUpdated++;
    }
    await trx
      .insertInto('search_console_written')
      .values({ import_id: importId, keyword_id: keywordId, day })
      .onConflict((oc) => oc.doNothing())
      .execute();
  };

  let index = 0;
  let batch: PerformanceRow[] = [];
  const commit = async () => {
    await db.transaction().execute(async (trx) => {
      for (const row of batch) {
        const keywordId = keywords.get(normaliseKeyword(row.query));
        if (keywordId === undefined) {
          result.untracked++;
          continue;
        }
        result.matched++;
        if (row.day !== null) await write(trx, keywordId, row, row.day, 1);
        else await write(trx, keywordId, row, result.period!.to, 1 / periodDays(result.period!));
      }
      await trx.updateTable('search_console_imports').set({ records_done: index, updated_at: now() }).where('id', '=', importId).execute();
    });
    batch = [];
    progress('read Search Console (bytes)', bytesDone(), bytesTotal);
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('import aborted');
  };
  try {
    for await (const row of rows) {
      index++;
      if (index <= run.records_done) continue;
      result.rows++;
      if (row === null) {
        result.skipped++;
        continue;
      }
      if (row.day === null && !result.period)
        throw new ImportError(
          `${file}: the export has no dates; name the period it covers (--period FROM..TO), or import the report's ZIP export, whose Dates sheet gives it`,
        );
      batch.push(row);
      if (batch.length >= batchSize) await commit();
    }
    await commit();
  } finally {
    input.close();
  }
  progress('read Search Console (bytes)', bytesTotal, bytesTotal);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('search_console_written').where('import_id', '=', importId).execute();
    await trx.updateTable('search_console_imports').set({ status: 'done', updated_at: now() }).where('id', '=', importId).execute();
  });
  return result;
}

/** Reads a file's rows to the end without writing; refuses it as the import would, before any write. */
async function checkFile(file: string, format: PerformanceFormat, dimensions: string[] | undefined, period: Period | null): Promise<void> {
  let input: PerformanceRows;
  try {
    input = await openPerformanceRows(file, format, dimensions, period);
  } catch (error) {
    throw error instanceof ImportError ? error : new ImportError(`${file}: cannot read the file: ${(error as Error).message}`);
  }
  let rows = 0;
  try {
    for await (const row of input.rows) {
      rows++;
      if (row?.day === null && !input.period)
        throw new ImportError(
          `${file}: the export has no dates; name the period it covers (--period FROM..TO), or import the report's ZIP export, whose Dates sheet gives it`,
        );
    }
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`${file}: cannot read the file to its end (${(error as Error).message}); nothing was imported`);
  } finally {
    input.close();
  }
  if (rows === 0) throw new ImportError(`${file}: holds no rows of performance data; nothing was imported`);
}
