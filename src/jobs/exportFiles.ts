/**
 * Export files: a CSV streamed from an async iterable of rows into a temporary file in
 * the exports directory, flushed to disk, and renamed to its final name only when it is
 * complete. rename(2) within one directory is atomic, so the final name always holds a
 * whole file or nothing; a crash leaves at most a temporary file, which the next attempt
 * (or the sweep) removes. Memory stays flat whatever the row count: rows go through
 * csv-stringify into the file stream, and the source is not read further while the
 * file falls behind (backpressure).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { stringify, type ColumnOption } from 'csv-stringify';

export type CsvRow = Record<string, unknown> | unknown[];

export interface CsvExportOptions {
  /** The directory that holds finished exports (created if missing). */
  dir: string;
  /** The final file name inside `dir`, e.g. `<jobId>.csv`. */
  fileName: string;
  /** Distinguishes this attempt's temporary file from a dead attempt's. */
  attemptTag: string;
  /** Column keys (and headers) in order; with object rows, keys select the fields. */
  columns: ReadonlyArray<string | ColumnOption>;
  rows: AsyncIterable<CsvRow> | Iterable<CsvRow>;
  signal?: AbortSignal;
  /** Called with the number of rows written so far, every `progressEvery` rows and at the end. */
  onProgress?: (rowsWritten: number) => void;
  /** Default 10,000. */
  progressEvery?: number;
}

export interface CsvExportResult {
  /** Absolute path of the finished file. */
  path: string;
  fileName: string;
  rows: number;
  bytes: number;
}

const TEMP_SUFFIX = '.tmp';

/** The temporary name of an attempt: hidden, and never mistaken for a finished export. */
export function tempFileName(fileName: string, attemptTag: string): string {
  return `.${fileName}.${attemptTag}${TEMP_SUFFIX}`;
}

function isTempOf(entry: string, fileName: string): boolean {
  return entry.startsWith(`.${fileName}.`) && entry.endsWith(TEMP_SUFFIX);
}

/** Removes the temporary files that earlier (crashed) attempts left for `fileName`. */
export async function removeTempFiles(dir: string, fileName: string): Promise<number> {
  let entries: string[];
  try {
    entries = await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const entry of entries) {
    if (!isTempOf(entry, fileName)) continue;
    await fs.promises.rm(path.join(dir, entry), { force: true });
    removed++;
  }
  return removed;
}

/** The final file names that have temporary files in `dir` (finished or crashed attempts). */
async function tempFileNames(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const names = new Set<string>();
  for (const entry of entries) {
    const match = /^\.(.+\.csv)\.[^.]+\.tmp$/.exec(entry);
    if (match) names.add(match[1]);
  }
  return [...names];
}

/** Ids of the jobs whose export (`<jobId>.csv`) has temporary files in `dir`. */
export async function tempFileOwners(dir: string): Promise<string[]> {
  return (await tempFileNames(dir)).map((name) => name.slice(0, -'.csv'.length));
}

/** Makes a finished write or rename durable: data and directory entry survive a power cut. */
async function fsyncPath(target: string): Promise<void> {
  const handle = await fs.promises.open(target, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `rows` as CSV (with a header row) to `<dir>/<fileName>`, atomically.
 *
 * @example
 * await writeCsvExport({ dir, fileName: `${job.id}.csv`, attemptTag: String(job.attempts),
 *   columns: ['source', 'target'], rows: links(), onProgress: (n) => ctx.progress(n, total) });
 */
export async function writeCsvExport(options: CsvExportOptions): Promise<CsvExportResult> {
  const { dir, fileName } = options;
  if (fileName.includes('/') || fileName.includes('\\') || fileName.startsWith('.')) {
    throw new Error(`invalid export file name ${fileName}`);
  }
  await fs.promises.mkdir(dir, { recursive: true });
  await removeTempFiles(dir, fileName);
  const finalPath = path.join(dir, fileName);
  const tempPath = path.join(dir, tempFileName(fileName, options.attemptTag));
  const every = Math.max(1, options.progressEvery ?? 10_000);
  const onProgress = options.onProgress;
  let rows = 0;

  const stringifier = stringify({ header: true, columns: options.columns, cast: { boolean: (v) => (v ? 'true' : 'false') } });
  const out = fs.createWriteStream(tempPath, { flags: 'wx', highWaterMark: 256 * 1024 });
  const written = pipeline(stringifier, out, { signal: options.signal });
  // An abort rejects `written` at once, maybe while this function awaits the source; it
  // is awaited (and its error handled) below, so it must not count as unhandled meanwhile.
  written.catch(() => undefined);
  // Writes one row; resolves only once the stringifier has room again (backpressure).
  const push = (row: CsvRow): Promise<void> | undefined => {
    rows++;
    if (onProgress && rows % every === 0) onProgress(rows);
    if (stringifier.write(row)) return undefined;
    return once(stringifier, 'drain', { signal: options.signal }).then(() => undefined);
  };
  try {
    // A synchronous source (rows in memory, a better-sqlite3 cursor) is iterated without
    // a promise per row; only backpressure makes it wait.
    if (Symbol.iterator in options.rows) {
      for (const row of options.rows as Iterable<CsvRow>) {
        const wait = push(row);
        if (wait) await wait;
      }
    } else {
      for await (const row of options.rows) {
        options.signal?.throwIfAborted();
        const wait = push(row);
        if (wait) await wait;
      }
    }
    options.signal?.throwIfAborted();
    stringifier.end();
    await written;
    await fsyncPath(tempPath);
    const { size } = await fs.promises.stat(tempPath);
    await fs.promises.rename(tempPath, finalPath);
    await fsyncPath(dir);
    onProgress?.(rows);
    return { path: finalPath, fileName, rows, bytes: size };
  } catch (err) {
    stringifier.destroy(err as Error);
    await written.catch(() => undefined);
    await fs.promises.rm(tempPath, { force: true });
    // The stream machinery wraps an abort in its own AbortError; the caller wants its reason.
    throw options.signal?.aborted ? options.signal.reason : err;
  }
}

/** Removes a finished export; false when it was already gone. */
export async function removeExportFile(dir: string, fileName: string): Promise<boolean> {
  try {
    await fs.promises.unlink(path.join(dir, fileName));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
