/** State store migration 0001: accounts, keys and the access policy's counters. */
import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

export const foundationMigrations: Record<string, Migration> = {
  '0001_foundation': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('revoked_at', 'integer')
        .execute();
      await db.schema
        .createTable('burst_events')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('client_class', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('burst_events_window').on('burst_events').columns(['subject', 'client_class', 'pool', 'at_ms']).execute();
      await db.schema
        .createTable('quota_usage')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('period_start_ms', 'integer', (c) => c.notNull())
        .addColumn('period_end_ms', 'integer', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('quota_usage_pk', ['account_id', 'pool'])
        .execute();
      await db.schema
        .createTable('request_cache')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('cache_key', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('request_cache_pk', ['account_id', 'cache_key'])
        .execute();
      await db.schema.createIndex('request_cache_created').on('request_cache').column('created_ms').execute();
      await db.schema
        .createTable('cooldowns')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('last_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('cooldowns_pk', ['account_id', 'name'])
        .execute();
      await db.schema
        .createTable('history')
        .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('entry', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('history_account_tool').on('history').columns(['account_id', 'tool', 'seq']).execute();
      await db.schema
        .createTable('lookups')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('lookup_key', 'text', (c) => c.notNull())
        .addColumn('data', 'text')
        .addColumn('created_ms', 'integer', (c) => c.notNull())
        .addColumn('expires_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('lookups_pk', ['account_id', 'kind', 'lookup_key'])
        .execute();
      await db.schema.createIndex('lookups_expiry').on('lookups').column('expires_ms').execute();
      await db.schema
        .createTable('kv')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await sql`select 1`.execute(db);
    },
  },
};
