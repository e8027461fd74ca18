import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type Migration } from 'kysely';
import type { StateDatabase } from './schema.js';
import { stateMigrations } from './migrations/index.js';

/** A SQLite file opened both raw (for synchronous atomic sections) and through Kysely. */
export interface SqliteHandle<DB> {
  raw: SqliteDatabase.Database;
  db: Kysely<DB>;
  close(): Promise<void>;
}

/**
 * Kysely's SQLite driver begins transactions DEFERRED: a transaction that reads and then
 * writes takes the write lock only at its first write, and when another process (`quarry
 * worker`, the CLI) wrote in between, SQLite answers SQLITE_BUSY at once, without waiting
 * for busy_timeout (the reader's snapshot is stale). IMMEDIATE takes the write lock at
 * BEGIN, where busy_timeout applies, so every read-then-write transaction waits its turn.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SqliteDatabase.Database) {
    super({ database });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

/**
 * How long a process waits for another's write lock before SQLite answers SQLITE_BUSY. The
 * API keeps it short: better-sqlite3 waits synchronously, so every request of the process
 * waits with it, and a client is better answered "retry" (503, http/app.ts) than held. The
 * worker, the scheduler alone and the CLI answer no client: they wait long, so that a burst
 * of writers (several workers claiming, a loaded machine descheduling the lock's holder) is
 * waited out instead of failing a claim, a heartbeat or an operator's command. SQLite's busy
 * handler is not fair (it sleeps up to 100 ms between tries while others take the lock), so
 * under heavy load a waiter can lose for seconds; 5 s was measured to be too short there.
 */
export const API_BUSY_TIMEOUT_MS = 5_000;
export const BACKGROUND_BUSY_TIMEOUT_MS = 60_000;

export interface SqliteOptions {
  /** busy_timeout in milliseconds (default API_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

/** Whether `err` is SQLite's "database is locked" (the busy timeout ran out). */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Opens a SQLite database in WAL mode. `file` ':memory:' gives a private in-memory store
 * (tests). busy_timeout lets a second process (`quarry worker`, the CLI) wait for a
 * writer instead of failing.
 */
export function openSqlite<DB>(file: string, options: SqliteOptions = {}): SqliteHandle<DB> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const raw = new SqliteDatabase(file);
  // Accounts, keys' hashes, usage and research data are the owner's alone; SQLite gives the
  // WAL and shared-memory files the database file's mode.
  if (file !== ':memory:') fs.chmodSync(file, 0o600);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? API_BUSY_TIMEOUT_MS))}`);
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(raw) });
  return {
    raw,
    db,
    // Kysely's SQLite driver closes the underlying better-sqlite3 handle itself.
    close: () => db.destroy(),
  };
}

export async function migrate(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

export type StateStore = SqliteHandle<StateDatabase>;

/** Opens (and migrates) the state store: `<dataDir>/state.db`, or in memory for tests. */
export async function openStateStore(file: string, options: SqliteOptions = {}): Promise<StateStore> {
  const handle = openSqlite<StateDatabase>(file, options);
  await migrate(handle.db, stateMigrations);
  return handle;
}
