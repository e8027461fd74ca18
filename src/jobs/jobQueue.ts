/**
 * The durable job queue: jobs live in the state store, so a restart (or kill -9) of any
 * process loses none of them. A worker claims a job by taking a lease; while it works it
 * renews the lease with heartbeats. A job whose lease has run out belongs to a worker
 * that died, and any worker may claim it again.
 *
 * Every state change that must be atomic (claim, complete, fail, release) runs in one
 * IMMEDIATE transaction on the raw better-sqlite3 handle: IMMEDIATE takes SQLite's write
 * lock before the first read, so two processes can never both read "claimable" for the
 * same row. Each change is conditional on the caller still owning the lease, so a worker
 * that lost its lease (and whose job another worker re-ran) can no longer touch the job.
 *
 * @example
 * const queue = new JobQueue(state, clock);
 * const job = queue.enqueue('backlink-export', accountId, { url }, { idempotencyKey: 'req-1' });
 * const claimed = queue.claim('worker-1', ['backlink-export']);
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Selectable } from 'kysely';
import { type Clock, SECOND } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { StateStore } from '../store/database.js';
import type { JobsTable } from '../store/schema.js';

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'expired';

export interface Job<P = unknown, R = unknown> {
  id: string;
  kind: string;
  accountId: string;
  idempotencyKey: string | null;
  payload: P;
  state: JobState;
  /** A handler's phase within `running` (an export's `collecting` or `writing`). */
  stage: string | null;
  attempts: number;
  maxAttempts: number;
  progress: { done: number; total: number | null };
  result: R | null;
  error: string | null;
  createdMs: number;
  startedMs: number | null;
  heartbeatMs: number | null;
  completedMs: number | null;
  runAfterMs: number;
  leaseOwner: string | null;
  leaseExpiresMs: number | null;
}

export interface EnqueueOptions {
  /** A client's key: enqueueing again with the same key returns the existing job. */
  idempotencyKey?: string;
  /** Not before this time (ms). Default: now. */
  runAfterMs?: number;
  /** Attempts before the job fails for good (a lost lease counts as an attempt). Default 3. */
  maxAttempts?: number;
  /**
   * Runs inside the inserting transaction, only when a new job is created (not for an
   * idempotent repeat): the place to record a charge that must exist exactly when the job does.
   */
  onCreated?: (job: Job) => void;
}

/**
 * Called inside the transaction that moves a job to `failed`, on the state store's own
 * connection: whatever it writes (a refund) commits together with the failure or not at
 * all, and since a job reaches `failed` once, it runs exactly once per job. It must write
 * through the same connection (e.g. the embedded policy store, whose statements run before
 * its promise is returned); a promise it returns is not awaited inside the transaction.
 */
export type FailureHook = (job: Job) => unknown;

export type FailOutcome = 'retrying' | 'failed' | 'lost';

export interface JobQueueOptions {
  /** How long a claim lasts without a heartbeat. Default 30 s. */
  leaseMs?: number;
  /** Delay before retry n (1-based) of a retryable failure. Default 5 s · 2^(n−1), at most 10 min. */
  retryDelayMs?: (attempt: number) => number;
}

const DEFAULT_LEASE_MS = 30 * SECOND;
const defaultRetryDelay = (attempt: number) => Math.min(5 * SECOND * 2 ** (attempt - 1), 600 * SECOND);

type JobRow = Selectable<JobsTable>;

function toJob(row: JobRow): Job {
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

export class JobQueue {
  readonly leaseMs: number;
  private readonly raw: SqliteDatabase.Database;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly failureHooks = new Map<string, FailureHook>();

  constructor(
    private readonly store: StateStore,
    readonly clock: Clock,
    options: JobQueueOptions = {},
  ) {
    this.raw = store.raw;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelay;
  }

  /** Registers what must happen, atomically, when a job of `kind` fails for good (a refund). */
  onFailure(kind: string, hook: FailureHook): void {
    this.failureHooks.set(kind, hook);
  }

  /** Creates a job, or returns the existing one for the same (account, kind, idempotency key). */
  enqueue<P>(kind: string, accountId: string, payload: P, options: EnqueueOptions = {}): Job<P> {
    const now = this.clock.now();
    const key = options.idempotencyKey ?? null;
    const maxAttempts = options.maxAttempts ?? 3;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
    return this.immediate(() => {
      if (key !== null) {
        const existing = this.raw.prepare('SELECT * FROM jobs WHERE account_id = ? AND kind = ? AND idempotency_key = ?').get(accountId, kind, key) as
          JobRow | undefined;
        if (existing) return toJob(existing) as Job<P>;
      }
      const id = newId();
      this.raw
        .prepare(
          `INSERT INTO jobs (id, kind, account_id, idempotency_key, payload, state, attempts, max_attempts,
             progress_done, created_ms, run_after_ms)
           VALUES (?, ?, ?, ?, ?, 'queued', 0, ?, 0, ?, ?)`,
        )
        .run(id, kind, accountId, key, JSON.stringify(payload), maxAttempts, now, options.runAfterMs ?? now);
      const job = this.row(id)!;
      options.onCreated?.(job);
      return job as Job<P>;
    });
  }

  /** Ids of the account's jobs of `kind` queued or running. */
  liveIds(accountId: string, kind: string): string[] {
    return (
      this.raw.prepare("SELECT id FROM jobs WHERE account_id = ? AND kind = ? AND state IN ('queued', 'running')").all(accountId, kind) as { id: string }[]
    ).map((r) => r.id);
  }

  /** Of `ids`, those of stored jobs that are neither queued nor running. */
  settledIds(ids: readonly string[]): string[] {
    if (ids.length === 0) return [];
    const marks = ids.map(() => '?').join(',');
    return (this.raw.prepare(`SELECT id FROM jobs WHERE id IN (${marks}) AND state NOT IN ('queued', 'running')`).all(...ids) as { id: string }[]).map(
      (r) => r.id,
    );
  }

  /**
   * The job `enqueue` would create now (no idempotency key), not yet stored: `insert` stores
   * it. For a job that must exist exactly when something else commits, inside the same
   * transaction (an export's job with its charge and cached answer).
   */
  draft<P>(kind: string, accountId: string, payload: P, options: { maxAttempts?: number; id?: string } = {}): Job<P> {
    const now = this.clock.now();
    const maxAttempts = options.maxAttempts ?? 3;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
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

  /** Stores a drafted job; inside a caller's transaction it commits (or rolls back) with it. */
  insert(job: Job): void {
    this.immediate(() => {
      this.raw
        .prepare(
          `INSERT INTO jobs (id, kind, account_id, idempotency_key, payload, state, attempts, max_attempts,
             progress_done, created_ms, run_after_ms)
           VALUES (?, ?, ?, NULL, ?, 'queued', 0, ?, 0, ?, ?)`,
        )
        .run(job.id, job.kind, job.accountId, JSON.stringify(job.payload), job.maxAttempts, job.createdMs, job.runAfterMs);
    });
  }

  /**
   * Atomically takes the next job of one of `kinds` that is due (queued and past its
   * run-after) or abandoned (running with an expired lease). An abandoned job that has
   * used up its attempts is failed instead (with its failure hook) and the search goes on.
   */
  claim(workerId: string, kinds: readonly string[]): Job | null {
    if (kinds.length === 0) return null;
    const now = this.clock.now();
    const marks = kinds.map(() => '?').join(', ');
    const next = this.raw.prepare(
      // Fair between accounts: a job of an account with fewer jobs running goes first, so one
      // account's queue of exports cannot hold every worker slot while others wait.
      `SELECT * FROM jobs WHERE kind IN (${marks})
         AND ((state = 'queued' AND run_after_ms <= ?) OR (state = 'running' AND lease_expires_ms <= ?))
       ORDER BY (SELECT COUNT(*) FROM jobs r WHERE r.account_id = jobs.account_id AND r.kind = jobs.kind AND r.state = 'running'), run_after_ms, seq
       LIMIT 1`,
    );
    return this.immediate(() => {
      for (;;) {
        const row = next.get(...kinds, now, now) as JobRow | undefined;
        if (!row) return null;
        if (row.state === 'running' && row.attempts >= row.max_attempts) {
          this.failLocked(toJob(row), `worker lost after ${row.attempts} attempts`, now);
          continue;
        }
        this.raw
          .prepare(
            `UPDATE jobs SET state = 'running', lease_owner = ?, lease_expires_ms = ?, attempts = attempts + 1,
               started_ms = COALESCE(started_ms, ?), heartbeat_ms = ?
             WHERE id = ?`,
          )
          .run(workerId, now + this.leaseMs, now, now, row.id);
        return this.row(row.id)!;
      }
    });
  }

  /** Renews the lease. False when the worker no longer owns the job (it must stop). */
  heartbeat(jobId: string, workerId: string): boolean {
    const now = this.clock.now();
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET heartbeat_ms = ?, lease_expires_ms = ?
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(now, now + this.leaseMs, jobId, workerId);
    return changes === 1;
  }

  /** Records progress (and optionally the stage); false when the lease is lost. */
  progress(jobId: string, workerId: string, done: number, total: number | null, stage?: string): boolean {
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET progress_done = ?, progress_total = ?, stage = COALESCE(?, stage)
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(done, total, stage ?? null, jobId, workerId);
    return changes === 1;
  }

  /** Moves the job to its next stage; false when the lease is lost. */
  stage(jobId: string, workerId: string, stage: string): boolean {
    const { changes } = this.raw.prepare(`UPDATE jobs SET stage = ? WHERE id = ? AND state = 'running' AND lease_owner = ?`).run(stage, jobId, workerId);
    return changes === 1;
  }

  /** Marks the job completed with its result; false when the lease was lost meanwhile. */
  complete(jobId: string, workerId: string, result: unknown): boolean {
    const now = this.clock.now();
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET state = 'completed', result = ?, completed_ms = ?, error = NULL,
           lease_owner = NULL, lease_expires_ms = NULL
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(JSON.stringify(result ?? null), now, jobId, workerId);
    return changes === 1;
  }

  /**
   * Records a failure. Retryable with attempts left → queued again after a back-off;
   * otherwise → failed for good, running the kind's failure hook in the same transaction.
   * 'lost' when the worker no longer owns the job (nothing changes, no hook runs).
   */
  fail(jobId: string, workerId: string, error: string, retryable: boolean): FailOutcome {
    const now = this.clock.now();
    return this.immediate(() => {
      const row = this.raw.prepare(`SELECT * FROM jobs WHERE id = ? AND state = 'running' AND lease_owner = ?`).get(jobId, workerId) as JobRow | undefined;
      if (!row) return 'lost';
      if (retryable && row.attempts < row.max_attempts) {
        this.raw
          .prepare(
            `UPDATE jobs SET state = 'queued', stage = NULL, error = ?, run_after_ms = ?,
               lease_owner = NULL, lease_expires_ms = NULL
             WHERE id = ?`,
          )
          .run(error, now + this.retryDelayMs(row.attempts), jobId);
        return 'retrying';
      }
      this.failLocked(toJob(row), error, now);
      return 'failed';
    });
  }

  /**
   * Gives a claimed job back without counting the attempt (a worker shutting down), so
   * another worker can take it at once instead of waiting for the lease to run out.
   */
  release(jobId: string, workerId: string): boolean {
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET state = 'queued', stage = NULL, attempts = MAX(attempts - 1, 0),
           lease_owner = NULL, lease_expires_ms = NULL
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(jobId, workerId);
    return changes === 1;
  }

  /**
   * Moves a completed job to `expired` (its artefact is gone). `onExpired` runs inside the
   * transaction, only when this call made the transition.
   */
  expire(jobId: string, onExpired?: (job: Job) => void): boolean {
    return this.immediate(() => {
      const { changes } = this.raw.prepare(`UPDATE jobs SET state = 'expired' WHERE id = ? AND state = 'completed'`).run(jobId);
      if (changes === 1) onExpired?.(this.row(jobId)!);
      return changes === 1;
    });
  }

  /** Completed jobs of `kind` whose completion is at or before `beforeMs`, oldest first. */
  async completedBefore(kind: string, beforeMs: number, limit = 500): Promise<Job[]> {
    const rows = await this.store.db
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

  /** An account's jobs (optionally of one kind), newest first. */
  async list(accountId: string, options: { kind?: string; limit?: number; offset?: number } = {}): Promise<Job[]> {
    let query = this.store.db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
    if (options.kind !== undefined) query = query.where('kind', '=', options.kind);
    const rows = await query
      .orderBy('seq', 'desc')
      .limit(options.limit ?? 1000)
      .offset(options.offset ?? 0)
      .execute();
    return rows.map(toJob);
  }

  /** One of an account's jobs; null for an unknown id or another account's job. */
  async get(accountId: string, jobId: string): Promise<Job | null> {
    const row = await this.store.db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toJob(row) : null;
  }

  /**
   * A job by id alone, for callers that have authorised the request another way (a
   * signed download URL, a worker). API routes use `get` with the account.
   */
  byId(jobId: string): Job | null {
    return this.row(jobId);
  }

  private row(jobId: string): Job | null {
    const row = this.raw.prepare('SELECT * FROM jobs WHERE id = ?').get(jobId) as JobRow | undefined;
    return row ? toJob(row) : null;
  }

  /** Must run inside an IMMEDIATE transaction. */
  private failLocked(job: Job, error: string, now: number): void {
    this.raw
      .prepare(
        `UPDATE jobs SET state = 'failed', error = ?, completed_ms = ?, lease_owner = NULL, lease_expires_ms = NULL
         WHERE id = ?`,
      )
      .run(error, now, job.id);
    const hooked = this.failureHooks.get(job.kind)?.({ ...job, state: 'failed', error, completedMs: now });
    if (hooked instanceof Promise) hooked.catch((err: unknown) => process.emitWarning(`failure hook of job ${job.id} failed: ${String(err)}`));
  }

  private immediate<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate();
  }
}
