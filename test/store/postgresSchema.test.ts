/**
 * The PostgreSQL migration set must build the schema the SQLite set builds: same tables,
 * same columns. Runs under npm run test:scale (it needs the test PostgreSQL server).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openStateStore } from '../../src/store/database.js';
import { scaleMode, testPostgresStateStore } from '../support/postgres.js';

test('the PostgreSQL state schema has the tables and columns of the SQLite one', { skip: !scaleMode && 'needs PostgreSQL (npm run test:scale)' }, async () => {
  const sqlite = await openStateStore(':memory:');
  const postgres = await testPostgresStateStore();
  try {
    const fromSqlite = new Map<string, string[]>();
    const tables = sqlite.raw
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'")
      .pluck()
      .all() as string[];
    for (const table of tables) {
      const columns = sqlite.raw.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
      fromSqlite.set(table, columns.sort());
    }
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely_%'`.execute(postgres.db);
    const fromPostgres = new Map<string, string[]>();
    // rowid: SQLite's implicit column, explicit on PostgreSQL (migration 0002_pg_rowid).
    for (const r of rows.filter((r) => r.column_name !== 'rowid')) fromPostgres.set(r.table_name, [...(fromPostgres.get(r.table_name) ?? []), r.column_name]);
    for (const columns of fromPostgres.values()) columns.sort();
    assert.deepEqual(Object.fromEntries([...fromPostgres].sort()), Object.fromEntries([...fromSqlite].sort()));
  } finally {
    await sqlite.close();
    await postgres.close();
  }
});
