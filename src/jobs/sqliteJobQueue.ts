/**
 * The embedded job queue on the SQLite state store. Every state change that must be atomic
 * (claim, complete, fail, release) runs in one IMMEDIATE transaction on the raw
 * better-sqlite3 handle: IMMEDIATE takes SQLite's write lock before the first read, so two
 * processes can never both read "claimable" for the same row. The statements are
 * synchronous; the asynchronous interface (jobQueue.ts) is what the PostgreSQL queue shares.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import type { SqliteStateStore } from '../store/database.js';
import type { EnqueueOptions, FailOutcome, Job, JobQueueOptions, JobRow, StateWrite } from './jobQueue.js';
import { JobQueueCore, newJobRow, toJob } from './jobQueueCore.js';

export class SqliteJobQueue extends JobQueueCore {
  private readonly raw: SqliteDatabase.Database;

  constructor(store: SqliteStateStore, clock: Clock, options: JobQueueOptions = {}) {
    super(store.db, clock, options);
    this.raw = store.raw;
  }

  protected async insertUnlessKnown(job: Job, onCreated: EnqueueOptions['onCreated']): Promise<Job> {
    return this.immediate(() => {
      if (job.idempotencyKey !== null) {
        const existing = this.raw
          .prepare('SELECT * FROM jobs WHERE account_id = ? AND kind = ? AND idempotency_key = ?')
          .get(job.accountId, job.kind, job.idempotencyKey) as JobRow | undefined;
        if (existing) return toJob(existing);
      }
      this.insertNow(job);
      const created = onCreated?.(job, null);
      if (created instanceof Promise) throw new TypeError('onCreated must be synchronous on the SQLite state store');
      return job;
    });
  }

  async insert(job: Job): Promise<void> {
    this.insertNow(job);
  }

  insertWrite(job: Job): StateWrite {
    return () => this.insertNow(job);
  }

  /** Inside a caller's transaction it commits (or rolls back) with it. */
  private insertNow(job: Job): void {
    const row = newJobRow(job);
    this.immediate(() => {
      this.raw
        .prepare(
          `INSERT INTO jobs (id, kind, account_id, idempotency_key, payload, state, attempts, max_attempts,
             progress_done, created_ms, run_after_ms)
           VALUES (@id, @kind, @account_id, @idempotency_key, @payload, @state, @attempts, @max_attempts,
             @progress_done, @created_ms, @run_after_ms)`,
        )
        .run(row);
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
    const hooks: Promise<unknown>[] = [];
    const claimed = this.immediate(() => {
      for (;;) {
        const row = next.get(...kinds, now, now) as JobRow | undefined;
        if (!row) return null;
        if (row.state === 'running' && row.attempts >= row.max_attempts) {
          this.failLocked(row, `worker lost after ${row.attempts} attempts`, now, hooks);
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
    await Promise.all(hooks);
    return claimed;
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
    const hooks: Promise<unknown>[] = [];
    const outcome = this.immediate((): FailOutcome => {
      const row = this.raw.prepare(`SELECT * FROM jobs WHERE id = ? AND state = 'running' AND lease_owner = ?`).get(jobId, workerId) as JobRow | undefined;
      if (!row) return 'lost';
      const retryAt = this.retryAtMs(row, retryable, now);
      if (retryAt !== null) {
        this.raw
          .prepare(
            `UPDATE jobs SET state = 'queued', stage = NULL, error = ?, run_after_ms = ?,
               lease_owner = NULL, lease_expires_ms = NULL
             WHERE id = ?`,
          )
          .run(error, retryAt, jobId);
        return 'retrying';
      }
      this.failLocked(row, error, now, hooks);
      return 'failed';
    });
    await Promise.all(hooks);
    return outcome;
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

  /** The raw handle's synchronous read: it answers before anything queued behind it runs. */
  override async byId(jobId: string): Promise<Job | null> {
    return this.row(jobId);
  }

  private row(jobId: string): Job | null {
    const row = this.raw.prepare('SELECT * FROM jobs WHERE id = ?').get(jobId) as JobRow | undefined;
    return row ? toJob(row) : null;
  }

  /**
   * Must run inside an IMMEDIATE transaction: the hook's synchronous writes commit with the
   * failure. What it leaves to do asynchronously (removing a failed export's files) goes into
   * `after`, which the caller awaits once the transaction has committed.
   */
  private failLocked(row: JobRow, error: string, now: number, after: Promise<unknown>[]): void {
    this.raw
      .prepare(
        `UPDATE jobs SET state = 'failed', error = ?, completed_ms = ?, lease_owner = NULL, lease_expires_ms = NULL
         WHERE id = ?`,
      )
      .run(error, now, row.id);
    after.push(this.runFailureHookDetached(this.failedJob(row, error, now)));
  }

  private immediate<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate();
  }
}
