/**
 * Scale mode (issue 26): each API process remembers the accounts of the keys it has seen, so a
 * cache hit reads nothing from PostgreSQL, and every change of a key or an account is
 * announced on Redis, so a revoked key is refused by every process as soon as the announcement
 * has arrived (one pub/sub hop: bench:scale prints how long it takes). Two apps on one
 * PostgreSQL database and one Redis prefix stand for two processes; the waits are on the
 * announcement's arrival, never on time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import type { SharedKeyLookup } from '../../src/accounts/keyLookup.js';
import { unixSeconds } from '../../src/lib/clock.js';
import type { PostgresStateStore } from '../../src/store/database.js';
import { testApp, type TestApp } from '../support/app.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';

const HIT = '/v3/keyword-tool/trends?kw=remembered%20keys';

/** The SQL statements `pool` runs from now on (every client it hands out is watched). */
function watchStatements(pool: pg.Pool): { statements: string[]; stop(): void } {
  const statements: string[] = [];
  let watching = true;
  const onAcquire = (client: pg.PoolClient) => {
    const watched = client as pg.PoolClient & { quarryWatched?: boolean };
    if (watched.quarryWatched) return;
    watched.quarryWatched = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string };
      if (watching) statements.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return query(...args);
    };
  };
  pool.on('acquire', onAcquire);
  return {
    statements,
    stop() {
      watching = false;
      pool.off('acquire', onAcquire);
    },
  };
}

describe(
  'scale mode: keys remembered in every process, changes announced on Redis',
  { skip: !scaleMode && 'needs PostgreSQL and Redis (npm run test:scale)' },
  () => {
    let drop: () => Promise<void>;
    let a: TestApp;
    let b: TestApp;
    const lookupOf = (app: TestApp) => app.ctx.accounts.keyLookup as SharedKeyLookup;
    /** Resolves once `app` has applied the next announcement. */
    const nextAnnouncement = (app: TestApp) =>
      new Promise<void>((resolve) => {
        const stop = lookupOf(app).onChange(() => {
          stop();
          resolve();
        });
      });
    const get = (app: TestApp, key: string) => app.app.inject({ method: 'GET', url: HIT, headers: { 'x-access-token': key } });

    before(async () => {
      const database = await createTestDatabase();
      drop = database.drop;
      const env = { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: testRedisPrefix() };
      a = await testApp({ env });
      b = await testApp({ env, clock: a.clock });
    });
    after(async () => {
      await b?.close();
      await a?.close();
      await drop?.();
    });

    test('a cache hit reads nothing from PostgreSQL: neither the key nor the answer', async () => {
      const { key } = await a.account();
      assert.equal((await get(b, key)).statusCode, 200);
      const hit = await get(b, key);
      assert.equal(hit.headers['x-cache'], 'HIT');
      const reads = lookupOf(b).storeReads;
      const watch = watchStatements((b.ctx.state as PostgresStateStore).pool);
      try {
        for (let i = 0; i < 5; i++) {
          const res = await get(b, key);
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers['x-cache'], 'HIT');
        }
      } finally {
        watch.stop();
      }
      assert.equal(lookupOf(b).storeReads, reads, 'the key was remembered');
      const touched = watch.statements.filter((sql) => /api_keys|accounts|request_cache/.test(sql));
      assert.deepEqual(touched, [], 'no statement read the key, the account or the cached answer');
    });

    test('a key revoked through one process is refused by the other once the announcement has arrived', async () => {
      const { id: accountId, key } = await a.account();
      const [{ id: keyId }] = await a.ctx.accounts.listKeys(accountId);
      // Both processes remember the key.
      for (const app of [a, b]) {
        assert.equal((await get(app, key)).statusCode, 200);
        assert.equal((await get(app, key)).statusCode, 200);
      }
      const reads = lookupOf(b).storeReads;
      const arrived = nextAnnouncement(b);
      assert.equal(await a.ctx.accounts.revokeKey(keyId, unixSeconds(a.clock.now())), true);
      // The revoking process refuses it at once, the other as soon as it has heard.
      assert.equal((await get(a, key)).statusCode, 401);
      await arrived;
      const refused = await get(b, key);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error.type, 'AuthError');
      assert.equal(lookupOf(b).storeReads, reads + 1, 'the other process asked the store again after the announcement');
    });

    test('a plan changed through one process is the plan the other one applies after the announcement', async () => {
      const { id: accountId, key } = await a.account('entry');
      assert.equal((await b.ctx.accounts.byKey(key))?.plan, 'entry');
      assert.equal(b.ctx.accounts.byKeyNow(key)?.plan, 'entry', 'remembered');
      const arrived = nextAnnouncement(b);
      await a.ctx.accounts.setPlan(accountId, 'agency');
      await arrived;
      assert.equal(b.ctx.accounts.byKeyNow(key), undefined, 'forgotten');
      assert.equal((await b.ctx.accounts.byKey(key))?.plan, 'agency');
    });

    test('without its subscription a process remembers nothing: every lookup asks the store', async () => {
      const { key } = await a.account();
      await b.ctx.accounts.byKey(key);
      assert.ok(b.ctx.accounts.byKeyNow(key), 'remembered while subscribed');
      // The subscriber connection drops (announcements made meanwhile would be lost to it).
      b.ctx.redis!.subscriber.emit('close');
      assert.equal(b.ctx.accounts.byKeyNow(key), undefined);
      const reads = lookupOf(b).storeReads;
      await b.ctx.accounts.byKey(key);
      await b.ctx.accounts.byKey(key);
      assert.equal(lookupOf(b).storeReads, reads + 2);
      // Back: once subscribed again, keys are remembered again (an announcement proves the subscription).
      b.ctx.redis!.subscriber.emit('ready');
      const arrived = nextAnnouncement(b);
      await a.ctx.accounts.keyLookup.changed();
      await arrived;
      await b.ctx.accounts.byKey(key);
      assert.ok(b.ctx.accounts.byKeyNow(key), 'remembered again');
    });
  },
);
