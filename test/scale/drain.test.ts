/**
 * SIGTERM drains `quarry serve` in the scale mode (issue 28): on PostgreSQL and Redis, the
 * requests in flight when the signal comes are answered, what they wrote is stored, and the
 * process ends by itself (status 0) within its drain deadline, leaving no session open on the
 * database — none idle in a transaction.
 *
 * The requests are held in flight deterministically, not by timing: the test takes the
 * account's advisory lock (store/accountLock.ts) in a transaction of its own, so every list
 * creation of the account waits at its first statement, on the server's side, until the test
 * commits. The test sends SIGTERM once PostgreSQL shows all of them waiting on that lock, and
 * commits once the process says it is shutting down.
 *
 * Under `npm run test:scale` only (it is listed there by directory): skipped otherwise.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { unixSeconds } from '../../src/lib/clock.js';
import { ACCOUNT_LOCK_CLASS } from '../../src/store/advisoryLock.js';
import { closeStateContext, openStateContext } from '../../src/service.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { freePort, startQuarry, STARTUP_TIMEOUT_MS, until } from '../support/processes.js';
import { TEST_REDIS_URL, testRedis, testRedisPrefix } from '../support/redis.js';
import { copyTinyWorld } from '../support/world.js';

/** Below the pool's 10 connections, with room for the scheduler's lease and the worker's polls: each waits on the lock, none on the pool. */
const IN_FLIGHT = 6;
const DRAIN_TIMEOUT_MS = 60_000;

test(
  'scale mode: SIGTERM answers the requests in flight, keeps what they wrote and ends within the drain deadline',
  { skip: !scaleMode && 'scale mode only (npm run test:scale)', timeout: STARTUP_TIMEOUT_MS + 4 * DRAIN_TIMEOUT_MS },
  async () => {
    const database = await createTestDatabase();
    const prefix = testRedisPrefix();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-scale-drain-'));
    const locker = new pg.Client({ connectionString: database.url });
    // Another session for looking: pg_stat_activity is read once per transaction, and the locker's stays open.
    const watcher = new pg.Client({ connectionString: database.url });
    let server: ReturnType<typeof startQuarry> | undefined;
    try {
      await copyTinyWorld(1, dataDir);
      const env = {
        QUARRY_DATABASE_URL: database.url,
        QUARRY_REDIS_URL: TEST_REDIS_URL,
        QUARRY_REDIS_PREFIX: prefix,
        QUARRY_DATA_DIR: dataDir,
        QUARRY_WORLD_SIZE: 'tiny',
        QUARRY_HOST: '127.0.0.1',
        QUARRY_PORT: String(await freePort()),
        QUARRY_GATEWAY_RPS: '0',
        // At info level the process says when it starts shutting down.
        QUARRY_LOG_LEVEL: 'info',
        QUARRY_DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
      };
      // The whole `quarry serve` (API, worker, scheduler): each part drains at SIGTERM.
      server = startQuarry(['serve'], { env });
      const origin = await server.ready();
      const ctx = await openStateContext(loadConfig(env));
      const nowSec = unixSeconds(Date.now());
      const account = await ctx.accounts.create('drain@example.test', 'premium', nowSec);
      const key = (await ctx.accounts.createKey(account.id, nowSec)).key;
      await closeStateContext(ctx);

      await locker.connect();
      await watcher.connect();
      await locker.query('BEGIN');
      const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await locker.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2))', [ACCOUNT_LOCK_CLASS, account.id]);
      // Answers that came before the test let them (none should): shown if the wait fails.
      const early: { status: number; body: string }[] = [];
      const answers = Array.from({ length: IN_FLIGHT }, (_, i) =>
        fetch(`${origin}/v3/keyword-tool/lists`, {
          method: 'POST',
          headers: { 'x-access-token': key, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `in flight ${i}`, keyword_ids: [] }),
        }).then(async (res) => {
          const answer = { status: res.status, body: await res.text(), at: Date.now() };
          early.push(answer);
          return answer;
        }),
      );
      // Every request is inside the server, in its transaction, waiting on the lock the test holds.
      let activity: unknown[] = [];
      await until(`${IN_FLIGHT} list creations waiting on the account's lock`, async () => {
        if (early.length > 0) throw new Error(`answered while the lock was held: ${JSON.stringify(early)}`);
        ({ rows: activity } = await watcher.query(
          'SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        ));
        const waiting = activity.filter(
          (a) => (a as { state: string; wait_event: string | null }).state === 'active' && (a as { wait_event: string }).wait_event === 'advisory',
        );
        return waiting.length === IN_FLIGHT ? true : undefined;
      }).catch((err: Error) => {
        throw new Error(`${err.message}; sessions: ${JSON.stringify(activity)}`);
      });

      const signalled = Date.now();
      server.child.kill('SIGTERM');
      await server.waitFor(/shutting down/, 'the process to start shutting down', DRAIN_TIMEOUT_MS);
      await locker.query('COMMIT');
      const exit = await server.finished(2 * DRAIN_TIMEOUT_MS);
      const ms = Date.now() - signalled;

      assert.equal(exit.code, 0, `the process drained and ended by itself:\n${server.output()}`);
      assert.doesNotMatch(server.output(), /drain deadline/);
      assert.ok(ms < DRAIN_TIMEOUT_MS, `ended ${ms} ms after SIGTERM`);
      const answered = await Promise.all(answers).catch((err: Error) => {
        throw new Error(`a request in flight got no answer (${err.message}; ${String(err.cause)}):\n${server!.output()}`);
      });
      for (const a of answered) {
        assert.equal(a.status, 201, a.body);
        assert.ok(a.at >= signalled, 'answered during the drain');
      }
      // Nothing lost: every list the answers acknowledged is stored.
      const ids = answered.map((a) => (JSON.parse(a.body) as { _id: string })._id).sort();
      const { rows: stored } = await watcher.query<{ id: string }>('SELECT id FROM keyword_lists WHERE account_id = $1 ORDER BY id', [account.id]);
      assert.deepEqual(
        stored.map((r) => r.id),
        ids,
      );
      // The process's sessions go with it (PostgreSQL ends each backend once its socket closes):
      // none left, so none idle in a transaction.
      await until("the ended process's sessions to go", async () => {
        const { rows } = await watcher.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid NOT IN (pg_backend_pid(), $1)',
          [lockerPid],
        );
        return rows[0].n === 0 ? true : undefined;
      });
    } finally {
      await server?.kill('SIGKILL');
      await locker.end().catch(() => undefined);
      await watcher.end().catch(() => undefined);
      const redis = await testRedis(prefix);
      await redis.dropKeys();
      await redis.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
