/**
 * State store migration 0009: charges in flight. Admission writes one row with the charge
 * it reserves; the commit (answer stored) or the release deletes it in the same transaction.
 * A row that outlives its server (kill -9 between admission and answer) is released at the
 * next start: the client was charged for no answer it could read.
 */
import type { Kysely, Migration } from 'kysely';

export const inflightChargeMigrations: Record<string, Migration> = {
  '0008_inflight_charges': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('inflight_charges')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('client_class', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('reserved', 'integer', (c) => c.notNull())
        .addColumn('burst_event_id', 'integer', (c) => c.notNull())
        .addColumn('started_period', 'integer', (c) => c.notNull())
        .addColumn('cooldown_name', 'text')
        .addColumn('cooldown_previous_ms', 'integer')
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .execute();
    },
  },
};
