/**
 * Migration 0018: multi-part lookup keys written with U+0000 (which PostgreSQL cannot store)
 * are rewritten with U+001F, so a lookup made before the upgrade still counts after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate, openSqlite } from '../../src/store/database.js';
import { stateMigrations } from '../../src/store/migrations/index.js';
import { lookupKey } from '../../src/policy/policyStore.js';
import { SqliteLookups } from '../../src/policy/sqlite/lookups.js';
import type { StateDatabase } from '../../src/store/schema.js';

test('migration 0018 rewrites lookup keys joined with U+0000 to the U+001F separator', async () => {
  const store = openSqlite<StateDatabase>(':memory:');
  try {
    const { '0018_lookup_key_separator': _added, ...released } = stateMigrations;
    await migrate(store.db, released);
    const insert = store.raw.prepare('INSERT INTO lookups (account_id, kind, lookup_key, data, created_ms, expires_ms) VALUES (?, ?, ?, NULL, 1000, 9000)');
    insert.run('acct', 'gap', 'shop.com\u0000rival.com\u00002840\u00001');
    insert.run('acct', 'related', 'plain');
    await migrate(store.db, stateMigrations);
    const lookups = new SqliteLookups(store.raw);
    assert.equal(lookups.made('acct', 'gap', lookupKey('shop.com', 'rival.com', 2840, 1), 0), true);
    assert.equal(lookups.made('acct', 'related', 'plain', 0), true);
    const keys = store.raw.prepare('SELECT lookup_key FROM lookups').pluck().all() as string[];
    assert.ok(
      keys.every((k) => !k.includes('\u0000')),
      JSON.stringify(keys),
    );
  } finally {
    await store.close();
  }
});
