/**
 * No charge without an answer (issue 12, item 3), in process with the fake clock: a
 * reservation left by a server that died before answering is released at the next start
 * (charge, burst slot and cooldown); an export creation's job
 * commits with its charge and cached answer, or not at all.
 */
import { sqliteOf } from '../../src/store/database.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { POOL_PERIODS } from '../../src/policy/pools.js';
import { SqlitePolicyStore } from '../../src/policy/sqlitePolicyStore.js';
import { EXPORT_JOB_KIND } from '../../src/jobs/exportJobs.js';
import type { PaidOperation } from '../../src/policy/accessPolicy.js';
import { newClient } from '../tools/keyword/helpers.js';

let t: TestApp;
const importBody = (keywords: string[]) => ({ keywords, location_id: 2840, language_id: 1000 });

describe('charges and answers', () => {
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  // The embedded store's in-flight table; the scale mode's (Redis, released by owner liveness) is tested in test/scale.
  const embeddedOnly = process.env.QUARRY_TEST_SCALE === '1' ? 'in-flight reservations are on Redis in the scale mode (test/scale)' : false;
  test('a reservation never committed is released at the next start: charge, burst slot and cooldown', { skip: embeddedOnly }, async () => {
    const c = await newClient(t);
    const pool = async () => (await c.get('/limits')).json().resources['related-keywords'].remaining;
    const before = await pool();
    const plan = t.ctx.plans.premium;
    // What a server admitting an import does before it dies mid-import.
    const admission = await t.ctx.policy.store.admit({
      accountId: c.id,
      clientClass: 'api',
      pool: 'related-keywords',
      period: POOL_PERIODS['related-keywords'],
      poolLimit: plan.pools['related-keywords'],
      nowMs: t.clock.now(),
      windowMs: plan.burstWindowMs.api,
      burstSize: plan.reqsPerShortPeriod,
      cost: 1,
      cooldown: { name: 'keyword-import', ms: plan.importCooldownMs },
    });
    assert.ok(admission.ok);
    assert.equal(await pool(), before - 1);
    assert.equal((await c.post('/keyword-imports', importBody(['tent']))).statusCode, 429, 'the cooldown holds while the request is in flight');

    // The next start, on the same state store.
    assert.equal(await new SqlitePolicyStore(sqliteOf(t.ctx.state)).releaseInFlight(), 1);
    assert.equal(await pool(), before);
    const retry = await c.post('/keyword-imports', importBody(['tent']));
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(await pool(), before - 1);
    assert.equal(await new SqlitePolicyStore(sqliteOf(t.ctx.state)).releaseInFlight(), 0, 'a committed request leaves nothing in flight');
  });

  test('an import committed but never answered: its identical retry within the cooldown gets the same answer, free; any other import is refused', async () => {
    const c = await newClient(t);
    const pool = async () => (await c.get('/limits')).json().resources['related-keywords'].remaining;
    const before = await pool();
    // The server commits the import; the client never reads the answer (killed, dropped).
    const first = await c.post('/keyword-imports', importBody(['tent', ' hiking boots ']));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(await pool(), before - 1);
    t.clock.advance(5_000);
    const retry = await c.post('/keyword-imports', importBody(['tent', ' hiking boots ']));
    assert.equal(retry.statusCode, 200, retry.body);
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await pool(), before - 1, 'the retry is free');
    // Only a repeat of the import that started the cooldown: another one is refused.
    const other = await c.post('/keyword-imports', importBody(['tent']));
    assert.equal(other.statusCode, 429);
    assert.equal(other.json().error.type, 'RateLimit');
    // Another account repeating the same body has its own cooldown and pays for its own import.
    const stranger = await newClient(t);
    assert.equal((await stranger.post('/keyword-imports', importBody(['tent', ' hiking boots ']))).statusCode, 200);
    // Past the cooldown an identical import is a new lookup, executed and charged (never cached).
    t.clock.advance(30_000);
    const again = await c.post('/keyword-imports', importBody(['tent', ' hiking boots ']));
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['x-cache'], undefined);
    assert.equal(await pool(), before - 2);
    // And within its cooldown, a repeat of an older import (not the latest) is refused.
    t.clock.advance(31_000);
    assert.equal((await c.post('/keyword-imports', importBody(['gizmo']))).statusCode, 200);
    assert.equal((await c.post('/keyword-imports', importBody(['tent', ' hiking boots ']))).statusCode, 429);
  });

  test("an export's job commits with its charge, or neither exists", async () => {
    const { id } = await t.account('premium');
    const account = (await t.ctx.accounts.find(id))!;
    const op: PaidOperation = { pool: 'links', cost: () => 100 };
    const used = async () => (await t.ctx.policy.store.poolState(id, 'links', 'monthly', 500_000, t.clock.now())).remaining;
    const before = await used();
    const jobsOf = async () => (await t.ctx.jobs.list(id, { kind: EXPORT_JOB_KIND })).length;
    await assert.rejects(
      t.ctx.policy.run(op, {
        account,
        clientClass: 'web',
        operationId: 'test export',
        params: { n: 1 },
        execute: async (paid) => {
          const job = t.ctx.jobs.draft(EXPORT_JOB_KIND, id, {});
          paid.onCommit(t.ctx.jobs.insertWrite(job));
          throw new Error('died before the answer');
        },
      }),
    );
    assert.equal(await jobsOf(), 0);
    assert.equal(await used(), before);
    await assert.rejects(
      t.ctx.policy.run(op, {
        account,
        clientClass: 'web',
        operationId: 'test export',
        params: { n: 2 },
        execute: async (paid) => {
          const job = t.ctx.jobs.draft(EXPORT_JOB_KIND, id, {});
          paid.onCommit(t.ctx.jobs.insertWrite(job));
          // The commit itself fails after the job's insert: everything rolls back.
          paid.onCommit(() => {
            throw new Error('disk full');
          });
          return { status: 200, body: { _id: job.id } };
        },
      }),
    );
    assert.equal(await jobsOf(), 0);
    assert.equal(await used(), before);
    assert.equal(await t.ctx.policy.cachedResponse(op, id, 'x'), null);
    const ok = await t.ctx.policy.run(op, {
      account,
      clientClass: 'web',
      operationId: 'test export',
      params: { n: 3 },
      execute: async (paid) => {
        const job = t.ctx.jobs.draft(EXPORT_JOB_KIND, id, {});
        paid.onCommit(t.ctx.jobs.insertWrite(job));
        return { status: 200, body: { _id: job.id } };
      },
    });
    assert.equal(ok.status, 200);
    assert.equal(await jobsOf(), 1);
    assert.equal(await used(), before - 100);
  });
});
