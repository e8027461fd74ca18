/**
 * The scale mode's connections have deadlines (store/postgresPool.ts): each session carries
 * statement_timeout and idle_in_transaction_session_timeout; a caller that finds every
 * connection taken waits at most the pool's wait and gets StateStoreBusyError, which the edge
 * answers 503 ServiceUnavailable with retry_after. Runs on PostgreSQL whatever the mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openPostgresStateStore, isStoreBusy, type PostgresStateStore } from '../../src/store/database.js';
import { StateStoreBusyError } from '../../src/store/postgresPool.js';
import { createTestDatabase } from '../support/postgres.js';
import { testApp } from '../support/app.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';

describe('PostgreSQL pool deadlines', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresStateStore;

  before(async () => {
    database = await createTestDatabase();
    store = await openPostgresStateStore(database.url, { max: 2, statementTimeoutMs: 300, idleInTransactionMs: 300, waitMs: 200 });
  });
  after(async () => {
    await store?.close();
    await database?.drop();
  });

  test('every session carries the statement and idle-in-transaction deadlines', async () => {
    const { rows } = await sql<{
      s: string;
      i: string;
    }>`SELECT current_setting('statement_timeout') AS s, current_setting('idle_in_transaction_session_timeout') AS i`.execute(store.db);
    assert.deepEqual(rows[0], { s: '300ms', i: '300ms' });
  });

  test('a statement past its deadline is cancelled, and counts as busy (retry)', async () => {
    const err = await sql`SELECT pg_sleep(2)`.execute(store.db).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err, 'the statement was cancelled');
    assert.equal((err as { code?: string }).code, '57014');
    assert.ok(isStoreBusy(err));
  });

  test('a transaction left idle is ended by the server: its locks do not outlive the deadline', async () => {
    let failed: unknown = null;
    await store.db
      .transaction()
      .execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        await new Promise((r) => setTimeout(r, 900));
        await sql`SELECT 1`.execute(trx);
      })
      .catch((e: unknown) => (failed = e));
    assert.ok(failed, 'the idle transaction was ended');
    const { rows } = await sql<{ n: number }>`
      SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(store.db);
    assert.equal(rows[0].n, 0);
  });

  test('with every connection taken, a caller waits the pool’s wait and gets StateStoreBusyError', async () => {
    const held = await Promise.all([store.pool.connect(), store.pool.connect()]);
    try {
      const started = Date.now();
      const err = await sql`SELECT 1`.execute(store.db).then(
        () => null,
        (e: unknown) => e,
      );
      const ms = Date.now() - started;
      assert.ok(err instanceof StateStoreBusyError, String(err));
      assert.ok(isStoreBusy(err));
      assert.ok(ms >= 150 && ms < 5_000, `waited ${ms} ms`);
    } finally {
      for (const c of held) c.release();
    }
    // Free again: the next statement runs.
    assert.equal((await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db)).rows[0].one, 1);
  });
});

describe('pool exhaustion at the edge', () => {
  test('a write that finds no free connection answers 503 ServiceUnavailable with retry_after, and the next one is written', async () => {
    const database = await createTestDatabase();
    const t = await testApp({
      env: {
        QUARRY_DATABASE_URL: database.url,
        QUARRY_REDIS_URL: TEST_REDIS_URL,
        QUARRY_REDIS_PREFIX: testRedisPrefix(),
        QUARRY_PG_POOL_SIZE: '1',
      },
    });
    try {
      const { key } = await t.account();
      assert.equal(t.ctx.state.dialect, 'postgres');
      const pool = (t.ctx.state as PostgresStateStore).pool;
      // The wait of QUARRY_PG_POOL_WAIT_MS=200, set once the app is open and its one connection
      // made: at load 30 opening a new connection alone took longer than 200 ms, which failed
      // the app's start instead of testing the refusal (pg-pool reads it at each connect).
      pool.options.connectionTimeoutMillis = 200;
      const send = () =>
        t.app.inject({ method: 'POST', url: '/v3/keyword-tool/lists', headers: { 'x-access-token': key }, payload: { name: 'shoes', keyword_ids: [] } });
      const held = await pool.connect();
      let refused;
      try {
        refused = await send();
      } finally {
        held.release();
      }
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json().error.type, 'ServiceUnavailable');
      assert.equal(refused.json().error.retry_after, 1);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((await send()).statusCode, 201);
    } finally {
      await t.close();
      await database.drop();
    }
  });
});
