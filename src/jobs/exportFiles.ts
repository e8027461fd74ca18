/**
 * Export files: a CSV streamed from an iterable of rows into a temporary file in the
 * exports directory, flushed to disk, and renamed to its final name only when it is
 * complete. rename(2) within one directory is atomic, so the final name always holds a
 * whole file or nothing; a crash leaves at most a temporary file, which the next attempt
 * (or the sweep) removes. Memory stays flat whatever the row count: rows are encoded
 * (lib/csv.ts) straight into UTF-8 chunks of `CHUNK_BYTES`, and the next chunk is made
 * only when the file stream asks for more (backpressure), so the source is not read
 * further while the file falls behind.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { csvRecord } from '../lib/csv.js';

/**
 * A row: its fields in column order, an object whose column keys hold them, or the row
 * already encoded as `csvRecord` would (a string ending in `\n`), for sources that
 * encode faster than the generic encoder (backlink exports).
 */
export type CsvRow = Record<string, unknown> | readonly unknown[] | string;

/** A column: its key, or its key and a header other than the key. */
export type CsvColumn = string | { key: string; header?: string };

/**
 * Bytes per write to the file: large enough that the per-write cost (a stream call,
 * eventually a write(2)) disappears behind the rows, small enough to keep memory flat.
 */
const CHUNK_BYTES = 64 * 1024;
/** A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, 4 for 2 units). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/** What a CSV is made of, and how its writing is followed. */
export interface CsvRowsOptions {
  /** Column keys (and headers) in order; with object rows, keys select the fields. */
  columns: ReadonlyArray<CsvColumn>;
  rows: AsyncIterable<CsvRow> | Iterable<CsvRow>;
  signal?: AbortSignal;
  /** Called with the number of rows written so far, every `progressEvery` rows and at the end. */
  onProgress?: (rowsWritten: number) => void;
  /** Default 10,000. */
  progressEvery?: number;
}

/** An export to write: its rows, its final name and the attempt writing it. */
export interface ExportWrite extends CsvRowsOptions {
  /** The final file name, e.g. `<jobId>.csv`. */
  fileName: string;
  /** Distinguishes this attempt's temporary copy from a dead attempt's. */
  attemptTag: string;
}

export interface CsvExportOptions extends ExportWrite {
  /** The directory that holds finished exports (created if missing). */
  dir: string;
}

/** A finished export written by `ExportFiles.write`. */
export interface ExportWritten {
  fileName: string;
  rows: number;
  bytes: number;
}

/** A finished export opened for reading. */
export interface ExportFile {
  /** Bytes. */
  size: number;
  /** Its bytes, once; the stream releases what the file holds when it ends or fails. */
  stream(): Readable;
  /** Releases the file without reading it (a HEAD request). */
  close(): Promise<void>;
}

/**
 * Where finished exports live: files in the data directory's exports/ folder (the embedded
 * mode, diskExportFiles), or chunks in PostgreSQL (the scale mode, postgresExportFiles.ts),
 * so that any API process can serve what any worker wrote. Both write atomically: a reader
 * sees a whole export or none, and a crashed attempt leaves only a temporary copy.
 */
export interface ExportFiles {
  /** Writes the rows as CSV (header first) under `fileName`, replacing an earlier one. */
  write(options: ExportWrite): Promise<ExportWritten>;
  /** The finished export, or null when there is none. */
  open(fileName: string): Promise<ExportFile | null>;
  /** Removes a finished export; false when it was already gone. */
  remove(fileName: string): Promise<boolean>;
  /** Removes the temporary copies that earlier (crashed) attempts left for `fileName`. */
  removeTemps(fileName: string): Promise<number>;
  /** Ids of the jobs whose export (`<jobId>.csv`) has temporary copies. */
  tempOwners(): Promise<string[]>;
}

/** Refuses a file name that is not a plain name (a path, a hidden file). */
export function checkExportFileName(fileName: string): void {
  if (fileName.includes('/') || fileName.includes('\\') || fileName.startsWith('.') || fileName === '') {
    throw new Error(`invalid export file name ${fileName}`);
  }
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
  checkExportFileName(fileName);
  await fs.promises.mkdir(dir, { recursive: true });
  await removeTempFiles(dir, fileName);
  const finalPath = path.join(dir, fileName);
  const tempPath = path.join(dir, tempFileName(fileName, options.attemptTag));
  const out = fs.createWriteStream(tempPath, { flags: 'wx', highWaterMark: 256 * 1024 });
  const counted = { rows: 0 };
  try {
    // pipeline writes each chunk and asks for the next only once the file has room, and
    // on an abort or a failed write destroys the file stream and ends the source.
    await pipeline(csvChunks(options, counted), out, { signal: options.signal });
    options.signal?.throwIfAborted();
    await fsyncPath(tempPath);
    const { size } = await fs.promises.stat(tempPath);
    await fs.promises.rename(tempPath, finalPath);
    await fsyncPath(dir);
    options.onProgress?.(counted.rows);
    return { path: finalPath, fileName, rows: counted.rows, bytes: size };
  } catch (err) {
    out.destroy();
    await fs.promises.rm(tempPath, { force: true });
    // The stream machinery wraps an abort in its own AbortError; the caller wants its reason.
    throw options.signal?.aborted ? options.signal.reason : err;
  }
}

/**
 * The CSV of an export, header first, as UTF-8 chunks of about `CHUNK_BYTES`. Each
 * record is encoded into the current chunk as it comes: one short string per row and
 * no long string to flatten and re-encode at write time. Counts the rows into `counted`
 * and reports progress as rows are taken from the source.
 */
export async function* csvChunks(options: CsvRowsOptions, counted: { rows: number }): AsyncGenerator<Buffer> {
  const { columns, onProgress, signal } = options;
  const every = Math.max(1, options.progressEvery ?? 10_000);
  const keys = columns.map((column) => (typeof column === 'string' ? column : column.key));
  const width = keys.length;
  // Array rows give their fields in column order (extra fields are left out); object
  // rows give them under the column keys.
  const fieldsOf = (row: Exclude<CsvRow, string>): ArrayLike<unknown> => {
    if (!Array.isArray(row)) return keys.map((key) => (row as Record<string, unknown>)[key]);
    return row.length > width ? row.slice(0, width) : row;
  };
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  /** Encodes one record; returns the filled chunk when the record did not fit in it. */
  const encode = (record: string): Buffer | undefined => {
    const room = record.length * MAX_UTF8_BYTES_PER_UNIT;
    let filled: Buffer | undefined;
    if (used + room > chunk.length) {
      if (used > 0) filled = chunk.subarray(0, used);
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room));
      used = 0;
    }
    used += chunk.write(record, used);
    return filled;
  };
  encode(csvRecord(columns.map((column) => (typeof column === 'string' ? column : (column.header ?? column.key)))));
  let rows = 0;
  /** Adds one row; returns the chunk it filled, if any. */
  const add = (row: CsvRow): Buffer | undefined => {
    const filled = encode(typeof row === 'string' ? row : csvRecord(fieldsOf(row)));
    counted.rows = ++rows;
    if (onProgress && rows % every === 0) onProgress(rows);
    return filled;
  };
  // A synchronous source (rows in memory, a better-sqlite3 cursor) is iterated without a
  // promise per row; only a full chunk makes it wait.
  if (Symbol.iterator in options.rows) {
    for (const row of options.rows as Iterable<CsvRow>) {
      const filled = add(row);
      if (filled) yield filled;
    }
  } else {
    for await (const row of options.rows) {
      signal?.throwIfAborted();
      const filled = add(row);
      if (filled) yield filled;
    }
  }
  if (used > 0) yield chunk.subarray(0, used);
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

/** The exports of the embedded mode: files in `dir` (`<dataDir>/exports`). */
export function diskExportFiles(dir: string): ExportFiles {
  return {
    async write(options) {
      const { fileName, rows, bytes } = await writeCsvExport({ ...options, dir });
      return { fileName, rows, bytes };
    },
    async open(fileName) {
      checkExportFileName(fileName);
      let handle: fs.promises.FileHandle;
      try {
        handle = await fs.promises.open(path.join(dir, fileName), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      // The open handle keeps the bytes readable even if the sweep unlinks the file meanwhile.
      const { size } = await handle.stat();
      return { size, stream: () => handle.createReadStream(), close: () => handle.close() };
    },
    remove: (fileName) => removeExportFile(dir, fileName),
    removeTemps: (fileName) => removeTempFiles(dir, fileName),
    tempOwners: () => tempFileOwners(dir),
  };
}
