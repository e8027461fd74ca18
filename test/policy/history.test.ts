/** Request histories: per account and tool, capped, in the order the contract gives per tool. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqlitePolicyStore } from '../../src/policy/sqlitePolicyStore.js';
import { openStateStore } from '../../src/store/database.js';
import { HISTORY_TOOLS } from '../../src/policy/history.js';

async function storeWithHistory(tool: 'keyword' | 'site', accountId: string, count: number) {
  const state = await openStateStore(':memory:');
  const store = new SqlitePolicyStore(state.raw);
  let now = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    const admission = await store.admit({
      accountId,
      clientClass: 'web',
      pool: 'serps',
      period: 'daily',
      poolLimit: 1e6,
      nowMs: (now += 2000),
      windowMs: 1000,
      burstSize: 3,
      cost: 1,
    });
    assert.ok(admission.ok);
    await store.commit(admission.reservation, { nowMs: now, cost: 1, history: [{ tool, entry: { n: i } }] });
  }
  return { state, store };
}

test('keyword-tool history keeps the last 100 lookups, oldest first', async () => {
  const { state, store } = await storeWithHistory('keyword', 'a', 130);
  const entries = (await store.history('a', 'keyword')) as { n: number }[];
  assert.equal(entries.length, HISTORY_TOOLS.keyword.cap);
  assert.deepEqual(
    entries.map((e) => e.n),
    Array.from({ length: 100 }, (_, i) => 30 + i),
  );
  assert.deepEqual(await store.history('b', 'keyword'), []);
  await state.close();
});

test('site-tool history keeps the 50 most recent, newest first', async () => {
  const { state, store } = await storeWithHistory('site', 'a', 60);
  const entries = (await store.history('a', 'site')) as { n: number }[];
  assert.equal(entries.length, 50);
  assert.deepEqual(
    entries.map((e) => e.n),
    Array.from({ length: 50 }, (_, i) => 59 - i),
  );
  await state.close();
});
