/**
 * The file formats `quarry import search-console` reads (searchConsoleImport.ts has the list):
 * the Performance report's CSV and ZIP exports, dated CSVs and Search Analytics API answers,
 * each as a stream of rows, whatever its size (plain or gzip). `openPerformanceRows` opens a
 * file as rows; the importer reads it twice, once to check it to its end and once to write.
 */
import { Readable, Transform, type Duplex } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { parser as jsonParser } from 'stream-json';
import { pick } from 'stream-json/filters/pick.js';
import { streamValues } from 'stream-json/streamers/stream-values.js';
import yauzl from 'yauzl';
import { ImportError } from '../engine/import/importError.js';
import { fileHead, openInputFile } from '../engine/import/inputFile.js';
import { parseLooseNumber } from '../engine/import/csvFile.js';

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

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
export const DIMENSIONS = ['query', 'page', 'date', 'country', 'device', 'searchappearance', 'hour'];

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

// --- opening a file ----------------------------------------------------------------------

export type PerformanceFormat = 'csv' | 'zip' | 'json';

/** The format, from the file's first bytes (ZIP) or name (JSON), else CSV. */
export function performanceFormat(file: string): PerformanceFormat {
  return fileHead(file, 4).readUInt32LE(0) === 0x04034b50 ? 'zip' : /\.(json|jsonl|ndjson)(\.gz)?$/i.test(file) ? 'json' : 'csv';
}

export interface PerformanceRows {
  rows: AsyncGenerator<PerformanceRow | null>;
  /** The period the export covers: the one given, else a ZIP's Dates sheet's, else null. */
  period: Period | null;
  bytesDone(): number;
  bytesTotal: number;
  close(): void;
}

/** A file's rows (null for a row without a query, a valid date or numbers), as its format reads them. */
export async function openPerformanceRows(
  file: string,
  format: PerformanceFormat,
  dimensions: string[] | undefined,
  period: Period | null,
): Promise<PerformanceRows> {
  if (format === 'zip') {
    const opened = await readZip(file);
    const zip = opened.zip;
    try {
      if (!period && opened.dates) period = await datesPeriod(await entryStream(zip, opened.dates, { bytes: 0 }), `${file}: ${opened.dates.fileName}`);
      const counted = { bytes: 0 };
      const rows = csvRows(await entryStream(zip, opened.queries, counted), `${file}: ${opened.queries.fileName}`);
      return { rows, period, bytesDone: () => counted.bytes, bytesTotal: opened.queries.uncompressedSize, close: () => zip.close() };
    } catch (error) {
      zip.close();
      throw error;
    }
  }
  const input = openInputFile(file);
  const rows = format === 'json' ? apiRows(input.stream, dimensions) : csvRows(input.stream, file);
  return { rows, period, bytesDone: input.bytesRead, bytesTotal: input.size, close: () => input.stream.destroy() };
}
