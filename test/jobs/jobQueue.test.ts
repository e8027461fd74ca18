import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeClock, SECOND } from '../../src/lib/clock.js';
import { isHexId } from '../../src/lib/ids.js';
import { type Job, JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import type { StateStore } from '../../src/store/database.js';
import { scaleMode, testStateStore } from '../support/postgres.js';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

describe(`job queue (${scaleMode ? 'PostgreSQL' : 'SQLite'})`, () => {
  let store: StateStore;
  let clock: FakeClock;
  let queue: JobQueue;

  beforeEach(async () => {
    store = await testStateStore();
    clock = new FakeClock();
    queue = openJobQueue(store, clock, { leaseMs: 30 * SECOND, retryDelayMs: () => 10 * SECOND });
  });
  afterEach(() => store.close());

  it('enqueues a job with a 24-hex id, queued, and no progress', async () => {
    const job = await queue.enqueue('export', A, { url: 'example.com' });
    assert.ok(isHexId(job.id));
    assert.equal(job.state, 'queued');
    assert.equal(job.attempts, 0);
    assert.deepEqual(job.payload, { url: 'example.com' });
    assert.deepEqual(job.progress, { done: 0, total: null });
    assert.equal(job.createdMs, clock.now());
  });

  it('lists an account’s jobs newest first, and never another account’s', async () => {
    const first = await queue.enqueue('export', A, { n: 1 });
    const second = await queue.enqueue('export', A, { n: 2 });
    clock.advance(SECOND);
    const third = await queue.enqueue('report', A, { n: 3 });
    const other = await queue.enqueue('export', B, { n: 4 });
    assert.deepEqual(
      (await queue.list(A)).map((j) => j.id),
      [third.id, second.id, first.id],
    );
    assert.deepEqual(
      (await queue.list(A, { kind: 'export' })).map((j) => j.id),
      [second.id, first.id],
    );
    assert.deepEqual(
      (await queue.list(B)).map((j) => j.id),
      [other.id],
    );
    assert.equal((await queue.get(A, first.id))?.id, first.id);
    assert.equal(await queue.get(B, first.id), null);
    assert.equal(await queue.get(A, other.id), null);
  });

  it('returns the existing job for a repeated idempotency key, creating (and charging) once', async () => {
    let created = 0;
    const onCreated = () => void created++;
    const first = await queue.enqueue('export', A, { n: 1 }, { idempotencyKey: 'k1', onCreated });
    const again = await queue.enqueue('export', A, { n: 2 }, { idempotencyKey: 'k1', onCreated });
    assert.equal(again.id, first.id);
    assert.deepEqual(again.payload, { n: 1 });
    assert.equal(created, 1);
    // The key is per account: another account's job with the same key is its own.
    const theirs = await queue.enqueue('export', B, { n: 3 }, { idempotencyKey: 'k1', onCreated });
    assert.notEqual(theirs.id, first.id);
    assert.equal(created, 2);
    assert.equal((await queue.list(A)).length, 1);
  });

  it('hands a job to one claimer only', async () => {
    const job = await queue.enqueue('export', A, {});
    const claimed = await queue.claim('w1', ['export']);
    assert.equal(claimed?.id, job.id);
    assert.equal(claimed?.state, 'running');
    assert.equal(claimed?.leaseOwner, 'w1');
    assert.equal(claimed?.attempts, 1);
    assert.equal(claimed?.leaseExpiresMs, clock.now() + 30 * SECOND);
    assert.equal(await queue.claim('w2', ['export']), null);
  });

  it('claims only the given kinds, oldest first, and not before run-after', async () => {
    const later = await queue.enqueue('export', A, {}, { runAfterMs: clock.now() + 60 * SECOND });
    const report = await queue.enqueue('report', A, {});
    const first = await queue.enqueue('export', A, {});
    const second = await queue.enqueue('export', A, {});
    assert.equal((await queue.claim('w', ['export']))?.id, first.id);
    assert.equal((await queue.claim('w', ['export']))?.id, second.id);
    assert.equal(await queue.claim('w', ['export']), null);
    await queue.complete(first.id, 'w', null);
    await queue.complete(second.id, 'w', null);
    clock.advance(60 * SECOND);
    assert.equal((await queue.claim('w', ['export']))?.id, later.id);
    assert.equal((await queue.claim('w', ['report']))?.id, report.id);
    assert.equal(await queue.claim('w', []), null);
  });

  it('makes a job claimable again when its worker’s lease runs out, and fences the old worker', async () => {
    const job = await queue.enqueue('export', A, {});
    await queue.claim('dead', ['export']);
    clock.advance(29 * SECOND);
    assert.equal(await queue.claim('w2', ['export']), null, 'lease still valid');
    clock.advance(SECOND);
    const again = await queue.claim('w2', ['export']);
    assert.equal(again?.id, job.id);
    assert.equal(again?.attempts, 2);
    assert.equal(again?.leaseOwner, 'w2');
    // The presumed-dead worker comes back: none of its writes land.
    assert.equal(await queue.heartbeat(job.id, 'dead'), false);
    assert.equal(await queue.progress(job.id, 'dead', 5, 10), false);
    assert.equal(await queue.complete(job.id, 'dead', { stale: true }), false);
    assert.equal(await queue.fail(job.id, 'dead', 'boom', false), 'lost');
    assert.equal(await queue.complete(job.id, 'w2', { ok: true }), true);
    assert.deepEqual((await queue.byId(job.id))?.result, { ok: true });
  });

  it('heartbeats extend the lease', async () => {
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    for (let i = 0; i < 5; i++) {
      clock.advance(20 * SECOND);
      assert.equal(await queue.heartbeat(job.id, 'w1'), true);
      assert.equal(await queue.claim('w2', ['export']), null);
    }
    assert.equal((await queue.byId(job.id))?.heartbeatMs, clock.now());
  });

  it('fails a job for good when a lost lease used its last attempt, running the failure hook once', async () => {
    const failed: Job[] = [];
    queue.onFailure('export', (job) => failed.push(job));
    const job = await queue.enqueue('export', A, {}, { maxAttempts: 2 });
    await queue.claim('w1', ['export']);
    clock.advance(30 * SECOND);
    assert.equal((await queue.claim('w2', ['export']))?.attempts, 2);
    clock.advance(30 * SECOND);
    assert.equal(await queue.claim('w3', ['export']), null);
    const stored = (await queue.byId(job.id))!;
    assert.equal(stored.state, 'failed');
    assert.match(stored.error ?? '', /worker lost after 2 attempts/);
    assert.equal(stored.completedMs, clock.now());
    assert.equal(failed.length, 1);
    assert.equal(failed[0].id, job.id);
    clock.advance(60 * SECOND);
    assert.equal(await queue.claim('w4', ['export']), null);
    assert.equal(failed.length, 1);
  });

  it('retries a retryable failure after the back-off while attempts remain, then fails once', async () => {
    let hookCalls = 0;
    queue.onFailure('export', () => hookCalls++);
    const job = await queue.enqueue('export', A, {}, { maxAttempts: 2 });
    await queue.claim('w1', ['export']);
    assert.equal(await queue.fail(job.id, 'w1', 'upstream timeout', true), 'retrying');
    const retrying = (await queue.byId(job.id))!;
    assert.equal(retrying.state, 'queued');
    assert.equal(retrying.error, 'upstream timeout');
    assert.equal(retrying.runAfterMs, clock.now() + 10 * SECOND);
    assert.equal(await queue.claim('w1', ['export']), null);
    clock.advance(10 * SECOND);
    assert.equal((await queue.claim('w1', ['export']))?.attempts, 2);
    assert.equal(await queue.fail(job.id, 'w1', 'upstream timeout again', true), 'failed');
    assert.equal((await queue.byId(job.id))?.state, 'failed');
    assert.equal(hookCalls, 1);
    assert.equal(await queue.fail(job.id, 'w1', 'again', false), 'lost');
    assert.equal(hookCalls, 1);
  });

  it('rolls the failure back when the failure hook throws (SQLite: the hook runs inside the transaction)', { skip: scaleMode }, async () => {
    queue.onFailure('export', () => {
      throw new Error('refund store unavailable');
    });
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    await assert.rejects(() => queue.fail(job.id, 'w1', 'bad', false), /refund store unavailable/);
    assert.equal((await queue.byId(job.id))?.state, 'running', 'no failure without its refund');
  });

  it('runs the failure hook after the failure committed, once (PostgreSQL: the refund is on Redis)', { skip: !scaleMode }, async () => {
    const seen: (string | undefined)[] = [];
    queue.onFailure('export', async (failed) => {
      seen.push((await queue.byId(failed.id))?.state);
      throw new Error('refund store unavailable');
    });
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    assert.equal(await queue.fail(job.id, 'w1', 'bad', false), 'failed');
    assert.equal(await queue.fail(job.id, 'w1', 'bad', false), 'lost');
    assert.deepEqual(seen, ['failed']);
  });

  it('concurrent claimers never take the same job, and take every due job', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add((await queue.enqueue('export', i % 2 ? A : B, { i })).id);
    const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => queue.claim(`w${i}`, ['export'])));
    const taken = claims.filter((j) => j !== null).map((j) => j!.id);
    assert.equal(taken.length, 30);
    assert.equal(new Set(taken).size, 30, 'no job claimed twice');
    assert.deepEqual(new Set(taken), ids);
  });

  it('concurrent enqueues with one idempotency key create one job', async () => {
    let created = 0;
    const jobs = await Promise.all(
      Array.from({ length: 10 }, () => queue.enqueue('export', A, {}, { idempotencyKey: 'same', onCreated: () => void created++ })),
    );
    assert.equal(new Set(jobs.map((j) => j.id)).size, 1);
    assert.equal(created, 1);
  });

  it('a released job is claimable at once and the attempt does not count', async () => {
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    await queue.progress(job.id, 'w1', 3, 10, 'writing');
    assert.equal(await queue.release(job.id, 'w1'), true);
    const released = (await queue.byId(job.id))!;
    assert.equal(released.state, 'queued');
    assert.equal(released.attempts, 0);
    assert.equal(released.stage, null);
    assert.equal((await queue.claim('w2', ['export']))?.attempts, 1);
  });

  it('shows progress and stage while running', async () => {
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    assert.equal(await queue.stage(job.id, 'w1', 'collecting'), true);
    assert.equal(await queue.progress(job.id, 'w1', 250, 1000), true);
    const seen = (await queue.get(A, job.id))!;
    assert.equal(seen.stage, 'collecting');
    assert.deepEqual(seen.progress, { done: 250, total: 1000 });
  });

  it('expires a completed job once', async () => {
    const job = await queue.enqueue('export', A, {});
    await queue.claim('w1', ['export']);
    await queue.complete(job.id, 'w1', { fileName: 'x.csv' });
    let calls = 0;
    assert.equal(await queue.expire(job.id, () => calls++), true);
    assert.equal(await queue.expire(job.id, () => calls++), false);
    assert.equal(calls, 1);
    assert.equal((await queue.byId(job.id))?.state, 'expired');
  });
});
