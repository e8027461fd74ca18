import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import type { StateDatabase } from './schema.js';
import { stateMigrations } from './migrations/index.js';

/** A SQLite file opened both raw (for synchronous atomic sections) and through Kysely. */
export interface SqliteHandle<DB> {
  raw: SqliteDatabase.Database;
  db: Kysely<DB>;
  close(): Promise<void>;
}

/**
 * Opens a SQLite database in WAL mode. `file` ':memory:' gives a private in-memory store
 * (tests). busy_timeout lets a second process (`quarry worker`, the CLI) wait for a
 * writer instead of failing.
 */
export function openSqlite<DB>(file: string): SqliteHandle<DB> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: raw }) });
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
export async function openStateStore(file: string): Promise<StateStore> {
  const handle = openSqlite<StateDatabase>(file);
  await migrate(handle.db, stateMigrations);
  return handle;
}
