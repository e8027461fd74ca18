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
import fs from 'node:fs';
import { Readable, Transform, type Duplex } from 'node:stream';
import type { Kysely, Transaction } from 'kysely';
import { parse as parseCsv } from 'csv-parse';
import { parser as jsonParser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamValues } from 'stream-json/streamers/stream-values.js';
import yauzl from 'yauzl';
import { ImportError } from '../engine/import/importError.js';
import { openInputFile } from '../engine/import/inputFile.js';
import { fileKey } from '../engine/import/importRuns.js';
import { parseLooseNumber } from '../engine/import/csvFile.js';
import { normaliseKeyword } from '../engine/search/text.js';
import type { StateDatabase } from '../store/schema.js';

/** One row of performance data: a query's figures on a day, or over the export's period (`day` null). */
export interface PerformanceRow {
  query: string;
  day: string | null;
  page: string | null;
  clicks: number;
  impressions: number;
  /** Average position (1 = top), null when not given. */
  position: number | null;
}

/** Inclusive UTC days, YYYY-MM-DD. */
export interface Period {
  from: string;
  to: string;
}

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
  format: 'csv' | 'zip' | 'json';
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

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const DIMENSIONS = ['query', 'page', 'date', 'country', 'device', 'searchappearance', 'hour'];

function validDay(text: string): boolean {
  return DAY_RE.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

/** `2026-10-01..2026-10-28` (or one day). */
export function parsePeriod(text: string): Period {
  const [from, to = from] = text.split('..').map((s) => s.trim());
  if (!validDay(from) || !validDay(to) || to < from) throw new ImportError(`a period is FROM..TO in YYYY-MM-DD, got ${JSON.stringify(text)}`);
  return { from, to };
}

export const periodDays = (p: Period): number => Math.round((Date.parse(`${p.to}T00:00:00Z`) - Date.parse(`${p.from}T00:00:00Z`)) / DAY_MS) + 1;

// --- CSV ---------------------------------------------------------------------------------

interface CsvColumns {
  query: number;
  date: number;
  page: number;
  clicks: number;
  impressions: number;
  position: number;
}

const HEADER_NAMES: Record<keyof CsvColumns, string[]> = {
  query: ['top queries', 'query', 'queries', 'search query'],
  date: ['date', 'day', 'data_date'],
  page: ['top pages', 'page', 'landing page', 'url'],
  clicks: ['clicks', 'url clicks'],
  impressions: ['impressions'],
  position: ['position', 'average position', 'avg. position'],
};

/** Column indexes of a Search Console CSV header; null when it is not one (no clicks or impressions). */
export function csvColumns(header: string[]): CsvColumns | null {
  const lower = header.map((h) =>
    h
      .replace(/^\uFEFF/, '')
      .trim()
      .toLowerCase(),
  );
  const find = (names: string[]) => lower.findIndex((h) => names.includes(h));
  const columns = Object.fromEntries(Object.entries(HEADER_NAMES).map(([key, names]) => [key, find(names)])) as unknown as CsvColumns;
  return columns.clicks >= 0 && columns.impressions >= 0 ? columns : null;
}

/** A data row of a Search Console CSV; null when it lacks a query, a valid date (when dated) or numbers. */
export function parseCsvRow(cells: string[], columns: CsvColumns): PerformanceRow | null {
  const query = columns.query >= 0 ? (cells[columns.query] ?? '').trim() : '';
  const day = columns.date >= 0 ? (cells[columns.date] ?? '').trim() : null;
  const clicks = parseLooseNumber(cells[columns.clicks]);
  const impressions = parseLooseNumber(cells[columns.impressions]);
  const position = columns.position >= 0 ? parseLooseNumber(cells[columns.position]) : null;
  if (query === '' || clicks === null || impressions === null || (day !== null && !validDay(day))) return null;
  const page = columns.page >= 0 ? (cells[columns.page] ?? '').trim() || null : null;
  return { query, day, page, clicks, impressions, position: position !== null && position > 0 ? position : null };
}

/** The CSV records of a byte stream (UTF-8, with or without BOM; comma- or tab-separated). */
async function* csvRecords(stream: Readable): AsyncGenerator<string[]> {
  const { first, rest } = await peek(stream);
  const head = first.subarray(0, 4096).toString('utf8');
  const line = head.split(/\r?\n/, 1)[0];
  const delimiter = (line.match(/\t/g)?.length ?? 0) > (line.match(/,/g)?.length ?? 0) ? '\t' : ',';
  yield* chain(rest, parseCsv({ bom: true, delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true })) as AsyncIterable<string[]>;
}

/** The first chunk of a stream and a stream that still starts with it. */
async function peek(stream: Readable): Promise<{ first: Buffer; rest: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const next = await iterator.next();
  const first: Buffer = next.done ? Buffer.alloc(0) : Buffer.from(next.value);
  async function* all(): AsyncGenerator<Buffer> {
    if (first.length > 0) yield first;
    for (;;) {
      const chunk = await iterator.next();
      if (chunk.done) return;
      yield chunk.value;
    }
  }
  return { first, rest: Readable.from(all(), { objectMode: false }) };
}

/** The rows of a Search Console CSV, header first; `period` is filled in for a CSV of totals. */
async function* csvRows(stream: Readable, what: string): AsyncGenerator<PerformanceRow | null> {
  let columns: CsvColumns | null = null;
  for await (const cells of csvRecords(stream)) {
    if (!columns) {
      columns = csvColumns(cells);
      if (!columns || columns.query < 0)
        throw new ImportError(`${what}: not a Search Console queries export (its header needs a query column, Clicks and Impressions)`);
      continue;
    }
    yield parseCsvRow(cells, columns);
  }
}

/** The period of a Dates sheet: its first and last day. */
async function datesPeriod(stream: Readable, what: string): Promise<Period | null> {
  let columns: CsvColumns | null = null;
  let from: string | null = null;
  let to: string | null = null;
  for await (const cells of csvRecords(stream)) {
    if (!columns) {
      columns = csvColumns(cells);
      if (!columns || columns.date < 0) throw new ImportError(`${what}: not a Search Console Dates sheet (Date, Clicks, Impressions, …)`);
      continue;
    }
    const day = (cells[columns.date] ?? '').trim();
    if (!validDay(day)) continue;
    if (from === null || day < from) from = day;
    if (to === null || day > to) to = day;
  }
  return from !== null && to !== null ? { from, to } : null;
}

// --- API JSON ----------------------------------------------------------------------------

function dimensionOf(key: string): 'date' | 'page' | 'device' | 'searchappearance' | null {
  if (validDay(key)) return 'date';
  if (/^https?:\/\//i.test(key) || key.startsWith('sc-domain:')) return 'page';
  if (/^(DESKTOP|MOBILE|TABLET)$/.test(key)) return 'device';
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(key)) return 'searchappearance';
  return null;
}

/** One Search Analytics API row; null without a query or numbers. `dimensions` names the keys, else their forms tell. */
export function parseApiRow(value: unknown, dimensions?: readonly string[]): PerformanceRow | null {
  if (value === null || typeof value !== 'object') return null;
  const row = value as { keys?: unknown; clicks?: unknown; impressions?: unknown; position?: unknown };
  const keys = Array.isArray(row.keys) ? row.keys.map((k) => String(k)) : [];
  if (typeof row.clicks !== 'number' || typeof row.impressions !== 'number') return null;
  let query: string | null = null;
  let day: string | null = null;
  let page: string | null = null;
  if (dimensions) {
    dimensions.forEach((d, i) => {
      if (d === 'query') query = keys[i] ?? null;
      else if (d === 'date') day = keys[i] ?? null;
      else if (d === 'page') page = keys[i] ?? null;
    });
  } else {
    const rest: string[] = [];
    for (const key of keys) {
      const kind = dimensionOf(key);
      if (kind === 'date') day = key;
      else if (kind === 'page') page = key;
      else if (kind === null) rest.push(key);
    }
    if (rest.length > 1)
      throw new ImportError(`cannot tell which of the keys ${JSON.stringify(rest)} is the query: name the request's dimensions (--dimensions query,country,…)`);
    query = rest[0] ?? null;
  }
  if (query === null || (query as string).trim() === '' || (day !== null && !validDay(day))) return null;
  const position = typeof row.position === 'number' && row.position > 0 ? row.position : null;
  return { query: (query as string).trim(), day, page, clicks: row.clicks, impressions: row.impressions, position };
}

/** Rows of API answers: `{rows: [...]}`, arrays of answers or rows, JSON Lines of answers. */
async function* apiRows(stream: Readable, dimensions: readonly string[] | undefined): AsyncGenerator<PerformanceRow | null> {
  // Picks each row of an answer, or each element of a top-level array (a row, or a whole
  // answer of at most the API's 25,000 rows a page): memory stays bounded by one answer.
  const isIndex = (k: unknown) => typeof k === 'number';
  const values = chain(
    stream,
    jsonParser.asStream({ jsonStreaming: true }),
    pick.asStream({
      filter: (stack) =>
        (stack.length === 1 && isIndex(stack[0])) || (stack.length >= 2 && stack[stack.length - 2] === 'rows' && isIndex(stack[stack.length - 1])),
    }),
    streamValues.asStream(),
  );
  for await (const { value } of values as AsyncIterable<{ value: unknown }>) {
    const nested =
      value !== null && typeof value === 'object' && Array.isArray((value as { rows?: unknown }).rows) ? (value as { rows: unknown[] }).rows : null;
    if (nested) for (const row of nested) yield parseApiRow(row, dimensions);
    else yield parseApiRow(value, dimensions);
  }
}

// --- ZIP ---------------------------------------------------------------------------------

async function readZip(file: string): Promise<{ zip: yauzl.ZipFile; queries: yauzl.Entry; dates: yauzl.Entry | null }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new ImportError(`${file}: cannot read the ZIP file: ${(error as Error).message}`);
  }
  let queries: yauzl.Entry | null = null;
  let dates: yauzl.Entry | null = null;
  for await (const entry of zip.eachEntry()) {
    const name = entry.fileName.split('/').pop()!.toLowerCase();
    if (name === 'queries.csv') queries = entry;
    else if (name === 'dates.csv' || name === 'chart.csv') dates = entry;
  }
  if (!queries) {
    zip.close();
    throw new ImportError(`${file}: the ZIP holds no Queries.csv (export the Performance report's Queries tab)`);
  }
  return { zip, queries, dates };
}

/** A stream of the entry's bytes that counts them as they pass. */
async function entryStream(zip: yauzl.ZipFile, entry: yauzl.Entry, counted: { bytes: number }): Promise<Readable> {
  const stream = await zip.openReadStreamPromise(entry);
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counted.bytes += chunk.length;
      done(null, chunk);
    },
  });
  return chain(stream, counter);
}

/** Pipes the streams into each other; an error of any of them ends the last one. */
function chain(first: Readable, ...rest: Duplex[]): Readable {
  let previous: Readable = first;
  for (const next of rest) {
    const from = previous;
    from.on('error', (error) => next.destroy(error));
    previous = from.pipe(next);
  }
  return previous;
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

  // The format, from the file's first bytes (ZIP) or name (JSON), else CSV.
  const magic = Buffer.alloc(4);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, magic, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  const format: SearchConsoleImportResult['format'] =
    magic.readUInt32LE(0) === 0x04034b50 ? 'zip' : /\.(json|jsonl|ndjson)(\.gz)?$/i.test(file) ? 'json' : 'csv';

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
  let rows: AsyncGenerator<PerformanceRow | null>;
  let bytesDone: () => number;
  let bytesTotal: number;
  let zip: yauzl.ZipFile | null = null;
  if (format === 'zip') {
    const opened = await readZip(file);
    zip = opened.zip;
    if (!result.period && opened.dates)
      result.period = await datesPeriod(await entryStream(zip, opened.dates, { bytes: 0 }), `${file}: ${opened.dates.fileName}`);
    const counted = { bytes: 0 };
    rows = csvRows(await entryStream(zip, opened.queries, counted), `${file}: ${opened.queries.fileName}`);
    bytesDone = () => counted.bytes;
    bytesTotal = opened.queries.uncompressedSize;
  } else {
    const input = openInputFile(file);
    rows = format === 'json' ? apiRows(input.stream, dimensions) : csvRows(input.stream, file);
    bytesDone = input.bytesRead;
    bytesTotal = input.size;
  }

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
    zip?.close();
  }
  progress('read Search Console (bytes)', bytesTotal, bytesTotal);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('search_console_written').where('import_id', '=', importId).execute();
    await trx.updateTable('search_console_imports').set({ status: 'done', updated_at: now() }).where('id', '=', importId).execute();
  });
  return result;
}
