/**
 * Favourite lists in the state store: migration 0007 gives lists made before it an update
 * order (their insertion order), and updates after it come first, also within one second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate, openSqlite } from '../../src/store/database.js';
import { Favourites } from '../../src/store/favourites.js';
import { stateMigrations } from '../../src/store/migrations/index.js';
import type { StateDatabase } from '../../src/store/schema.js';

const NOW = 1_790_000_000;

test('migration 0007 orders lists of one second by insertion; later updates come first', async () => {
  const store = openSqlite<StateDatabase>(':memory:');
  try {
    const { '0007_favourite_update_order': _added, ...released } = stateMigrations;
    await migrate(store.db, released);
    // Lists written before the migration: ids in the opposite order of insertion.
    const insert = store.raw.prepare('INSERT INTO favourite_lists (id, account_id, domain, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    for (const [id, domain] of [
      ['c', 'first.com'],
      ['b', 'second.com'],
      ['a', 'third.com'],
    ])
      insert.run(id, 'acct', domain, NOW, NOW);
    await migrate(store.db, stateMigrations);
    const favourites = new Favourites(store.db);
    const domains = async () => (await favourites.all('acct')).map((l) => l.domain);
    assert.deepEqual(await domains(), ['third.com', 'second.com', 'first.com']);
    await favourites.set('acct', 'first.com', 'link-1', true, NOW);
    await favourites.set('acct', 'fourth.com', 'link-2', true, NOW);
    await favourites.set('acct', 'third.com', 'link-3', true, NOW);
    assert.deepEqual(await domains(), ['third.com', 'fourth.com', 'first.com', 'second.com']);
  } finally {
    await store.close();
  }
});
