import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeClock, SECOND } from '../../src/lib/clock.js';
import { isHexId } from '../../src/lib/ids.js';
import { type Job, JobQueue } from '../../src/jobs/jobQueue.js';
import { openStateStore, type StateStore } from '../../src/store/database.js';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

describe('job queue', () => {
  let store: StateStore;
  let clock: FakeClock;
  let queue: JobQueue;

  beforeEach(async () => {
    store = await openStateStore(':memory:');
    clock = new FakeClock();
    queue = new JobQueue(store, clock, { leaseMs: 30 * SECOND, retryDelayMs: () => 10 * SECOND });
  });
  afterEach(() => store.close());

  it('enqueues a job with a 24-hex id, queued, and no progress', async () => {
    const job = queue.enqueue('export', A, { url: 'example.com' });
    assert.ok(isHexId(job.id));
    assert.equal(job.state, 'queued');
    assert.equal(job.attempts, 0);
    assert.deepEqual(job.payload, { url: 'example.com' });
    assert.deepEqual(job.progress, { done: 0, total: null });
    assert.equal(job.createdMs, clock.now());
  });

  it('lists an account’s jobs newest first, and never another account’s', async () => {
    const first = queue.enqueue('export', A, { n: 1 });
    const second = queue.enqueue('export', A, { n: 2 });
    clock.advance(SECOND);
    const third = queue.enqueue('report', A, { n: 3 });
    const other = queue.enqueue('export', B, { n: 4 });
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
    const onCreated = () => created++;
    const first = queue.enqueue('export', A, { n: 1 }, { idempotencyKey: 'k1', onCreated });
    const again = queue.enqueue('export', A, { n: 2 }, { idempotencyKey: 'k1', onCreated });
    assert.equal(again.id, first.id);
    assert.deepEqual(again.payload, { n: 1 });
    assert.equal(created, 1);
    // The key is per account: another account's job with the same key is its own.
    const theirs = queue.enqueue('export', B, { n: 3 }, { idempotencyKey: 'k1', onCreated });
    assert.notEqual(theirs.id, first.id);
    assert.equal(created, 2);
    assert.equal((await queue.list(A)).length, 1);
  });

  it('hands a job to one claimer only', () => {
    const job = queue.enqueue('export', A, {});
    const claimed = queue.claim('w1', ['export']);
    assert.equal(claimed?.id, job.id);
    assert.equal(claimed?.state, 'running');
    assert.equal(claimed?.leaseOwner, 'w1');
    assert.equal(claimed?.attempts, 1);
    assert.equal(claimed?.leaseExpiresMs, clock.now() + 30 * SECOND);
    assert.equal(queue.claim('w2', ['export']), null);
  });

  it('claims only the given kinds, oldest first, and not before run-after', () => {
    const later = queue.enqueue('export', A, {}, { runAfterMs: clock.now() + 60 * SECOND });
    const report = queue.enqueue('report', A, {});
    const first = queue.enqueue('export', A, {});
    const second = queue.enqueue('export', A, {});
    assert.equal(queue.claim('w', ['export'])?.id, first.id);
    assert.equal(queue.claim('w', ['export'])?.id, second.id);
    assert.equal(queue.claim('w', ['export']), null);
    queue.complete(first.id, 'w', null);
    queue.complete(second.id, 'w', null);
    clock.advance(60 * SECOND);
    assert.equal(queue.claim('w', ['export'])?.id, later.id);
    assert.equal(queue.claim('w', ['report'])?.id, report.id);
    assert.equal(queue.claim('w', []), null);
  });

  it('makes a job claimable again when its worker’s lease runs out, and fences the old worker', () => {
    const job = queue.enqueue('export', A, {});
    queue.claim('dead', ['export']);
    clock.advance(29 * SECOND);
    assert.equal(queue.claim('w2', ['export']), null, 'lease still valid');
    clock.advance(SECOND);
    const again = queue.claim('w2', ['export']);
    assert.equal(again?.id, job.id);
    assert.equal(again?.attempts, 2);
    assert.equal(again?.leaseOwner, 'w2');
    // The presumed-dead worker comes back: none of its writes land.
    assert.equal(queue.heartbeat(job.id, 'dead'), false);
    assert.equal(queue.progress(job.id, 'dead', 5, 10), false);
    assert.equal(queue.complete(job.id, 'dead', { stale: true }), false);
    assert.equal(queue.fail(job.id, 'dead', 'boom', false), 'lost');
    assert.equal(queue.complete(job.id, 'w2', { ok: true }), true);
    assert.deepEqual(queue.byId(job.id)?.result, { ok: true });
  });

  it('heartbeats extend the lease', () => {
    const job = queue.enqueue('export', A, {});
    queue.claim('w1', ['export']);
    for (let i = 0; i < 5; i++) {
      clock.advance(20 * SECOND);
      assert.equal(queue.heartbeat(job.id, 'w1'), true);
      assert.equal(queue.claim('w2', ['export']), null);
    }
    assert.equal(queue.byId(job.id)?.heartbeatMs, clock.now());
  });

  it('fails a job for good when a lost lease used its last attempt, running the failure hook once', () => {
    const failed: Job[] = [];
    queue.onFailure('export', (job) => failed.push(job));
    const job = queue.enqueue('export', A, {}, { maxAttempts: 2 });
    queue.claim('w1', ['export']);
    clock.advance(30 * SECOND);
    assert.equal(queue.claim('w2', ['export'])?.attempts, 2);
    clock.advance(30 * SECOND);
    assert.equal(queue.claim('w3', ['export']), null);
    const stored = queue.byId(job.id)!;
    assert.equal(stored.state, 'failed');
    assert.match(stored.error ?? '', /worker lost after 2 attempts/);
    assert.equal(stored.completedMs, clock.now());
    assert.equal(failed.length, 1);
    assert.equal(failed[0].id, job.id);
    clock.advance(60 * SECOND);
    assert.equal(queue.claim('w4', ['export']), null);
    assert.equal(failed.length, 1);
  });

  it('retries a retryable failure after the back-off while attempts remain, then fails once', () => {
    let hookCalls = 0;
    queue.onFailure('export', () => hookCalls++);
    const job = queue.enqueue('export', A, {}, { maxAttempts: 2 });
    queue.claim('w1', ['export']);
    assert.equal(queue.fail(job.id, 'w1', 'upstream timeout', true), 'retrying');
    const retrying = queue.byId(job.id)!;
    assert.equal(retrying.state, 'queued');
    assert.equal(retrying.error, 'upstream timeout');
    assert.equal(retrying.runAfterMs, clock.now() + 10 * SECOND);
    assert.equal(queue.claim('w1', ['export']), null);
    clock.advance(10 * SECOND);
    assert.equal(queue.claim('w1', ['export'])?.attempts, 2);
    assert.equal(queue.fail(job.id, 'w1', 'upstream timeout again', true), 'failed');
    assert.equal(queue.byId(job.id)?.state, 'failed');
    assert.equal(hookCalls, 1);
    assert.equal(queue.fail(job.id, 'w1', 'again', false), 'lost');
    assert.equal(hookCalls, 1);
  });

  it('rolls the failure back when the failure hook throws', () => {
    queue.onFailure('export', () => {
      throw new Error('refund store unavailable');
    });
    const job = queue.enqueue('export', A, {});
    queue.claim('w1', ['export']);
    assert.throws(() => queue.fail(job.id, 'w1', 'bad', false), /refund store unavailable/);
    assert.equal(queue.byId(job.id)?.state, 'running', 'no failure without its refund');
  });

  it('a released job is claimable at once and the attempt does not count', () => {
    const job = queue.enqueue('export', A, {});
    queue.claim('w1', ['export']);
    queue.progress(job.id, 'w1', 3, 10, 'writing');
    assert.equal(queue.release(job.id, 'w1'), true);
    const released = queue.byId(job.id)!;
    assert.equal(released.state, 'queued');
    assert.equal(released.attempts, 0);
    assert.equal(released.stage, null);
    assert.equal(queue.claim('w2', ['export'])?.attempts, 1);
  });

  it('shows progress and stage while running', async () => {
    const job = queue.enqueue('export', A, {});
    queue.claim('w1', ['export']);
    assert.equal(queue.stage(job.id, 'w1', 'collecting'), true);
    assert.equal(queue.progress(job.id, 'w1', 250, 1000), true);
    const seen = (await queue.get(A, job.id))!;
    assert.equal(seen.stage, 'collecting');
    assert.deepEqual(seen.progress, { done: 250, total: 1000 });
  });

  it('expires a completed job once', () => {
    const job = queue.enqueue('export', A, {});
    queue.claim('w1', ['export']);
    queue.complete(job.id, 'w1', { fileName: 'x.csv' });
    let calls = 0;
    assert.equal(
      queue.expire(job.id, () => calls++),
      true,
    );
    assert.equal(
      queue.expire(job.id, () => calls++),
      false,
    );
    assert.equal(calls, 1);
    assert.equal(queue.byId(job.id)?.state, 'expired');
  });
});
