/**
 * Text holding U+0000 (an odd keyword, a malformed id in a path) behaves alike on both
 * state stores: PostgreSQL cannot store it, so its store puts U+FFFD in its place in every
 * parameter (store/postgresText.ts); SQLite stores it as is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { durableStateOf } from '../../src/policy/durableStateOf.js';
import { KeywordLists } from '../../src/store/keywordLists.js';
import { testStateStore } from '../support/postgres.js';

test('a key with U+0000 is written and found again; an id with it finds nothing', async () => {
  const store = await testStateStore();
  try {
    const durable = durableStateOf(store);
    await durable.recordLookups('acct', [{ kind: 'gap', key: 'odd\u0000key', data: { n: 1 } }], 1000);
    assert.equal(await durable.hasLookup('acct', 'gap', 'odd\u0000key', 0), true);
    assert.deepEqual(await durable.lookupData('acct', 'gap', 'odd\u0000key', 0, 2000), { n: 1 });
    assert.equal(await durable.hasLookup('acct', 'gap', 'oddkey', 0), false);
    assert.equal(await new KeywordLists(store.db).get('acct', 'abc\u0000'), undefined);
  } finally {
    await store.close();
  }
});
