/**
 * A worker polls the job queue, runs the handler registered for each job's kind, keeps
 * the job's lease alive with heartbeats, and records the outcome. It runs at most
 * `concurrency` jobs at once. `stop()` (SIGTERM) stops claiming, lets running jobs finish
 * within a grace period, and gives back the leases of those that do not, so another
 * worker takes them at once.
 *
 * @example
 * const worker = new Worker(queue, { concurrency: 2 });
 * worker.register('backlink-export', exportHandler);
 * worker.start();
 * process.once('SIGTERM', () => void worker.stop());
 */
import { hostname } from 'node:os';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { FailureHook, Job, JobQueue } from './jobQueue.js';
import type { JobOutcome, ProcessMetrics } from '../metrics/processMetrics.js';

/** What a handler sees of the job it runs. */
export interface JobContext<P = unknown> {
  job: Job<P>;
  /** Aborted when the job must stop: its lease was lost, or the worker is shutting down. */
  signal: AbortSignal;
  clock: Clock;
  /**
   * Records progress, visible to API clients while the job runs. Updates are stored in the
   * order they were made; the promise (which never rejects) resolves once this one is.
   */
  progress(done: number, total?: number | null): Promise<void>;
  /** Enters a named stage (an export's `collecting`, `writing`). */
  stage(name: string): Promise<void>;
  /** Renews the lease now; the worker also does so on a timer. A lost lease aborts `signal`. */
  heartbeat(): Promise<void>;
}

export interface JobHandler<P = unknown, R = unknown> {
  run(ctx: JobContext<P>): Promise<R>;
  /** Runs in the transaction that fails the job for good (see FailureHook): a refund. */
  onFailure?: FailureHook;
}

/** Thrown by a handler for a failure that a retry cannot fix (bad payload, missing target). */
export class PermanentJobError extends Error {}

/** The reason a job's signal is aborted when another worker now owns the job. */
export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`lease on job ${jobId} lost`);
  }
}

/** The reason a job's signal is aborted when the worker stops before the job finished. */
export class WorkerStoppingError extends Error {
  constructor() {
    super('worker stopping');
  }
}

export interface WorkerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerOptions {
  /** Lease owner name; unique per worker. Default host:pid:random. */
  id?: string;
  /** Jobs run at once. Default 2. */
  concurrency?: number;
  /** Wait between polls when there was nothing to claim. Default 1 s. */
  pollIntervalMs?: number;
  /** Default a third of the queue's lease. */
  heartbeatIntervalMs?: number;
  /** How long `stop()` waits for running jobs before releasing them. Default 10 s. */
  shutdownGraceMs?: number;
  logger?: WorkerLogger;
  /** Where each run's duration goes, by kind and outcome (the process's metrics). */
  metrics?: Pick<ProcessMetrics, 'jobFinished'>;
}

const silent: WorkerLogger = { info() {}, warn() {}, error() {} };

interface Running {
  job: Job;
  controller: AbortController;
  done: Promise<void>;
}

export class Worker {
  readonly id: string;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Running>();
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly heartbeatIntervalMs: number;
  private readonly shutdownGraceMs: number;
  private readonly log: WorkerLogger;
  private readonly metrics: WorkerOptions['metrics'];
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopping = false;
  private idleWaiters: Array<() => void> = [];
  /** Polls run one after another (the timer's and a test's), so slots are never over-filled. */
  private polling: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly queue: JobQueue,
    options: WorkerOptions = {},
  ) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${newId().slice(0, 6)}`;
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? Math.max(50, Math.floor(queue.leaseMs / 3));
    this.shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
    this.log = options.logger ?? silent;
    this.metrics = options.metrics;
  }

  /** Registers the handler of a kind; its failure hook also applies to jobs this worker finds abandoned. */
  register<P, R>(kind: string, handler: JobHandler<P, R>): this {
    this.handlers.set(kind, handler as JobHandler);
    if (handler.onFailure) this.queue.onFailure(kind, handler.onFailure);
    return this;
  }

  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Starts polling on a timer. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /**
   * Claims jobs until every slot is busy or nothing is due, and starts them. Resolves to how
   * many it started. Tests call this directly instead of waiting for the timer.
   */
  poll(): Promise<number> {
    const next = this.polling.catch(() => 0).then(() => this.pollOnce());
    this.polling = next;
    return next;
  }

  private async pollOnce(): Promise<number> {
    let startedNow = 0;
    while (!this.stopping && this.running.size < this.concurrency) {
      const job = await this.queue.claim(this.id, this.kinds);
      if (!job) break;
      // Stopped while the claim was on its way: the job goes straight back.
      if (this.stopping) {
        await this.queue.release(job.id, this.id);
        break;
      }
      this.launch(job);
      startedNow++;
    }
    return startedNow;
  }

  /** Resolves when no job is running. */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops claiming, waits up to the grace period for running jobs, then aborts the rest
   * and gives their leases back (the attempt does not count).
   */
  async stop(graceMs = this.shutdownGraceMs): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running.size === 0) return;
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, graceMs)))]);
    clearTimeout(graceTimer);
    const unfinished = [...this.running.values()];
    for (const r of unfinished) {
      // Release first: from here on the job is the queue's again, whatever the handler does.
      await this.queue.release(r.job.id, this.id).catch((err: unknown) => this.log.error({ job: r.job.id, err }, 'could not release job'));
      r.controller.abort(new WorkerStoppingError());
      this.log.info({ job: r.job.id }, 'released job on shutdown');
    }
    await Promise.allSettled(unfinished.map((r) => r.done));
  }

  private schedule(delayMs: number): void {
    if (this.stopping || !this.started) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.poll()
        .catch((err: unknown) => this.log.error({ err }, 'poll failed'))
        .finally(() => this.schedule(this.pollIntervalMs));
    }, delayMs);
  }

  private launch(job: Job): void {
    const controller = new AbortController();
    const entry: Running = { job, controller, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = this.execute(job, controller)
      // Recording the outcome can fail too (the store busy for longer than its timeout);
      // the lease then runs out and the job is re-run, so the process must not die of it.
      .catch((err: unknown) => this.log.error({ job: job.id, err }, 'could not record the job outcome'))
      .finally(() => {
        this.running.delete(job.id);
        if (this.running.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        // A slot is free: look for the next job now rather than after a full poll interval.
        if (this.started && !this.stopping) this.schedule(0);
      });
  }

  private async execute(job: Job, controller: AbortController): Promise<void> {
    const handler = this.handlers.get(job.kind)!;
    const lost = () => {
      if (!controller.signal.aborted) controller.abort(new LeaseLostError(job.id));
    };
    // The handler's updates are recorded in the order it made them (one chain per job); a
    // false answer means the lease is gone. The outcome is recorded after the last of them.
    let updates: Promise<void> = Promise.resolve();
    const record = (what: string, update: () => Promise<boolean>): Promise<void> => {
      return (updates = updates.then(async () => {
        if (controller.signal.aborted) return;
        try {
          if (!(await update())) lost();
        } catch (err) {
          // A missed beat or progress note is survivable: the next one extends the lease, or finds it lost.
          this.log.warn({ job: job.id, err }, `${what} failed`);
        }
      }));
    };
    const heartbeat = () => record('heartbeat', () => this.queue.heartbeat(job.id, this.id));
    const timer = setInterval(() => void heartbeat(), this.heartbeatIntervalMs);
    const ctx: JobContext = {
      job,
      signal: controller.signal,
      clock: this.queue.clock,
      progress: (done, total = job.progress.total) => record('progress', () => this.queue.progress(job.id, this.id, done, total ?? null)),
      stage: (name) => record('stage', () => this.queue.stage(job.id, this.id, name)),
      heartbeat,
    };
    this.log.info({ job: job.id, kind: job.kind, attempt: job.attempts }, 'job started');
    const started = performance.now();
    const finished = (how: JobOutcome) => this.metrics?.jobFinished(job.kind, how, (performance.now() - started) / 1000);
    let outcome: { ok: true; result: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, result: await handler.run(ctx) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearInterval(timer);
    }
    await updates;
    // Another worker owns the job now, or this one is shutting down and released it.
    if (controller.signal.aborted) {
      finished(controller.signal.reason instanceof WorkerStoppingError ? 'released' : 'lost');
      return;
    }
    // Errors from here on are the store's, not the handler's: they propagate to launch().
    if (outcome.ok) {
      const completed = await this.queue.complete(job.id, this.id, outcome.result);
      finished(completed ? 'completed' : 'lost');
      if (completed) this.log.info({ job: job.id }, 'job completed');
      else this.log.warn({ job: job.id }, 'job finished after its lease was lost; result dropped');
      return;
    }
    const { error } = outcome;
    const message = error instanceof Error ? error.message : String(error);
    const result = await this.queue.fail(job.id, this.id, message, !(error instanceof PermanentJobError));
    finished(result);
    this.log.warn({ job: job.id, err: message, outcome: result }, 'job failed');
  }
}
