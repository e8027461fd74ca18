/**
 * Export files: a CSV streamed from rows into a temporary file in the exports directory,
 * flushed to disk, and renamed to its final name only when it is complete. rename(2)
 * within one directory is atomic, so the final name always holds a whole file or nothing;
 * a crash leaves at most a temporary file, which the next attempt (or the sweep) removes.
 * Memory stays flat whatever the row count: rows are encoded (lib/csv.ts) straight into
 * UTF-8 chunks of `CHUNK_BYTES` in two buffers used in turn, and the next chunk is made
 * only while the one before it is being written, so the source is not read further while
 * the file falls behind.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { csvRecord, isCsvRecordSource, type CsvRecordSource } from '../lib/csv.js';

/**
 * A row: its fields in column order, an object whose column keys hold them, or the row
 * already encoded as `csvRecord` would (a string ending in `\n`).
 */
export type CsvRow = Record<string, unknown> | readonly unknown[] | string;

/** A column: its key, or its key and a header other than the key. */
export type CsvColumn = string | { key: string; header?: string };

/**
 * Bytes per write to the file: large enough that the per-write cost (a file system
 * request on libuv's thread pool, a write(2)) disappears behind the rows, small enough to
 * keep memory flat.
 */
export const CHUNK_BYTES = 256 * 1024;
/** A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, 4 for 2 units). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/** What a CSV is made of, and how its writing is followed. */
export interface CsvRowsOptions {
  /** Column keys (and headers) in order; with object rows, keys select the fields. */
  columns: ReadonlyArray<CsvColumn>;
  /** Rows, or a source that encodes its own records (closed when the writing ends, however it ends). */
  rows: AsyncIterable<CsvRow> | Iterable<CsvRow> | CsvRecordSource;
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
  /** Ids of the jobs whose export (`<jobId>.csv`) is stored finished. */
  owners(): Promise<string[]>;
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

/** The entries of `dir`; none when it does not exist yet (nothing was exported there). */
async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Removes the temporary files that earlier (crashed) attempts left for `fileName`. */
export async function removeTempFiles(dir: string, fileName: string): Promise<number> {
  const entries = await listDir(dir);
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
  const entries = await listDir(dir);
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

/** Ids of the jobs whose finished export (`<jobId>.csv`) is in `dir`. */
export async function finishedFileOwners(dir: string): Promise<string[]> {
  const entries = await listDir(dir);
  // Temporary copies are hidden (a leading dot); a finished export is `<jobId>.csv`.
  return entries.filter((entry) => !entry.startsWith('.') && entry.endsWith('.csv')).map((entry) => entry.slice(0, -'.csv'.length));
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
  const out = await fs.promises.open(tempPath, 'wx');
  const counted = { rows: 0 };
  let closed = false;
  let writing: Promise<void> | undefined;
  try {
    // One write in flight while the next chunk is encoded into the other buffer (csvChunks'
    // `buffers: 2`); on an abort or a failed write the loop ends, which ends the source.
    for await (const chunk of csvChunks(options, counted, { buffers: 2 })) {
      await writing;
      options.signal?.throwIfAborted();
      writing = writeAll(out, chunk);
    }
    await writing;
    options.signal?.throwIfAborted();
    await out.sync();
    const { size } = await out.stat();
    await out.close();
    closed = true;
    await fs.promises.rename(tempPath, finalPath);
    await fsyncPath(dir);
    options.onProgress?.(counted.rows);
    return { path: finalPath, fileName, rows: counted.rows, bytes: size };
  } catch (err) {
    await writing?.catch(() => undefined);
    if (!closed) await out.close().catch(() => undefined);
    await fs.promises.rm(tempPath, { force: true });
    throw options.signal?.aborted ? options.signal.reason : err;
  }
}

/** Writes the whole chunk at the file's current end (a write may take fewer bytes than asked). */
async function writeAll(file: fs.promises.FileHandle, chunk: Buffer): Promise<void> {
  for (let done = 0; done < chunk.length;) done += (await file.write(chunk, done, chunk.length - done)).bytesWritten;
}

/**
 * The CSV of an export, header first, as UTF-8 chunks of about `CHUNK_BYTES`. Each
 * record is encoded into the current chunk as it comes: one short string per row and
 * no long string to flatten and re-encode at write time (a `CsvRecordSource` writes its
 * bytes itself). Counts the rows into `counted` and reports progress as rows are taken
 * from the source.
 *
 * The chunks are views of `buffers` buffers (default 1) used in turn: a chunk stays valid
 * until `buffers` more chunks have been asked for, so a consumer copies it, or writes it
 * before it asks for that many more.
 */
export async function* csvChunks(options: CsvRowsOptions, counted: { rows: number }, reuse: { buffers?: number } = {}): AsyncGenerator<Buffer> {
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
  const pool = Array.from({ length: Math.max(1, reuse.buffers ?? 1) }, () => Buffer.allocUnsafe(CHUNK_BYTES));
  let turn = 0;
  let chunk = pool[0];
  let used = 0;
  /** True when `bytes` more do not fit in the current chunk: it is to be handed out, then `advance`d from. */
  const full = (bytes: number): boolean => used + bytes > chunk.length;
  /**
   * Goes on in the next buffer of the pool, once the chunk before has been handed out
   * (never before: the consumer may still be writing the buffer it takes over). A record
   * larger than a buffer gets one of its own.
   */
  const advance = (bytes: number): void => {
    if (bytes > CHUNK_BYTES) chunk = Buffer.allocUnsafe(bytes);
    else chunk = pool[(turn = (turn + 1) % pool.length)];
    used = 0;
  };
  let rows = 0;
  const header = csvRecord(columns.map((column) => (typeof column === 'string' ? column : (column.header ?? column.key))));
  if (full(header.length * MAX_UTF8_BYTES_PER_UNIT)) advance(header.length * MAX_UTF8_BYTES_PER_UNIT);
  used += chunk.write(header, used);
  const source = options.rows;
  if (isCsvRecordSource(source)) {
    try {
      // Records written straight into the chunk, up to the next progress report at a time.
      for (let need = source.nextRecordBytes(); need > 0; need = source.nextRecordBytes()) {
        if (full(need)) {
          if (used > 0) yield chunk.subarray(0, used);
          advance(need);
        }
        used = source.writeRecords(chunk, used, every - (rows % every));
        counted.rows = rows = source.written;
        if (onProgress && rows % every === 0) onProgress(rows);
      }
    } finally {
      source.close();
    }
    if (used > 0) yield chunk.subarray(0, used);
    return;
  }
  // A synchronous source (rows in memory, a better-sqlite3 cursor) is iterated without a
  // promise per row; only a full chunk makes it wait.
  const sync = Symbol.iterator in source;
  const iterator = sync ? (source as Iterable<CsvRow>)[Symbol.iterator]() : (source as AsyncIterable<CsvRow>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = sync ? (iterator as Iterator<CsvRow>).next() : await iterator.next();
      if (next.done) break;
      if (!sync) signal?.throwIfAborted();
      const row = next.value;
      const record = typeof row === 'string' ? row : csvRecord(fieldsOf(row));
      const bytes = record.length * MAX_UTF8_BYTES_PER_UNIT;
      if (full(bytes)) {
        if (used > 0) yield chunk.subarray(0, used);
        advance(bytes);
      }
      used += chunk.write(record, used);
      counted.rows = ++rows;
      if (onProgress && rows % every === 0) onProgress(rows);
    }
  } finally {
    // Stopped early (an abort, a failed write): the source ends too.
    await iterator.return?.();
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
    owners: () => finishedFileOwners(dir),
  };
}
