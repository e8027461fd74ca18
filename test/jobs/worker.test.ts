import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FakeClock, SECOND } from '../../src/lib/clock.js';
import { JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { type JobContext, LeaseLostError, PermanentJobError, Worker, WorkerStoppingError } from '../../src/jobs/worker.js';
import type { StateStore } from '../../src/store/database.js';
import { testStateStore } from '../support/postgres.js';

const ACCOUNT = 'c'.repeat(24);

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Waits (briefly, in real time) for an asynchronous worker step to happen. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('worker', () => {
  let store: StateStore;
  let clock: FakeClock;
  let queue: JobQueue;
  const workers: Worker[] = [];
  const worker = (options: ConstructorParameters<typeof Worker>[1] = {}) => {
    const w = new Worker(queue, { pollIntervalMs: 10, ...options });
    workers.push(w);
    return w;
  };

  beforeEach(async () => {
    store = await testStateStore();
    clock = new FakeClock();
    queue = openJobQueue(store, clock, { leaseMs: 30 * SECOND, retryDelayMs: () => SECOND });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop(0)));
    await store.close();
  });

  it('runs a job with its handler and records the result; progress is visible while it runs', async () => {
    const gate = deferred();
    const noted = deferred();
    const w = worker().register('echo', {
      async run(ctx: JobContext<{ text: string }>) {
        await ctx.stage('working');
        await ctx.progress(1, 4);
        noted.resolve();
        await gate.promise;
        await ctx.progress(4, 4);
        return { echoed: ctx.job.payload.text, at: ctx.clock.now() };
      },
    });
    const job = await queue.enqueue('echo', ACCOUNT, { text: 'hi' });
    assert.equal(await w.poll(), 1);
    await noted.promise;
    const running = (await queue.get(ACCOUNT, job.id))!;
    assert.equal(running.state, 'running');
    assert.equal(running.stage, 'working');
    assert.deepEqual(running.progress, { done: 1, total: 4 });
    gate.resolve();
    await w.idle();
    const done = (await queue.get(ACCOUNT, job.id))!;
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.result, { echoed: 'hi', at: clock.now() });
    assert.deepEqual(done.progress, { done: 4, total: 4 });
  });

  it('runs at most `concurrency` jobs at once and picks up the rest as slots free', async () => {
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    let concurrent = 0;
    let peak = 0;
    const w = worker({ concurrency: 2 }).register('slow', {
      async run(ctx) {
        concurrent++;
        peak = Math.max(peak, concurrent);
        const gate = deferred();
        gates.set(ctx.job.id, gate);
        await gate.promise;
        concurrent--;
        return null;
      },
    });
    const jobs = await Promise.all(Array.from({ length: 5 }, () => queue.enqueue('slow', ACCOUNT, {})));
    w.start();
    await until(() => gates.size === 2, 'two jobs to start');
    assert.equal(w.runningCount, 2);
    assert.equal((await queue.list(ACCOUNT)).filter((j) => j.state === 'running').length, 2);
    let released = 0;
    while (released < jobs.length) {
      await until(() => gates.size > 0, 'a running job');
      const [id, gate] = gates.entries().next().value!;
      gates.delete(id);
      gate.resolve();
      released++;
    }
    await until(() => w.runningCount === 0 && gates.size === 0, 'all jobs');
    assert.equal(peak, 2);
    assert.ok((await queue.list(ACCOUNT)).every((j) => j.state === 'completed'));
  });

  it('retries a failing job and fails it for good on a permanent error, running the failure hook once', async () => {
    let refunds = 0;
    let calls = 0;
    const w = worker().register('flaky', {
      async run() {
        calls++;
        if (calls === 1) throw new Error('connection reset');
        throw new PermanentJobError('target not found');
      },
      onFailure: () => refunds++,
    });
    const job = await queue.enqueue('flaky', ACCOUNT, {}, { maxAttempts: 5 });
    await w.poll();
    await w.idle();
    assert.equal((await queue.byId(job.id))?.state, 'queued');
    assert.equal((await queue.byId(job.id))?.error, 'connection reset');
    clock.advance(SECOND);
    await w.poll();
    await w.idle();
    const failed = (await queue.byId(job.id))!;
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error, 'target not found');
    assert.equal(refunds, 1);
  });

  it('aborts a job whose lease another worker took over, and drops its result', async () => {
    const started = deferred<JobContext>();
    const w = worker({ heartbeatIntervalMs: 60_000 }).register('long', {
      async run(ctx) {
        started.resolve(ctx);
        await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
        return { from: 'first' };
      },
    });
    const job = await queue.enqueue('long', ACCOUNT, {});
    await w.poll();
    const ctx = await started.promise;
    clock.advance(30 * SECOND);
    assert.equal((await queue.claim('second', ['long']))?.id, job.id);
    await ctx.heartbeat();
    assert.equal(ctx.signal.aborted, true);
    assert.ok(ctx.signal.reason instanceof LeaseLostError);
    await w.idle();
    const stored = (await queue.byId(job.id))!;
    assert.equal(stored.state, 'running');
    assert.equal(stored.leaseOwner, 'second');
  });

  it('on stop, lets a job finish within the grace period', async () => {
    const w = worker().register('quick', {
      async run() {
        await sleep(30);
        return 'done';
      },
    });
    const job = await queue.enqueue('quick', ACCOUNT, {});
    await w.poll();
    await w.stop(5_000);
    assert.equal((await queue.byId(job.id))?.state, 'completed');
    await queue.enqueue('quick', ACCOUNT, {});
    assert.equal(await w.poll(), 0, 'a stopped worker claims nothing');
  });

  it('on stop, releases the lease of a job that does not finish in time', async () => {
    let reason: unknown;
    const w = worker().register('stuck', {
      async run(ctx) {
        ctx.progress(7, 100);
        await new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        );
      },
    });
    const job = await queue.enqueue('stuck', ACCOUNT, {});
    await w.poll();
    await w.stop(20);
    assert.ok(reason instanceof WorkerStoppingError);
    const released = (await queue.byId(job.id))!;
    assert.equal(released.state, 'queued');
    assert.equal(released.attempts, 0);
    assert.equal(released.leaseOwner, null);
    // Another worker takes it at once, without waiting for a lease to run out.
    assert.equal((await queue.claim('next', ['stuck']))?.id, job.id);
  });

  it('survives a store that cannot record the outcome: the lease runs out and the job runs again', async () => {
    const real = openJobQueue(store, clock, { leaseMs: 30 * SECOND });
    const busy: JobQueue = Object.assign(Object.create(real) as JobQueue, {
      complete: async (): Promise<boolean> => {
        throw new Error('SQLITE_BUSY: database is locked');
      },
    });
    const logged: string[] = [];
    const w = new Worker(busy, { logger: { info() {}, warn() {}, error: (_o, msg) => logged.push(msg) } });
    workers.push(w);
    w.register('echo', { run: async () => 'ok' });
    const job = await busy.enqueue('echo', ACCOUNT, {});
    await w.poll();
    await w.idle();
    assert.deepEqual(logged, ['could not record the job outcome']);
    assert.equal((await busy.byId(job.id))?.state, 'running');
    clock.advance(30 * SECOND);
    assert.equal((await queue.claim('healthy', ['echo']))?.attempts, 2);
  });
});
