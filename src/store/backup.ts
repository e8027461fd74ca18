/**
 * `quarry backup DIR`: a consistent copy of an embedded (SQLite) data directory, taken while
 * the service runs. Each database is copied with SQLite's online backup API in one step, so
 * the copy is one read transaction's snapshot: WAL lets writers go on meanwhile, and a copy
 * made in many small steps would start over each time another process wrote (for ever,
 * under a steady write load). The other files are copied as they are: the URL-signing secret
 * and the demo key, export files and report e-mails waiting in the outbox. Lock files, WAL
 * and shared-memory files are not: the copied databases are complete without them.
 *
 * In the scale mode the state store is on PostgreSQL: the backup runs `pg_dump` first (one
 * snapshot of its own, in the custom format, into state.pgdump), then copies the data
 * directory as above (the research store and the files); the export files are in the dump
 * (src/jobs/postgresExportFiles.ts), so every export a dumped job names is in the copy. Restore with `pg_restore` into a new database (docs/operations.md).
 * Redis holds only counters of running periods and windows; it is not copied.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';

/** The file of a backup that holds the PostgreSQL state store's dump (pg_dump's custom format). */
export const POSTGRES_DUMP_FILE = 'state.pgdump';

export class BackupError extends Error {}

export interface BackupOptions {
  /** Skip the export files (they can be gigabytes; their jobs then show as expired downloads). */
  withoutExports?: boolean;
  /** The scale mode's state store (QUARRY_DATABASE_URL): dumped with pg_dump into the backup. */
  databaseUrl?: string | null;
}

export interface BackupReport {
  databases: { name: string; pages: number }[];
  /** The PostgreSQL dump's size in bytes (scale mode). */
  postgresDumpBytes?: number;
  files: number;
  bytes: number;
}

/** Files that belong to a live SQLite connection or a process lock, never to a backup. */
function transient(name: string): boolean {
  return /(\.lock|-wal|-shm|-journal)$/.test(name);
}

/** Whether a file starts with SQLite's header. */
function isSqlite(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    return fs.readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    fs.closeSync(fd);
  }
}

export async function backupDataDir(dataDir: string, target: string, options: BackupOptions = {}): Promise<BackupReport> {
  if (!fs.existsSync(dataDir) || !fs.statSync(dataDir).isDirectory()) throw new BackupError(`no data directory at ${dataDir}`);
  const source = fs.realpathSync(dataDir);
  const dest = path.resolve(target);
  if (dest === source || dest.startsWith(source + path.sep)) throw new BackupError(`the backup directory ${dest} must be outside the data directory`);
  if (fs.existsSync(dest) && (!fs.statSync(dest).isDirectory() || fs.readdirSync(dest).length > 0))
    throw new BackupError(`${dest} exists and is not an empty directory: a backup never overwrites`);
  fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
  fs.chmodSync(dest, 0o700);

  const report: BackupReport = { databases: [], files: 0, bytes: 0 };
  if (options.databaseUrl) report.postgresDumpBytes = await dumpPostgres(options.databaseUrl, path.join(dest, POSTGRES_DUMP_FILE));
  const entries = fs.readdirSync(source, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const from = path.join(source, entry.name);
    const to = path.join(dest, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'exports' && options.withoutExports) continue;
      fs.cpSync(from, to, { recursive: true, filter: (f) => !transient(f) });
      for (const f of fs.readdirSync(to, { recursive: true, withFileTypes: true })) {
        if (f.isFile()) {
          report.files++;
          report.bytes += fs.statSync(path.join(f.parentPath, f.name)).size;
        }
      }
      continue;
    }
    if (!entry.isFile() || transient(entry.name)) continue;
    if (isSqlite(from)) {
      const db = new SqliteDatabase(from, { readonly: true, fileMustExist: true });
      try {
        db.pragma('busy_timeout = 5000');
        // One step of every page: one snapshot, no restart when another process writes.
        const progress = await db.backup(to, { progress: () => 0x7fffffff });
        report.databases.push({ name: entry.name, pages: progress.totalPages });
      } finally {
        db.close();
      }
    } else {
      fs.copyFileSync(from, to);
    }
    fs.chmodSync(to, 0o600);
    report.files++;
    report.bytes += fs.statSync(to).size;
  }
  if (report.databases.length === 0) throw new BackupError(`no SQLite database in ${source}: is it a Quarry data directory?`);
  return report;
}

/**
 * Dumps a PostgreSQL database with `pg_dump` (custom format, no owners, so that it restores
 * under any role), returning the dump's size. The password goes in the environment, not on
 * the command line where other users' `ps` would show it.
 */
async function dumpPostgres(databaseUrl: string, file: string): Promise<number> {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  try {
    await promisify(execFile)('pg_dump', ['--format=custom', '--no-owner', '--file', file, '--dbname', url.toString()], {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new BackupError('pg_dump was not found: install the PostgreSQL client tools (the server’s major version or newer)');
    throw new BackupError(`pg_dump failed: ${(e.stderr ?? e.message).trim()}`);
  }
  fs.chmodSync(file, 0o600);
  return fs.statSync(file).size;
}
