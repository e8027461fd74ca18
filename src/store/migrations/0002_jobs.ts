/** State store migration 0002: the durable job queue (backlink exports, rank crawls, email reports). */
import type { Kysely, Migration } from 'kysely';

export const jobMigrations: Record<string, Migration> = {
  '0002_jobs': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('jobs')
        // seq orders jobs created within the same millisecond (listings are newest first).
        .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('stage', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('progress_total', 'integer')
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .addColumn('started_ms', 'integer')
        .addColumn('heartbeat_ms', 'integer')
        .addColumn('completed_ms', 'integer')
        .addColumn('run_after_ms', 'integer', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_ms', 'integer')
        .execute();
      // NULL keys are distinct in a unique index (SQLite and PostgreSQL), so only keyed jobs collide.
      await db.schema.createIndex('jobs_idempotency').on('jobs').columns(['account_id', 'kind', 'idempotency_key']).unique().execute();
      await db.schema.createIndex('jobs_claimable').on('jobs').columns(['state', 'kind', 'run_after_ms']).execute();
      await db.schema.createIndex('jobs_leases').on('jobs').columns(['state', 'lease_expires_ms']).execute();
      await db.schema.createIndex('jobs_account').on('jobs').columns(['account_id', 'kind', 'seq']).execute();
    },
  },
};
