import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type Migration,
} from 'kysely';
import type pg from 'pg';
import type { StateDatabase } from './schema.js';
import { stateMigrations } from './migrations/index.js';
import { postgresStateMigrations } from './migrations/postgres/index.js';
import { PostgresTextPlugin } from './postgresText.js';
import { boundedPool, isPostgresBusy, openPostgresPool, type PostgresPoolOptions } from './postgresPool.js';

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
  /**
   * 'memory' for a brand-new file built under a temporary name and renamed into place only
   * once complete (a world build): the rollback journal is kept in memory and there is no
   * WAL, so each page is written to the file once, not to the WAL and again at the
   * checkpoint. A crash mid-transaction leaves the file unusable, which is why such a file is
   * never opened under its final name. (OFF would also drop the in-memory copies of the few
   * pages a transaction changes, but better-sqlite3's defensive mode refuses it, and a
   * rollback would then corrupt the file.) Default 'wal'.
   */
  journal?: 'wal' | 'memory';
}

/** Whether `err` is SQLite's "database is locked" (the busy timeout ran out). */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Whether the state store refused for being busy, nothing done: SQLite's lock held past the
 * busy timeout, or on PostgreSQL no connection free in time, a statement past its deadline,
 * a lock not had in time (see postgresPool.ts). The client may simply retry (503).
 */
export function isStoreBusy(err: unknown): boolean {
  return isSqliteBusy(err) || isPostgresBusy(err);
}

/**
 * Opens a SQLite database in WAL mode (unless `options.journal`). `file` ':memory:' gives a private in-memory store
 * (tests). busy_timeout lets a second process (`quarry worker`, the CLI) wait for a
 * writer instead of failing.
 */
export function openSqlite<DB>(file: string, options: SqliteOptions = {}): SqliteHandle<DB> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const raw = new SqliteDatabase(file);
  // Accounts, keys' hashes, usage and research data are the owner's alone; SQLite gives the
  // WAL and shared-memory files the database file's mode.
  if (file !== ':memory:') fs.chmodSync(file, 0o600);
  raw.pragma(options.journal === 'memory' ? 'journal_mode = MEMORY' : 'journal_mode = WAL');
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

/** The embedded state store: one SQLite file, with its raw handle for synchronous atomic sections. */
export type SqliteStateStore = SqliteHandle<StateDatabase> & { dialect: 'sqlite' };

/** The scale mode's state store (QUARRY_DATABASE_URL): PostgreSQL through a pg pool, shared by every process. */
export interface PostgresStateStore {
  dialect: 'postgres';
  db: Kysely<StateDatabase>;
  pool: pg.Pool;
  close(): Promise<void>;
}

export type StateStore = SqliteStateStore | PostgresStateStore;

/**
 * A write that must commit with something else (an export's job with its charge): on SQLite a
 * synchronous call on the store's connection inside the caller's transaction (`trx` null), on
 * PostgreSQL statements on the caller's transaction.
 */
export type StateWrite = (trx: Kysely<StateDatabase> | null) => void | Promise<void>;

/** Runs a write inside a synchronous SQLite transaction, where nothing can be awaited. */
export function runSqliteWrite(write: StateWrite): void {
  if (write(null) instanceof Promise) throw new TypeError('a write on the SQLite state store must be synchronous');
}

/** Opens (and migrates) the state store: `<dataDir>/state.db`, or in memory for tests. */
export async function openStateStore(file: string, options: SqliteOptions = {}): Promise<SqliteStateStore> {
  const handle = openSqlite<StateDatabase>(file, options);
  await migrate(handle.db, stateMigrations);
  return { ...handle, dialect: 'sqlite' };
}

/**
 * Opens (and migrates) the state store on PostgreSQL, its pool with the deadlines of
 * postgresPool.ts. Several processes may start at once: Kysely's migrator takes an advisory
 * lock, so the migrations run once. They run on a connection of their own without a statement
 * deadline: rewriting a large table may take longer than any request should.
 */
export async function openPostgresStateStore(url: string, options: PostgresPoolOptions = {}): Promise<PostgresStateStore> {
  const migrations = new Kysely<StateDatabase>({
    dialect: new PostgresDialect({ pool: openPostgresPool(url, { max: 1, statementTimeoutMs: 0, idleInTransactionMs: 0, waitMs: 0 }) }),
    plugins: [new PostgresTextPlugin()],
  });
  try {
    await migrate(migrations, postgresStateMigrations);
  } finally {
    await migrations.destroy();
  }
  const pool = openPostgresPool(url, options);
  const db = new Kysely<StateDatabase>({ dialect: new PostgresDialect({ pool: boundedPool(pool) }), plugins: [new PostgresTextPlugin()] });
  // Kysely's PostgreSQL driver ends the pool itself.
  return { dialect: 'postgres', db, pool, close: () => db.destroy() };
}

/**
 * The state store a configuration names: PostgreSQL at QUARRY_DATABASE_URL (the scale mode,
 * shared by every process), else `<dataDir>/state.db` (or memory, for tests).
 */
export async function openConfiguredStateStore(
  config: { databaseUrl: string | null; dataDir: string; postgresPool?: PostgresPoolOptions },
  options: SqliteOptions & { inMemory?: boolean } = {},
): Promise<StateStore> {
  return config.databaseUrl
    ? openPostgresStateStore(config.databaseUrl, config.postgresPool)
    : openStateStore(options.inMemory ? ':memory:' : path.join(config.dataDir, 'state.db'), { busyTimeoutMs: options.busyTimeoutMs });
}

/** Whether a Kysely instance of the state store speaks PostgreSQL (for the few statements that differ). */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The SQLite handle of an embedded state store; for code that exists only in the embedded mode. */
export function sqliteOf(state: StateStore): SqliteHandle<StateDatabase>['raw'] {
  if (state.dialect !== 'sqlite') throw new Error('this needs the embedded SQLite state store');
  return state.raw;
}
