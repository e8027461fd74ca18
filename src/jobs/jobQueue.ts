/**
 * The durable job queue: jobs live in the state store, so a restart (or kill -9) of any
 * process loses none of them. A worker claims a job by taking a lease; while it works it
 * renews the lease with heartbeats. A job whose lease has run out belongs to a worker
 * that died, and any worker may claim it again. Each change is conditional on the caller
 * still owning the lease, so a worker that lost its lease (and whose job another worker
 * re-ran) can no longer touch the job.
 *
 * Two implementations behind one asynchronous interface: the embedded SQLite queue
 * (sqliteJobQueue.ts, IMMEDIATE transactions) and the scale mode's PostgreSQL queue
 * (postgresJobQueue.ts, `FOR UPDATE SKIP LOCKED`), on one shared core (jobQueueCore.ts:
 * options, failure hooks, drafts, reads). `openJobQueue` (openJobQueue.ts) picks the one of the
 * state store. This module is the interface alone and imports no backend, so the backends and
 * their users all stand on it.
 *
 * @example
 * const queue = openJobQueue(state, clock);
 * const job = await queue.enqueue('backlink-export', accountId, { url }, { idempotencyKey: 'req-1' });
 * const claimed = await queue.claim('worker-1', ['backlink-export']);
 */
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { StateWrite } from '../store/database.js';
import type { StateDatabase } from '../store/schema.js';
import type { JobsTable } from '../store/tables/jobs.js';

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
   * On SQLite it is called synchronously on the store's connection (`trx` null); on
   * PostgreSQL with the transaction, and a promise it returns is awaited before the commit.
   */
  onCreated?: (job: Job, trx: Kysely<StateDatabase> | null) => void | Promise<void>;
}

/**
 * What must happen when a job reaches `failed` (a refund). On SQLite it is called inside the
 * transaction that moves the job, on the state store's own connection: whatever it writes
 * commits together with the failure or not at all, and since a job reaches `failed` once, it
 * runs exactly once per job. It must write through the same connection (e.g. the embedded
 * policy store, whose statements run before its promise is returned); a promise it returns
 * (work that needs no transaction: removing a failed export's files) is awaited after the
 * commit, before `claim` or `fail` answers. On PostgreSQL the policy lives elsewhere (Redis), so
 * no transaction can hold both: the hook runs, awaited, right after the failure commits, by
 * the one process whose update made the transition — once, unless that process dies in between
 * (then the refund is lost: never twice).
 */
export type FailureHook = (job: Job) => unknown;

export type FailOutcome = 'retrying' | 'failed' | 'lost';

export interface JobQueueOptions {
  /** How long a claim lasts without a heartbeat. Default 30 s. */
  leaseMs?: number;
  /** Delay before retry n (1-based) of a retryable failure. Default 5 s · 2^(n−1), at most 10 min. */
  retryDelayMs?: (attempt: number) => number;
}

export type JobRow = Selectable<JobsTable>;

export type { StateWrite };

export interface JobQueue {
  readonly leaseMs: number;
  readonly clock: Clock;
  /** Registers what must happen when a job of `kind` fails for good (a refund). */
  onFailure(kind: string, hook: FailureHook): void;
  /** Creates a job, or returns the existing one for the same (account, kind, idempotency key). */
  enqueue<P>(kind: string, accountId: string, payload: P, options?: EnqueueOptions): Promise<Job<P>>;
  /** Ids of the account's jobs of `kind` queued or running. */
  liveIds(accountId: string, kind: string): Promise<string[]>;
  /** Of `ids`, those of stored jobs that are neither queued nor running (finished for good). */
  settledIds(ids: readonly string[]): Promise<string[]>;
  /**
   * The job `enqueue` would create now (no idempotency key), not yet stored: `insert` or
   * `insertWrite` stores it. For a job that must exist exactly when something else commits,
   * inside the same transaction (an export's job with its charge and cached answer).
   */
  draft<P>(kind: string, accountId: string, payload: P, options?: DraftOptions): Job<P>;
  /** Stores a drafted job. */
  insert(job: Job): Promise<void>;
  /** The insert of a drafted job as a write inside a caller's transaction (the policy's commit). */
  insertWrite(job: Job): StateWrite;
  /**
   * Atomically takes the next job of one of `kinds` that is due (queued and past its
   * run-after) or abandoned (running with an expired lease). An abandoned job that has
   * used up its attempts is failed instead (with its failure hook) and the search goes on.
   * Fair between accounts: a job of an account with fewer jobs running goes first.
   */
  claim(workerId: string, kinds: readonly string[]): Promise<Job | null>;
  /** Renews the lease. False when the worker no longer owns the job (it must stop). */
  heartbeat(jobId: string, workerId: string): Promise<boolean>;
  /** Records progress (and optionally the stage); false when the lease is lost. */
  progress(jobId: string, workerId: string, done: number, total: number | null, stage?: string): Promise<boolean>;
  /** Moves the job to its next stage; false when the lease is lost. */
  stage(jobId: string, workerId: string, stage: string): Promise<boolean>;
  /** Marks the job completed with its result; false when the lease was lost meanwhile. */
  complete(jobId: string, workerId: string, result: unknown): Promise<boolean>;
  /**
   * Records a failure. Retryable with attempts left → queued again after a back-off;
   * otherwise → failed for good, with the kind's failure hook (see FailureHook).
   * 'lost' when the worker no longer owns the job (nothing changes, no hook runs).
   */
  fail(jobId: string, workerId: string, error: string, retryable: boolean): Promise<FailOutcome>;
  /**
   * Gives a claimed job back without counting the attempt (a worker shutting down), so
   * another worker can take it at once instead of waiting for the lease to run out.
   */
  release(jobId: string, workerId: string): Promise<boolean>;
  /**
   * Moves a completed job to `expired` (its artefact is gone). `onExpired` runs only when
   * this call made the transition (inside the transaction on SQLite).
   */
  expire(jobId: string, onExpired?: (job: Job) => void): Promise<boolean>;
  /** Completed jobs of `kind` whose completion is at or before `beforeMs`, oldest first. */
  completedBefore(kind: string, beforeMs: number, limit?: number): Promise<Job[]>;
  /** An account's jobs (optionally of one kind), newest first. */
  list(accountId: string, options?: { kind?: string; limit?: number; offset?: number }): Promise<Job[]>;
  /** One of an account's jobs; null for an unknown id or another account's job. */
  get(accountId: string, jobId: string): Promise<Job | null>;
  /**
   * A job by id alone, for callers that have authorised the request another way (a
   * signed download URL, a worker). API routes use `get` with the account.
   */
  byId(jobId: string): Promise<Job | null>;
}

/** A drafted job's attempts, and its id when the caller needs it before the draft (an export's place). */
export interface DraftOptions {
  maxAttempts?: number;
  id?: string;
}
