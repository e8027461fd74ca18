/**
 * The embedded job queue on the SQLite state store. Every state change that must be atomic
 * (claim, complete, fail, release) runs in one IMMEDIATE transaction on the raw
 * better-sqlite3 handle: IMMEDIATE takes SQLite's write lock before the first read, so two
 * processes can never both read "claimable" for the same row. The statements are
 * synchronous; the asynchronous interface (jobQueue.ts) is what the PostgreSQL queue shares.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { SqliteStateStore } from '../store/database.js';
import {
  checkedMaxAttempts,
  DEFAULT_LEASE_MS,
  defaultRetryDelay,
  draftJob,
  runHookDetached,
  toJob,
  type EnqueueOptions,
  type FailOutcome,
  type FailureHook,
  type Job,
  type JobQueue,
  type DraftOptions,
  type JobQueueOptions,
  type JobRow,
  type StateWrite,
} from './jobQueue.js';

export class SqliteJobQueue implements JobQueue {
  readonly leaseMs: number;
  private readonly raw: SqliteDatabase.Database;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly failureHooks = new Map<string, FailureHook>();

  constructor(
    private readonly store: SqliteStateStore,
    readonly clock: Clock,
    options: JobQueueOptions = {},
  ) {
    this.raw = store.raw;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelay;
  }

  onFailure(kind: string, hook: FailureHook): void {
    this.failureHooks.set(kind, hook);
  }

  async enqueue<P>(kind: string, accountId: string, payload: P, options: EnqueueOptions = {}): Promise<Job<P>> {
    const now = this.clock.now();
    const key = options.idempotencyKey ?? null;
    const maxAttempts = checkedMaxAttempts(options.maxAttempts);
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
      const created = options.onCreated?.(job, null);
      if (created instanceof Promise) throw new TypeError('onCreated must be synchronous on the SQLite state store');
      return job as Job<P>;
    });
  }

  async liveIds(accountId: string, kind: string): Promise<string[]> {
    return (
      this.raw.prepare("SELECT id FROM jobs WHERE account_id = ? AND kind = ? AND state IN ('queued', 'running')").all(accountId, kind) as { id: string }[]
    ).map((r) => r.id);
  }

  async settledIds(ids: readonly string[]): Promise<string[]> {
    const settled: string[] = [];
    // At most 500 bound parameters a statement (an account holds a few places at most anyway).
    for (let i = 0; i < ids.length; i += 500) {
      const slice = ids.slice(i, i + 500);
      const rows = this.raw
        .prepare(`SELECT id FROM jobs WHERE id IN (${slice.map(() => '?').join(',')}) AND state NOT IN ('queued', 'running')`)
        .all(...slice) as { id: string }[];
      settled.push(...rows.map((r) => r.id));
    }
    return settled;
  }

  draft<P>(kind: string, accountId: string, payload: P, options: DraftOptions = {}): Job<P> {
    return draftJob(kind, accountId, payload, this.clock.now(), options);
  }

  async insert(job: Job): Promise<void> {
    this.insertNow(job);
  }

  insertWrite(job: Job): StateWrite {
    return () => this.insertNow(job);
  }

  /** Inside a caller's transaction it commits (or rolls back) with it. */
  private insertNow(job: Job): void {
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

  async claim(workerId: string, kinds: readonly string[]): Promise<Job | null> {
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

  async heartbeat(jobId: string, workerId: string): Promise<boolean> {
    const now = this.clock.now();
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET heartbeat_ms = ?, lease_expires_ms = ?
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(now, now + this.leaseMs, jobId, workerId);
    return changes === 1;
  }

  async progress(jobId: string, workerId: string, done: number, total: number | null, stage?: string): Promise<boolean> {
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET progress_done = ?, progress_total = ?, stage = COALESCE(?, stage)
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(done, total, stage ?? null, jobId, workerId);
    return changes === 1;
  }

  async stage(jobId: string, workerId: string, stage: string): Promise<boolean> {
    const { changes } = this.raw.prepare(`UPDATE jobs SET stage = ? WHERE id = ? AND state = 'running' AND lease_owner = ?`).run(stage, jobId, workerId);
    return changes === 1;
  }

  async complete(jobId: string, workerId: string, result: unknown): Promise<boolean> {
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

  async fail(jobId: string, workerId: string, error: string, retryable: boolean): Promise<FailOutcome> {
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

  async release(jobId: string, workerId: string): Promise<boolean> {
    const { changes } = this.raw
      .prepare(
        `UPDATE jobs SET state = 'queued', stage = NULL, attempts = MAX(attempts - 1, 0),
           lease_owner = NULL, lease_expires_ms = NULL
         WHERE id = ? AND state = 'running' AND lease_owner = ?`,
      )
      .run(jobId, workerId);
    return changes === 1;
  }

  async expire(jobId: string, onExpired?: (job: Job) => void): Promise<boolean> {
    return this.immediate(() => {
      const { changes } = this.raw.prepare(`UPDATE jobs SET state = 'expired' WHERE id = ? AND state = 'completed'`).run(jobId);
      if (changes === 1) onExpired?.(this.row(jobId)!);
      return changes === 1;
    });
  }

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

  async get(accountId: string, jobId: string): Promise<Job | null> {
    const row = await this.store.db.selectFrom('jobs').selectAll().where('id', '=', jobId).where('account_id', '=', accountId).executeTakeFirst();
    return row ? toJob(row) : null;
  }

  async byId(jobId: string): Promise<Job | null> {
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
    runHookDetached(this.failureHooks.get(job.kind), { ...job, state: 'failed', error, completedMs: now });
  }

  private immediate<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate();
  }
}
