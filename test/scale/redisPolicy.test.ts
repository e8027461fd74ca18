/**
 * The scale mode's policy on a real Redis: two AccessPolicy instances, each with its own
 * Redis connections, cache mirror and state-store connection to one SQLite file, stand for
 * two API processes. Admission, single-flight, cache invalidation and the gateway limit
 * must hold across them exactly as inside one process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SharedGatewayLimiter } from '../../src/http/sharedGateway.js';
import { FakeClock } from '../../src/lib/clock.js';
import type { RedisHandle } from '../../src/lib/redis.js';
import { AccessPolicy, type PaidOperation } from '../../src/policy/accessPolicy.js';
import { loadPlans } from '../../src/policy/plans.js';
import { RedisFlights } from '../../src/policy/redis/redisFlights.js';
import { RedisPolicyStore } from '../../src/policy/redis/redisPolicyStore.js';
import { durableStateOf } from '../../src/policy/durableStateOf.js';
import { openStateStore, type StateStore } from '../../src/store/database.js';
import type { Account } from '../../src/accounts/accounts.js';
import { testRedis, testRedisPrefix } from '../support/redis.js';

interface Process {
  redis: RedisHandle & { dropKeys(): Promise<void> };
  state: StateStore;
  store: RedisPolicyStore;
  policy: AccessPolicy;
}

describe('scale mode: the policy on Redis across processes', () => {
  const clock = new FakeClock();
  const plans = loadPlans(null);
  const prefix = testRedisPrefix();
  let dir: string;
  const procs: Process[] = [];
  const account = { id: 'a'.repeat(24), plan: 'premium' } as Account;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-scale-'));
    for (let i = 0; i < 2; i++) {
      const redis = await testRedis(prefix);
      const state = await openStateStore(path.join(dir, 'state.db'));
      const store = new RedisPolicyStore(redis, durableStateOf(state));
      procs.push({ redis, state, store, policy: new AccessPolicy(store, plans, clock, new RedisFlights(redis)) });
    }
  });
  after(async () => {
    await procs[0].redis.dropKeys();
    for (const p of procs) {
      p.store.close();
      await p.redis.close();
      await p.state.close();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const op: PaidOperation = { pool: 'serps', cost: () => 1 };
  const run = (p: Process, params: unknown, execute: () => Promise<unknown>, clientClass: 'api' | 'web' = 'api') =>
    p.policy.run(op, {
      account,
      clientClass,
      operationId: 'GET /test',
      params,
      execute: async () => ({ status: 200, body: await execute() }),
    });
  const remaining = async () => (await procs[0].policy.poolStates(account)).serps.remaining;

  test('200 concurrent distinct requests from one account, half through each process, admit exactly the burst size', async () => {
    clock.advance(60_000);
    const before = await remaining();
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => run(procs[i % 2], { n: `distinct-${i}` }, async () => ({ i }))));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as { type?: string });
    assert.equal(admitted.length, plans.premium.reqsPerShortPeriod);
    assert.ok(refused.every((e) => e.type === 'RateLimit'));
    assert.equal(before - (await remaining()), plans.premium.reqsPerShortPeriod, 'charged once per admitted request');
  });

  test('200 concurrent identical requests across both processes execute once and are charged once', async () => {
    clock.advance(60_000);
    const before = await remaining();
    let executed = 0;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        run(procs[i % 2], { n: 'identical' }, async () => {
          executed++;
          await new Promise((r) => setTimeout(r, 30));
          return { answer: 42 };
        }),
      ),
    );
    assert.equal(executed, 1);
    assert.ok(results.every((r) => r.status === 200 && r.body === '{"answer":42}'));
    assert.equal(before - (await remaining()), 1);
  });

  test('a forget through one process makes the other execute the next identical request', async () => {
    clock.advance(60_000);
    let executed = 0;
    const exec = async () => ({ version: ++executed });
    assert.equal((await run(procs[1], { n: 'reset' }, exec)).body, '{"version":1}');
    // The other process mirrors the answer in memory on its first read.
    assert.equal((await run(procs[0], { n: 'reset' }, exec)).fromCache, true);
    await procs[1].policy.forgetAnswer(account.id, 'GET /test', { n: 'reset' });
    // The announcement reaches the other process's subscriber within moments (at most 1 s here).
    for (let i = 0; i < 100; i++) {
      if (!(await run(procs[0], { n: 'reset' }, exec)).fromCache) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(executed, 2, 'executed again after the forget');
  });

  test('reservations of a process that died are released; a live process keeps its own', async () => {
    clock.advance(60_000);
    const before = await remaining();
    const admit = (store: RedisPolicyStore) =>
      store.admit({
        accountId: account.id,
        clientClass: 'web',
        pool: 'serps',
        period: 'daily',
        poolLimit: plans.premium.pools.serps,
        nowMs: clock.now(),
        windowMs: 1,
        burstSize: 1000,
        cost: 5,
      });
    const live = await admit(procs[0].store);
    assert.ok(live.ok);
    // A third process that admits and dies without renewing its liveness mark.
    const redis = await testRedis(prefix);
    const state = await openStateStore(path.join(dir, 'state.db'));
    const dead = new RedisPolicyStore(redis, durableStateOf(state));
    assert.ok((await admit(dead)).ok);
    dead.close();
    await redis.client.del(`${prefix}alive:${dead.owner}`);
    await redis.close();
    await state.close();
    assert.equal(before - (await remaining()), 10);
    assert.equal(await procs[1].store.releaseInFlight(), 1, "only the dead process's reservation");
    assert.equal(before - (await remaining()), 5);
    await procs[0].store.release(live.reservation);
    await procs[0].store.release(live.reservation);
    assert.equal(await remaining(), before, 'a release is undone once, however often it is sent');
  });

  test('the gateway admits rps per second per address in total across processes', async () => {
    const gateways = procs.map((p) => new SharedGatewayLimiter(4, clock, p.redis));
    clock.advance(10_000);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => gateways[i % 2].admit('203.0.113.7')));
    assert.equal(answers.filter(Boolean).length, 4);
    assert.equal(await gateways[0].admit('203.0.113.8'), true, 'another address has its own second');
    clock.advance(1001);
    assert.equal(await gateways[1].admit('203.0.113.7'), true, 'the next second admits again');
  });
});
