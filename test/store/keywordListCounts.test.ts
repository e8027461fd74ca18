/**
 * The account's stored-keyword-id quota sums each list's own count (`item_count`, migration
 * 0094) instead of counting every item row: the counts follow every change of a list's ids —
 * creation, additions, removals (absent ids and repeats not counted), deletion — so the quota
 * decides exactly as the row count did; and lists stored before 0094 get their count.
 * On the test's state store: SQLite, or PostgreSQL under npm run test:scale.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { KeywordLists, ListLimitError } from '../../src/store/keywordLists.js';
import { keywordListCountMigrations } from '../../src/store/migrations/0094_keyword_list_counts.js';
import { testStateStore } from '../support/postgres.js';

const NOW = 1_790_000_000;
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

test('the stored-id quota follows creations, additions, removals and deletions exactly', async () => {
  const state = await testStateStore();
  try {
    const lists = new KeywordLists(state.db, 100);
    const account = 'acc-counts';
    const a = await lists.create(account, 'a', [...ids('a', 30), 'a-0'], NOW);
    // 10 of A's ids removed, with 5 it never held and a repeat: 20 stay.
    assert.ok(await lists.removeKeywords(account, a._id, [...ids('a', 10), 'a-0', ...ids('absent', 5)], NOW));
    const b = await lists.create(account, 'b', ids('b', 79), NOW);
    // 20 + 79 stored: one more id fits, and then none.
    assert.ok(await lists.addKeywords(account, b._id, ['b-0', 'b-79'], NOW), 'a present id is not counted again');
    await assert.rejects(lists.addKeywords(account, b._id, ['b-80'], NOW), ListLimitError);
    await assert.rejects(lists.create(account, 'c', ['c-0'], NOW), ListLimitError);
    // Another account's lists are not counted.
    await lists.create('acc-other', 'other', ids('o', 100), NOW);
    // Deleting A frees its 20.
    assert.ok(await lists.delete(account, a._id));
    await lists.create(account, 'c', ids('c', 20), NOW);
    await assert.rejects(lists.create(account, 'd', ['d-0'], NOW), ListLimitError);
    const stored = (await lists.all(account)).reduce((sum, l) => sum + l.keyword_ids.length, 0);
    assert.equal(stored, 100);
  } finally {
    await state.close();
  }
});

test('migration 0094 gives the lists stored before it their number of ids', async () => {
  const raw = new Database(':memory:');
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    // The tables as migration 0003 made them.
    raw.exec(`CREATE TABLE keyword_lists (id text primary key, account_id text not null, name text not null, creator text not null, created_at integer not null, updated_at integer not null);
      CREATE TABLE keyword_list_items (list_id text not null references keyword_lists (id) on delete cascade, keyword_id text not null, seq integer not null, primary key (list_id, keyword_id));`);
    const list = raw.prepare('INSERT INTO keyword_lists VALUES (?, ?, ?, ?, ?, ?)');
    const item = raw.prepare('INSERT INTO keyword_list_items VALUES (?, ?, ?)');
    list.run('full', 'acc', 'full', 'acc', NOW, NOW);
    list.run('empty', 'acc', 'empty', 'acc', NOW, NOW);
    ids('k', 7).forEach((id, seq) => item.run('full', id, seq));
    await keywordListCountMigrations['0094_keyword_list_counts'].up(db);
    assert.deepEqual(raw.prepare('SELECT id, item_count FROM keyword_lists ORDER BY id').all(), [
      { id: 'empty', item_count: 0 },
      { id: 'full', item_count: 7 },
    ]);
  } finally {
    await db.destroy();
  }
});
