/**
 * The in-memory layers of the hot path (recent keys in Accounts, recent cache entries in
 * the policy store) must answer exactly what the state store holds: a change made by
 * another connection — `quarry keys revoke` in another process — applies to every request
 * handled a millisecond (of the injected clock) after it.
 */
import { sqliteOf } from '../../src/store/database.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import type { QuarryContext } from '../../src/context.js';
import { DAY, FakeClock } from '../../src/lib/clock.js';
import { CACHE_TTL_MS } from '../../src/policy/policyStore.js';
import { SqlitePolicyStore } from '../../src/policy/sqlitePolicyStore.js';
import type { SqliteKeyLookup } from '../../src/accounts/keyLookup.js';
import { createContext } from '../../src/service.js';
import { embeddedOnly } from '../support/postgres.js';

/** The next turn of the event loop: where the next request from a client would be handled. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** A millisecond later: lookups of one millisecond share one check of the store's data version. */
const nextMillisecond = () => clock.advance(1);

let dir: string;
let ctx: QuarryContext;
let other: SqliteDatabase.Database;
const clock = new FakeClock();

// The key cache checked by SQLite's data_version; on PostgreSQL each lookup reads the key.
describe('hot-path memory stays coherent with the state store', { skip: embeddedOnly('a SQLite data directory') }, () => {
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-hot-'));
    ctx = await createContext(loadConfig({ QUARRY_DATA_DIR: dir }), { clock });
    // A second connection to the same file: what another process (the CLI) would hold.
    other = new SqliteDatabase(path.join(dir, 'state.db'));
    other.pragma('busy_timeout = 5000');
  });
  after(async () => {
    other.close();
    await ctx.state.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a key revoked by another connection is refused on the next lookup', async () => {
    const account = await ctx.accounts.create('a@example.com', 'premium', 1);
    const { key, id } = await ctx.accounts.createKey(account.id, 1);
    for (let i = 0; i < 3; i++) assert.equal((await ctx.accounts.byKey(key))?.id, account.id);
    other.prepare('UPDATE api_keys SET revoked_at = 2 WHERE id = ?').run(id);
    nextMillisecond();
    assert.equal(await ctx.accounts.byKey(key), undefined);
  });

  test('a plan changed by another connection shows on the next lookup', async () => {
    const account = await ctx.accounts.create('b@example.com', 'entry', 1);
    const { key } = await ctx.accounts.createKey(account.id, 1);
    assert.equal((await ctx.accounts.byKey(key))?.plan, 'entry');
    other.prepare('UPDATE accounts SET plan = ? WHERE id = ?').run('agency', account.id);
    nextMillisecond();
    assert.equal((await ctx.accounts.byKey(key))?.plan, 'agency');
  });

  test("within one millisecond the store's data version is read once, whatever the turns; the next millisecond reads it again", async () => {
    const account = await ctx.accounts.create('e@example.com', 'entry', 1);
    const { key } = await ctx.accounts.createKey(account.id, 1);
    const lookup = ctx.accounts.keyLookup as SqliteKeyLookup;
    nextMillisecond();
    const before = lookup.versionChecks;
    for (let i = 0; i < 20; i++) {
      assert.equal(ctx.accounts.byKeyNow(key)?.id ?? (await ctx.accounts.byKey(key))?.id, account.id);
      await nextTurn();
    }
    assert.equal(lookup.versionChecks - before, 1);
    nextMillisecond();
    assert.equal(ctx.accounts.byKeyNow(key)?.id, account.id);
    assert.equal(lookup.versionChecks - before, 2);
  });

  test('revocation and plan changes through this process apply at once too', async () => {
    const account = await ctx.accounts.create('c@example.com', 'entry', 1);
    const { key, id } = await ctx.accounts.createKey(account.id, 1);
    assert.equal((await ctx.accounts.byKey(key))?.plan, 'entry');
    await ctx.accounts.setPlan(account.id, 'basic');
    assert.equal((await ctx.accounts.byKey(key))?.plan, 'basic');
    await ctx.accounts.revokeKey(id, 2);
    assert.equal(await ctx.accounts.byKey(key), undefined);
  });

  test('a returned account is a copy: changing it changes nothing remembered', async () => {
    const account = await ctx.accounts.create('d@example.com', 'entry', 1);
    const { key } = await ctx.accounts.createKey(account.id, 1);
    const first = (await ctx.accounts.byKey(key))!;
    first.plan = 'custom';
    assert.equal((await ctx.accounts.byKey(key))?.plan, 'entry');
  });

  test('cache entries: remembered after commit, expired after 24 h, readable by a fresh store', async () => {
    const store = ctx.policy.store as SqlitePolicyStore;
    const now = clock.now();
    const admission = await store.admit({
      accountId: 'acct',
      clientClass: 'api',
      pool: 'trends',
      period: 'daily',
      poolLimit: 10,
      nowMs: now,
      windowMs: 30_000,
      burstSize: 3,
      cost: 1,
    });
    assert.ok(admission.ok);
    await store.commit(admission.reservation, {
      nowMs: now,
      cost: 1,
      cache: { key: 'k1', status: 200, contentType: 'application/json; charset=utf-8', body: '{"a":1}' },
    });
    assert.equal((await store.cached('acct', 'k1', now + 1000))?.body, '{"a":1}');
    assert.equal(await store.cached('other-account', 'k1', now + 1000), null);
    assert.equal((await store.cached('acct', 'k1', now + CACHE_TTL_MS - 1))?.body, '{"a":1}');
    assert.equal(await store.cached('acct', 'k1', now + CACHE_TTL_MS), null);

    // A store that did not write the entry (another process, or after a restart) finds it in the table.
    const fresh = new SqlitePolicyStore(sqliteOf(ctx.state));
    assert.equal((await fresh.cached('acct', 'k1', now + 1000))?.body, '{"a":1}');
    // Once swept, neither the table nor memory answers it.
    await store.sweep(now + DAY + 1);
    await fresh.sweep(now + DAY + 1);
    assert.equal(await store.cached('acct', 'k1', now + 1000), null);
    assert.equal(await fresh.cached('acct', 'k1', now + 1000), null);
  });
});
