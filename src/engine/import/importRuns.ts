/**
 * Resume state of the streaming importers (research store table `import_runs`, migration
 * 0015). An import commits its records in batches, and each batch's transaction also records
 * how many records are done (its changed links are logged in `link_changes` by the same
 * transaction); after a crash the same file (same path, size and mtime) resumes after the
 * last committed batch, and the metrics update at the end still covers every link the
 * earlier attempt changed. A finished file is not imported twice unless asked.
 */
import fs from 'node:fs';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { ImportError } from './importError.js';

export interface ImportRun {
  id: number;
  /** Records committed by earlier attempts (skipped by this one). */
  recordsDone: number;
  /** running: records left to read; read: all read, link metrics not updated yet; done. */
  status: 'running' | 'read' | 'done';
}

export function fileKey(kind: string, file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new ImportError(`${file}: no such file`);
  }
  if (!stat.isFile()) throw new ImportError(`${file}: not a file`);
  return `${kind}:${path.resolve(file)}:${stat.size}:${Math.floor(stat.mtimeMs)}`;
}

/** The run of this file: a new one, the unfinished one to resume, or (with `restart`) a fresh start. */
export function beginRun(raw: SqliteDatabase.Database, kind: string, file: string, now: number, restart = false): ImportRun {
  const key = fileKey(kind, file);
  const existing = raw.prepare('SELECT id, records_done, status FROM import_runs WHERE file_key = ?').get(key) as
    { id: number; records_done: number; status: string } | undefined;
  if (existing && !restart) {
    const status = existing.status === 'done' || existing.status === 'read' ? existing.status : 'running';
    return { id: existing.id, recordsDone: existing.records_done, status };
  }
  if (existing) {
    raw.prepare("UPDATE import_runs SET records_done = 0, status = 'running', started_at = ?, updated_at = ? WHERE id = ?").run(now, now, existing.id);
    return { id: existing.id, recordsDone: 0, status: 'running' };
  }
  const id = raw
    .prepare("INSERT INTO import_runs (kind, file_key, records_done, status, started_at, updated_at) VALUES (?, ?, 0, 'running', ?, ?)")
    .run(kind, key, now, now).lastInsertRowid as number;
  return { id: Number(id), recordsDone: 0, status: 'running' };
}

/** Records a committed batch; call it inside the batch's transaction. */
export function recordBatch(raw: SqliteDatabase.Database, run: ImportRun, recordsDone: number, now: number): void {
  raw.prepare('UPDATE import_runs SET records_done = ?, updated_at = ? WHERE id = ?').run(recordsDone, now, run.id);
  run.recordsDone = recordsDone;
}

/** Marks every record of the run read; its touched domains wait for a metrics update. */
export function markRead(raw: SqliteDatabase.Database, run: ImportRun, now: number): void {
  raw.prepare("UPDATE import_runs SET status = 'read', updated_at = ? WHERE id = ?").run(now, run.id);
  run.status = 'read';
}

/** After a metrics update (which covers every pending run's changes, logged in `link_changes`): every read run is done. */
export function finishPendingRuns(raw: SqliteDatabase.Database, now: number): void {
  raw.prepare("UPDATE import_runs SET status = 'done', updated_at = ? WHERE status = 'read'").run(now);
}

/** Marks the run done once its metrics are updated. */
export function finishRun(raw: SqliteDatabase.Database, run: ImportRun, now: number): void {
  raw.prepare("UPDATE import_runs SET status = 'done', updated_at = ? WHERE id = ?").run(now, run.id);
  run.status = 'done';
}
