/**
 * The data directory of the embedded (SQLite) mode: who may read it, and which one
 * `quarry serve` owns.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/** The file whose SQLite lock marks a data directory as served. */
export const SERVE_LOCK_FILE = 'serve.lock';
/** The file whose SQLite lock marks the process that runs the rank scheduler. */
export const SCHEDULER_LOCK_FILE = 'scheduler.lock';

export class DataDirInUseError extends Error {}

export interface ServeLock {
  release(): void;
}

/**
 * Claims the data directory for this `quarry serve`, or throws DataDirInUseError when
 * another process serves it. Two servers on one SQLite data directory would each keep
 * their own single-flight and memory cache, so identical lookups split between them ran
 * and were charged twice; `quarry worker` and the CLI share the directory safely and do
 * not take this lock.
 *
 * Two locks, both the kernel's, held by the process and dropped when it ends in any way
 * (kill -9 included), so there is never a stale lock to clean up: on Linux an abstract
 * Unix socket named after the directory itself (holdKernelLock: no file, nothing that
 * deleting serve.lock could undo), and everywhere SQLite's exclusive lock on serve.lock.
 */
export async function acquireServeLock(dataDir: string): Promise<ServeLock> {
  return acquireLock(
    dataDir,
    SERVE_LOCK_FILE,
    `another \`quarry serve\` is already running on the data directory ${dataDir}. ` +
      'One server per SQLite data directory: run more background work with `quarry worker` beside it, ' +
      'or use the scale mode (QUARRY_DATABASE_URL and QUARRY_REDIS_URL, see DESIGN.md) to run several servers.',
  );
}

/**
 * Claims the rank scheduler's role for this process (`quarry scheduler`, or `quarry serve`
 * with the scheduler role), or throws DataDirInUseError: two schedulers would both run the
 * day's rank checks and send every e-mail report twice.
 */
export async function acquireSchedulerLock(dataDir: string): Promise<ServeLock> {
  return acquireLock(
    dataDir,
    SCHEDULER_LOCK_FILE,
    `another process already runs the rank scheduler on the data directory ${dataDir} ` +
      '(`quarry scheduler`, or `quarry serve` with the scheduler role, the default). Run one scheduler: ' +
      'start the others with `quarry serve --roles api,worker` or `quarry worker`.',
  );
}

async function acquireLock(dataDir: string, name: string, busyMessage: string): Promise<ServeLock> {
  ensurePrivateDir(dataDir);
  const kernel = await holdKernelLock(dataDir, name);
  if (kernel === 'busy') throw new DataDirInUseError(busyMessage);
  let file: ServeLock;
  try {
    file = acquireFileLock(dataDir, name, busyMessage);
  } catch (err) {
    kernel?.close();
    throw err;
  }
  return {
    release: () => {
      file.release();
      kernel?.close();
    },
  };
}

/**
 * Linux: listens on an abstract Unix socket whose name is derived from the data directory's
 * device and inode (the same directory whatever path or symlink names it) and the lock's
 * name. An abstract socket has no file: the name belongs to the listening process until it
 * ends, and nobody can delete it from under it, unlike serve.lock, whose deletion let a
 * second server lock a new file and start (issue 28). Returns 'busy' when another process
 * holds it, null where the platform has no abstract sockets (the file lock alone then).
 */
async function holdKernelLock(dataDir: string, name: string): Promise<net.Server | 'busy' | null> {
  if (process.platform !== 'linux') return null;
  const dir = fs.statSync(dataDir);
  const id = crypto.createHash('sha256').update(`${dir.dev}:${dir.ino}:${name}`).digest('hex').slice(0, 40);
  const server = net.createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve('busy') : reject(err)));
    // A leading NUL puts the name in the abstract namespace.
    server.listen(`\0quarry-data-dir-${id}`, () => {
      // Holding the name must not keep the process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

function acquireFileLock(dataDir: string, name: string, busyMessage: string): ServeLock {
  const file = path.join(dataDir, name);
  let db: SqliteDatabase.Database | undefined;
  try {
    db = new SqliteDatabase(file);
    fs.chmodSync(file, 0o600);
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, started_ms INTEGER NOT NULL)');
    db.transaction(() => {
      db!.exec('DELETE FROM holder');
      db!.prepare('INSERT INTO holder (pid, started_ms) VALUES (?, ?)').run(process.pid, Date.now());
    })();
  } catch (err) {
    db?.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(busyMessage);
    throw err;
  }
  const held = db;
  return { release: () => held.close() };
}

/** Creates the directory readable by its owner only, and tightens an existing one (0700). */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/**
 * Makes the data directory and the files in it (databases, their WAL and shared-memory
 * files, the key and secret, exports) readable by their owner only: data directories made
 * before this rule were 0755 with 0644 databases.
 */
export function securePermissions(dataDir: string): void {
  ensurePrivateDir(dataDir);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        fs.chmodSync(p, 0o700);
        walk(p);
      } else if (entry.isFile()) fs.chmodSync(p, 0o600);
    }
  };
  walk(dataDir);
}
