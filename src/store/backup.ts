/**
 * `quarry backup DIR`: a consistent copy of an embedded (SQLite) data directory, taken while
 * the service runs. Each database is copied with SQLite's online backup API in one step, so
 * the copy is one read transaction's snapshot: WAL lets writers go on meanwhile, and a copy
 * made in many small steps would start over each time another process wrote (for ever,
 * under a steady write load). The other files are copied as they are: the URL-signing secret
 * and the demo key, export files and report e-mails waiting in the outbox. Lock files, WAL
 * and shared-memory files are not: the copied databases are complete without them.
 * The PostgreSQL backends are backed up with pg_dump instead (docs/operations.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

export class BackupError extends Error {}

export interface BackupOptions {
  /** Skip the export files (they can be gigabytes; their jobs then show as expired downloads). */
  withoutExports?: boolean;
}

export interface BackupReport {
  databases: { name: string; pages: number }[];
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
