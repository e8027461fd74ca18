/**
 * What the two job queues share (jobQueue.ts describes the queue): their options, their
 * failure hooks, the drafting of a new job, the retry decision and the reads that need no
 * transaction (through Kysely, the same on both backends). Each backend file (sqliteJobQueue.ts,
 * postgresJobQueue.ts) keeps only its statements: how a job is stored, claimed and moved.
 */
import type { Kysely } from 'kysely';
import { type Clock, SECOND } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { StateDatabase } from '../store/schema.js';
import type { DraftOptions, EnqueueOptions, FailOutcome, FailureHook, Job, JobQueue, JobQueueOptions, JobRow, JobState, StateWrite } from './jobQueue.js';

export const DEFAULT_LEASE_MS = 30 * SECOND;
export const defaultRetryDelay = (attempt: number) => Math.min(5 * SECOND * 2 ** (attempt - 1), 600 * SECOND);

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    accountId: row.account_id,
    idempotencyKey: row.idempotency_key,
    payload: JSON.parse(row.payload),
    state: row.state as JobState,
    stage: row.stage,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    progress: { done: row.progress_done, total: row.progress_total },
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    createdMs: row.created_ms,
    startedMs: row.started_ms,
    heartbeatMs: row.heartbeat_ms,
    completedMs: row.completed_ms,
    runAfterMs: row.run_after_ms,
    leaseOwner: row.lease_owner,
    leaseExpiresMs: row.lease_expires_ms,
  };
}

export function checkedMaxAttempts(maxAttempts = 3): number {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  return maxAttempts;
}

/** A new job as `draft` makes it. */
export function draftJob<P>(kind: string, accountId: string, payload: P, now: number, options: DraftOptions = {}): Job<P> {
  const maxAttempts = checkedMaxAttempts(options.maxAttempts);
  return {
    id: options.id ?? newId(),
    kind,
    accountId,
    idempotencyKey: null,
    payload,
    state: 'queued',
    stage: null,
    attempts: 0,
    maxAttempts,
    progress: { done: 0, total: null },
    result: null,
    error: null,
    createdMs: now,
    startedMs: null,
    heartbeatMs: null,
    completedMs: null,
    runAfterMs: now,
    leaseOwner: null,
    leaseExpiresMs: null,
  };
}

/** The row a new job is stored as. */
export function newJobRow(job: Job) {
  return {
    id: job.id,
    kind: job.kind,
    account_id: job.accountId,
    idempotency_key: job.idempotencyKey,
    payload: JSON.stringify(job.payload),
    state: 'queued',
    attempts: 0,
    max_attempts: job.maxAttempts,
    progress_done: 0,
    created_ms: job.createdMs,
    run_after_ms: job.runAfterMs,
  };
}

/** Bound parameters per `IN (…)` list: SQLite's default limit is far above, this keeps statements small. */
const IDS_PER_STATEMENT = 500;

export abstract class JobQueueCore implements JobQueue {
  readonly leaseMs: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly failureHooks = new Map<string, FailureHook>();

  constructor(
    /** Reads that need no transaction go through Kysely on either backend. */
    protected readonly db: Kysely<StateDatabase>,
    readonly clock: Clock,
    options: JobQueueOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelay;
  }

  onFailure(kind: string, hook: FailureHook): void {
    this.failureHooks.set(kind, hook);
  }

  async enqueue<P>(kind: string, accountId: string, payload: P, options: EnqueueOptions = {}): Promise<Job<P>> {
    const now = this.clock.now();
    const job: Job<P> = {
      ...draftJob(kind, accountId, payload, now, { maxAttempts: options.maxAttempts }),
      idempotencyKey: options.idempotencyKey ?? null,
      runAfterMs: options.runAfterMs ?? now,
    };
    return (await this.insertUnlessKnown(job, options.onCreated)) as Job<P>;
  }

  /**
   * Stores `job`, calling `onCreated` in the same transaction; when a job of the same
   * (account, kind, idempotency key) exists, returns it instead and stores nothing.
   */
  protected abstract insertUnlessKnown(job: Job, onCreated: EnqueueOptions['onCreated']): Promise<Job>;

  draft<P>(kind: string, accountId: string, payload: P, options: DraftOptions = {}): Job<P> {
    return draftJob(kind, accountId, payload, this.clock.now(), options);
  }

  /** When a failed attempt is tried again (ms); null when the failure is for good. */
  protected retryAtMs(row: JobRow, retryable: boolean, now: number): number | null {
    return retryable && row.attempts < row.max_attempts ? now + this.retryDelayMs(row.attempts) : null;
  }

  /** The job as it is once failed for good. */
  protected failedJob(row: JobRow, error: string, now: number): Job {
    return { ...toJob(row), state: 'failed', error, completedMs: now, leaseOwner: null, leaseExpiresMs: null };
  }

  /**
   * Runs a failure hook inside a synchronous transaction, where its promise cannot be awaited;
   * answers that promise (never rejecting) for the caller to await after the commit.
   */
  protected runFailureHookDetached(job: Job): Promise<unknown> {
    const hooked = this.failureHooks.get(job.kind)?.(job);
    if (!(hooked instanceof Promise)) return Promise.resolve();
    return hooked.catch((err: unknown) => process.emitWarning(`failure hook of job ${job.id} failed: ${String(err)}`));
  }

  /** Runs the failure hooks of jobs whose failure has committed, awaited, one after another. */
  protected async runFailureHooks(jobs: readonly Job[]): Promise<void> {
    for (const job of jobs) {
      try {
        await this.failureHooks.get(job.kind)?.(job);
      } catch (err) {
        process.emitWarning(`failure hook of job ${job.id} failed: ${String(err)}`);
      }
    }
  }

  async liveIds(accountId: string, kind: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('state', 'in', ['queued', 'running'])
      .execute();
    return rows.map((r) => r.id);
  }

  async settledIds(ids: readonly string[]): Promise<string[]> {
    const settled: string[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom('jobs')
        .select('id')
        .where('id', 'in', ids.slice(i, i + IDS_PER_STATEMENT))
        .where('state', 'not in', ['queued', 'running'])
        .execute();
      settled.push(...rows.map((r) => r.id));
    }
    return settled;
  }

  async completedBefore(kind: string, beforeMs: number, limit = 500): Promise<Job[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('state', '=', 'completed')
      .where('completed_ms', '<=', beforeMs)
      .orderBy('completed_ms')
      .limit(limit)
      .execute();
    return rows.map(toJob);
  }

  async list(accountId: string, options: { kind?: string; limit?: number; offset?: number } = {}): Promise<Job[]> {
    let query = this.db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
    if (options.kind !== undefined) query = query.where('kind', '=', options.kind);
    const rows = await query
      .orderBy('seq', 'desc')
      .limit(options.limit ?? 1000)
      .offset(options.offset ?? 0)
      .execute();
    return rows.map(toJob);
  }

  async get(accountId: string, jobId: string): Promise<Job | null> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toJob(row) : null;
  }

  async byId(jobId: string): Promise<Job | null> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
    return row ? toJob(row) : null;
  }

  abstract insert(job: Job): Promise<void>;
  abstract insertWrite(job: Job): StateWrite;
  abstract claim(workerId: string, kinds: readonly string[]): Promise<Job | null>;
  abstract heartbeat(jobId: string, workerId: string): Promise<boolean>;
  abstract progress(jobId: string, workerId: string, done: number, total: number | null, stage?: string): Promise<boolean>;
  abstract stage(jobId: string, workerId: string, stage: string): Promise<boolean>;
  abstract complete(jobId: string, workerId: string, result: unknown): Promise<boolean>;
  abstract fail(jobId: string, workerId: string, error: string, retryable: boolean): Promise<FailOutcome>;
  abstract release(jobId: string, workerId: string): Promise<boolean>;
  abstract expire(jobId: string, onExpired?: (job: Job) => void): Promise<boolean>;
}
