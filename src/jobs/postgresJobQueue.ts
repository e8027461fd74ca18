/**
 * The scale mode's job queue on the PostgreSQL state store, shared by any number of worker
 * processes. A claim locks the row it takes with `SELECT … FOR UPDATE SKIP LOCKED`: two
 * workers claiming at once never wait for each other and never take the same job (the one
 * that comes second skips the locked row and takes the next). Every other change is one
 * conditional UPDATE (the caller must still own the lease), atomic on its own.
 * Why not pg-boss: see docs/decisions.md ("The job queue on PostgreSQL").
 */
import { sql, type Transaction, type UpdateObject, type ExpressionBuilder } from 'kysely';
import type { Clock } from '../lib/clock.js';
import type { PostgresStateStore } from '../store/database.js';
import type { StateDatabase } from '../store/schema.js';
import type { EnqueueOptions, FailOutcome, Job, JobQueueOptions, JobRow, StateWrite } from './jobQueue.js';
import { JobQueueCore, newJobRow, toJob } from './jobQueueCore.js';

export class PostgresJobQueue extends JobQueueCore {
  constructor(store: PostgresStateStore, clock: Clock, options: JobQueueOptions = {}) {
    super(store.db, clock, options);
  }

  protected async insertUnlessKnown(job: Job, onCreated: EnqueueOptions['onCreated']): Promise<Job> {
    return this.db.transaction().execute(async (trx) => {
      // Two requests with one idempotency key: the unique index lets one insert, the other reads it.
      const inserted = await trx
        .insertInto('jobs')
        .values(newJobRow(job))
        .onConflict((oc) => oc.columns(['account_id', 'kind', 'idempotency_key']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!inserted) {
        const existing = await trx
          .selectFrom('jobs')
          .selectAll()
          .where('account_id', '=', job.accountId)
          .where('kind', '=', job.kind)
          .where('idempotency_key', '=', job.idempotencyKey)
          .executeTakeFirstOrThrow();
        return toJob(existing);
      }
      const created = toJob(inserted);
      await onCreated?.(created, trx);
      return created;
    });
  }

  async insert(job: Job): Promise<void> {
    await this.db.insertInto('jobs').values(newJobRow(job)).execute();
  }

  insertWrite(job: Job): StateWrite {
    return async (trx) => {
      if (trx === null) throw new TypeError('a PostgreSQL write needs the caller’s transaction');
      await trx.insertInto('jobs').values(newJobRow(job)).execute();
    };
  }

  async claim(workerId: string, kinds: readonly string[]): Promise<Job | null> {
    if (kinds.length === 0) return null;
    const now = this.clock.now();
    const failed: Job[] = [];
    const claimed = await this.db.transaction().execute(async (trx) => {
      for (;;) {
        // Fair between accounts (as the SQLite queue): an account with fewer jobs running goes first.
        const { rows } = await sql<JobRow>`
          SELECT * FROM jobs WHERE kind IN (${sql.join(kinds)})
            AND ((state = 'queued' AND run_after_ms <= ${now}) OR (state = 'running' AND lease_expires_ms <= ${now}))
          ORDER BY (SELECT COUNT(*) FROM jobs r WHERE r.account_id = jobs.account_id AND r.kind = jobs.kind AND r.state = 'running'), run_after_ms, seq
          LIMIT 1
          FOR UPDATE SKIP LOCKED`.execute(trx);
        const row = rows[0];
        if (!row) return null;
        if (row.state === 'running' && row.attempts >= row.max_attempts) {
          failed.push(await this.markFailed(trx, row, `worker lost after ${row.attempts} attempts`, now));
          continue;
        }
        const updated = await trx
          .updateTable('jobs')
          .set((eb) => ({
            state: 'running',
            lease_owner: workerId,
            lease_expires_ms: now + this.leaseMs,
            attempts: eb('attempts', '+', 1),
            started_ms: eb.fn.coalesce('started_ms', sql.lit(now)),
            heartbeat_ms: now,
          }))
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return toJob(updated);
      }
    });
    await this.runFailureHooks(failed);
    return claimed;
  }

  async heartbeat(jobId: string, workerId: string): Promise<boolean> {
    const now = this.clock.now();
    return this.owned(jobId, workerId, { heartbeat_ms: now, lease_expires_ms: now + this.leaseMs });
  }

  async progress(jobId: string, workerId: string, done: number, total: number | null, stage?: string): Promise<boolean> {
    return this.owned(jobId, workerId, { progress_done: done, progress_total: total, ...(stage === undefined ? {} : { stage }) });
  }

  async stage(jobId: string, workerId: string, stage: string): Promise<boolean> {
    return this.owned(jobId, workerId, { stage });
  }

  async complete(jobId: string, workerId: string, result: unknown): Promise<boolean> {
    return this.owned(jobId, workerId, {
      state: 'completed',
      result: JSON.stringify(result ?? null),
      completed_ms: this.clock.now(),
      error: null,
      lease_owner: null,
      lease_expires_ms: null,
    });
  }

  async fail(jobId: string, workerId: string, error: string, retryable: boolean): Promise<FailOutcome> {
    const now = this.clock.now();
    let failed: Job | null = null;
    const outcome = await this.db.transaction().execute(async (trx): Promise<FailOutcome> => {
      const row = await trx
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', jobId)
        .where('state', '=', 'running')
        .where('lease_owner', '=', workerId)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return 'lost';
      const retryAt = this.retryAtMs(row, retryable, now);
      if (retryAt !== null) {
        await trx
          .updateTable('jobs')
          .set({ state: 'queued', stage: null, error, run_after_ms: retryAt, lease_owner: null, lease_expires_ms: null })
          .where('id', '=', jobId)
          .execute();
        return 'retrying';
      }
      failed = await this.markFailed(trx, row, error, now);
      return 'failed';
    });
    if (failed) await this.runFailureHooks([failed]);
    return outcome;
  }

  async release(jobId: string, workerId: string): Promise<boolean> {
    return this.owned(jobId, workerId, (eb) => ({
      state: 'queued',
      stage: null,
      attempts: sql<number>`GREATEST(${eb.ref('attempts')} - 1, 0)`,
      lease_owner: null,
      lease_expires_ms: null,
    }));
  }

  async expire(jobId: string, onExpired?: (job: Job) => void): Promise<boolean> {
    const row = await this.db
      .updateTable('jobs')
      .set({ state: 'expired' })
      .where('id', '=', jobId)
      .where('state', '=', 'completed')
      .returningAll()
      .executeTakeFirst();
    if (row) onExpired?.(toJob(row));
    return row !== undefined;
  }

  /** One UPDATE of a job the worker still owns; false when it no longer does. */
  private async owned(
    jobId: string,
    workerId: string,
    set: UpdateObject<StateDatabase, 'jobs'> | ((eb: ExpressionBuilder<StateDatabase, 'jobs'>) => UpdateObject<StateDatabase, 'jobs'>),
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set(typeof set === 'function' ? set : () => set)
      .where('id', '=', jobId)
      .where('state', '=', 'running')
      .where('lease_owner', '=', workerId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  private async markFailed(trx: Transaction<StateDatabase>, row: JobRow, error: string, now: number): Promise<Job> {
    await trx
      .updateTable('jobs')
      .set({ state: 'failed', error, completed_ms: now, lease_owner: null, lease_expires_ms: null })
      .where('id', '=', row.id)
      .execute();
    // Its hook runs after the commit (see FailureHook): once per job, by the process that failed it.
    return this.failedJob(row, error, now);
  }
}
