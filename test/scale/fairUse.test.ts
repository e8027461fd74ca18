/**
 * Fair use in the scale mode: two app instances (each its own Redis connections, policy
 * store and state-store connection) on one Redis and one data directory stand for two API
 * processes. The free-write budget, the bulk-read slots and the live-export places are the
 * account's, not each process's: one budget across both, exactly, under concurrency; and a
 * process that dies holding slots loses them when its liveness lease runs out.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FakeClock, SECOND } from '../../src/lib/clock.js';
import { RedisPolicyStore } from '../../src/policy/redis/redisPolicyStore.js';
import { testApp, type TestApp } from '../support/app.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';
import { createTestDatabase } from '../support/postgres.js';

describe('scale mode: fair use shared by every process on one Redis', () => {
  const clock = new FakeClock();
  let dir: string;
  let a: TestApp;
  let b: TestApp;
  let key: string;
  let accountId: string;
  // Under test:scale each test app gets a PostgreSQL database of its own; two processes of
  // one deployment share one, as they share the data directory in the embedded mode.
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-scale-fair-'));
    if (process.env.QUARRY_TEST_SCALE === '1') database = await createTestDatabase();
    const env = {
      QUARRY_REDIS_URL: TEST_REDIS_URL,
      QUARRY_REDIS_PREFIX: testRedisPrefix(),
      QUARRY_FREE_WRITES_PER_MINUTE: '12',
      ...(database ? { QUARRY_DATABASE_URL: database.url } : {}),
    };
    a = await testApp({ clock, dataDir: dir, env });
    b = await testApp({ clock, dataDir: dir, env });
    ({ key, id: accountId } = await a.account('premium'));
  });
  after(async () => {
    await a.close();
    await b.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const send = (app: TestApp, method: 'GET' | 'POST', url: string, payload?: object) =>
    app.app.inject({ method, url, headers: { 'x-access-token': key }, ...(payload ? { payload } : {}) });
  const createList = (app: TestApp, name: string) => send(app, 'POST', '/v3/keyword-tool/lists', { name, keyword_ids: [] });

  test('two processes give an account one free-write budget: 12 units in all, alternating or all at once', async () => {
    for (let i = 0; i < 12; i++) assert.equal((await createList(i % 2 ? b : a, `l${i}`)).statusCode, 201, `write ${i}`);
    for (const app of [a, b]) {
      const refused = await createList(app, 'one more');
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.json().error.type, 'RateLimit');
      assert.equal(refused.json().error.retry_after, 5);
    }
    // A full bucket again, then 40 writes at once, half through each process: exactly 12 go.
    clock.advance(60 * SECOND);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => createList(i % 2 ? b : a, `c${i}`)));
    assert.equal(results.filter((r) => r.statusCode === 201).length, 12);
    assert.ok(results.every((r) => r.statusCode === 201 || r.statusCode === 429));
    const lists = await send(b, 'GET', '/v3/keyword-tool/lists');
    assert.equal(lists.json().length, 24, 'every admitted write stored, no refused one');
  });

  test('bulk-read slots are the account’s across processes', async () => {
    const held = [await a.ctx.fairUse.bulk.take(accountId), await a.ctx.fairUse.bulk.take(accountId)];
    const refused = await send(b, 'GET', '/v3/keyword-tool/lists');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.type, 'RateLimit');
    held[0]();
    // The release is sent without waiting; the next command on that connection follows it.
    await a.ctx.redis!.client.ping();
    assert.equal((await send(b, 'GET', '/v3/keyword-tool/lists')).statusCode, 200);
    held[1]();
    await a.ctx.redis!.client.ping();
    // Slots come back after every answer, whichever process gave it.
    for (let i = 0; i < 6; i++) assert.equal((await send(i % 2 ? a : b, 'GET', '/v3/keyword-tool/lists')).statusCode, 200);
  });

  test('backlink exports created at once through both processes: at most three live, the others refused before any charge', async () => {
    const exportsOf = async () => (await send(a, 'GET', '/v3/link-tool/exports')).json() as unknown[];
    assert.equal((await send(a, 'POST', '/v3/link-tool/exports/suggest', { url: 'learnhub.com' })).statusCode, 200);
    clock.advance(11 * SECOND);
    assert.equal((await send(b, 'POST', '/v3/link-tool/exports', { url: 'learnhub.com', limit: 10 })).statusCode, 200);
    const pool = async () => (await a.ctx.policy.poolStates({ id: accountId, plan: 'premium' } as never)).links.remaining;
    const before = await pool();
    // One live; three distinct creates at once (the burst admits three): two places are left.
    clock.advance(11 * SECOND);
    const results = await Promise.all([11, 12, 13].map((limit, i) => send(i % 2 ? a : b, 'POST', '/v3/link-tool/exports', { url: 'learnhub.com', limit })));
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, 200, 429], results.map((r) => r.body).join('\n'));
    const refused = results.find((r) => r.statusCode === 429)!;
    assert.equal(refused.json().error.type, 'RateLimit');
    assert.equal((await exportsOf()).length, 3);
    const charged = results.filter((r) => r.statusCode === 200).reduce((sum, r) => sum + (r.json() as { cost: number }).cost, 0);
    assert.equal(before - (await pool()), charged, 'the refused create was not charged');
  });

  test('slots of a process that died are freed when its liveness lease runs out', async () => {
    await a.ctx.fairUse.bulk.take(accountId);
    await a.ctx.fairUse.bulk.take(accountId);
    assert.equal((await send(b, 'GET', '/v3/keyword-tool/lists')).statusCode, 429);
    // Process A dies: it stops renewing its lease, and the lease runs out (deleted here rather than waited for).
    const store = (a.ctx.policy as unknown as { store: RedisPolicyStore }).store;
    store.close();
    await a.ctx.redis!.client.del(`${store.aliveKeyPrefix}${store.owner}`);
    assert.equal((await send(b, 'GET', '/v3/keyword-tool/lists')).statusCode, 200);
  });
});
