/**
 * State store migration 0014: what Quarry holds from paid upstream providers (SERP and
 * keyword-volume APIs). `provider_serps` keeps each fetched SERP for its day, so a SERP is
 * bought at most once per (provider, query, day) whatever the number of accounts asking;
 * `provider_spend` adds up each provider's spend per UTC day against its daily budget.
 * Both are operational state (they save money), so they live in the state store, not in
 * the rebuildable research store.
 */
import type { Kysely, Migration } from 'kysely';

export const providerLedgerMigrations: Record<string, Migration> = {
  '0014_provider_ledger': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('provider_serps')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('query_key', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('provider_serps_pk', ['provider', 'query_key', 'day'])
        .execute();
      await db.schema.createIndex('provider_serps_day').on('provider_serps').column('day').execute();
      await db.schema
        .createTable('provider_spend')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('spent', 'real', (c) => c.notNull())
        .addColumn('calls', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('provider_spend_pk', ['provider', 'day'])
        .execute();
    },
  },
};
