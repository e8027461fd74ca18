/**
 * Answers cached by an earlier release (marked stale by migration 0010 when answer shapes
 * changed) are never served again, yet the identical repeat they stand for stays free within
 * its 24 hours: it is executed anew and charged nothing, and its fresh answer is what the
 * cache serves from then on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { AccessPolicy, type PaidOperation } from '../../src/policy/accessPolicy.js';
import { openAccessPolicy } from '../../src/service.js';
import { HOUR } from '../../src/lib/clock.js';

let t: TestApp;

describe('stale cached answers after an upgrade', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('a stale entry is not served; its repeat is executed free and then cached', async () => {
    const { id, key } = await t.account('premium');
    const account = (await t.ctx.accounts.byKey(key))!;
    const op: PaidOperation<{ q: string }> = { pool: 'serps' };
    let executions = 0;
    const request = (policy: AccessPolicy) =>
      policy.run(op, {
        account,
        clientClass: 'api',
        operationId: 'GET /fixture',
        params: { q: 'x' },
        execute: async () => ({ status: 200, body: { shape: 'new', n: ++executions } }),
      });
    const used = async () => (await t.ctx.policy.store.poolState(id, 'serps', 'daily', 500, t.clock.now())).remaining;

    // Answered by "the previous release", in its shape, and charged once.
    const old = await request(t.ctx.policy);
    assert.equal(await used(), 499);
    await t.ctx.state.db.updateTable('request_cache').set({ stale: 1, body: '{"shape":"old"}' }).execute();
    t.clock.advance(HOUR);

    // A new process (the upgrade) reads the entry from the table, not from a memory mirror.
    const upgraded = openAccessPolicy(t.ctx.state, t.ctx.redis, t.ctx.plans, t.clock);
    const repeat = await request(upgraded);
    assert.equal(repeat.fromCache, false);
    assert.deepEqual(JSON.parse(repeat.body!), { shape: 'new', n: 2 });
    assert.notEqual(repeat.body, old.body);
    assert.equal(await used(), 499, 'the owed repeat is charged nothing');

    const again = await request(upgraded);
    assert.equal(again.fromCache, true);
    assert.deepEqual(JSON.parse(again.body!), { shape: 'new', n: 2 });
    assert.equal(executions, 2);
    await upgraded.close();
  });
});
