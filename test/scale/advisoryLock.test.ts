/**
 * The scale mode's scheduler lease (src/store/advisoryLock.ts): of two processes on one
 * PostgreSQL database, one holds it; the other gets it when the holder gives it up or its
 * session ends. Two connection pools stand for two processes. Under `npm run test:scale`
 * only (the embedded mode keeps its file lock, test/cli/roles.slow.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { AdvisoryLock, ADVISORY_LOCKS } from '../../src/store/advisoryLock.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';

describe('scale mode: the scheduler lease on PostgreSQL', { skip: !scaleMode && 'scale mode only (npm run test:scale)' }, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: pg.Pool[] = [];
  const pool = () => {
    const p = new pg.Pool({ connectionString: database.url, max: 3 });
    p.on('error', () => undefined);
    pools.push(p);
    return p;
  };

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const p of pools) await p.end();
    await database.drop();
  });

  test('one holder at a time; the other takes it when it is released', async () => {
    const a = new AdvisoryLock(pool(), ADVISORY_LOCKS.rankScheduler);
    const b = new AdvisoryLock(pool(), ADVISORY_LOCKS.rankScheduler);
    assert.equal(await a.tryAcquire(), true);
    assert.equal(await b.tryAcquire(), false);
    assert.equal(await a.tryAcquire(), true, 'the holder keeps it');
    assert.equal(await b.tryAcquire(), false);
    await a.release();
    assert.equal(a.held, false);
    assert.equal(await b.tryAcquire(), true);
    assert.equal(await a.tryAcquire(), false);
    await b.release();
  });

  test('a holder whose session ends (its process killed, its connection cut) loses it to the other', async () => {
    const a = new AdvisoryLock(pool(), ADVISORY_LOCKS.rankScheduler);
    const b = new AdvisoryLock(pool(), ADVISORY_LOCKS.rankScheduler);
    assert.equal(await a.tryAcquire(), true);
    assert.equal(await b.tryAcquire(), false);
    // The server ends a's session, as it does when a's process dies.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND granted`, [
      ...ADVISORY_LOCKS.rankScheduler,
    ]);
    assert.equal(rows.length, 1);
    await admin.query('SELECT pg_terminate_backend($1, 5000)', [rows[0].pid]);
    await admin.end();
    assert.equal(await b.tryAcquire(), true, 'the standby takes over');
    assert.equal(await a.tryAcquire(), false, 'the old holder finds its session gone and stands by');
    await b.release();
    assert.equal(await a.tryAcquire(), true);
    await a.release();
  });
});
