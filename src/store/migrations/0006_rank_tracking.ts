/**
 * State store migration 0006: rank tracking — trackings, their tracked keywords, one
 * position check per keyword and day, email reports and the periods each report was sent for.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const rankTrackingMigrations: Record<string, Migration> = {
  '0006_rank_tracking': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rank_trackings')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('platform_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('deleted_at', 'integer')
        .addColumn('reports_active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('share_token', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rank_trackings_account').on('rank_trackings').columns(['account_id', 'created_at']).execute();
      // The 409 rule as a constraint: two concurrent creates cannot both pass a read-then-insert check.
      await db.schema
        .createIndex('rank_trackings_live_unique')
        .on('rank_trackings')
        .columns(['account_id', 'domain', 'location_id', 'platform_id'])
        .unique()
        .where(sql.ref('is_deleted'), '=', 0)
        .execute();

      await db.schema
        .createTable('rank_tracked_keywords')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('kw', 'text', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('platform_id', 'integer', (c) => c.notNull())
        .addColumn('sv', 'integer')
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('first_day', 'text', (c) => c.notNull())
        .addColumn('checked_through', 'text')
        .execute();
      await db.schema.createIndex('rank_tracked_keywords_tracking_kw').on('rank_tracked_keywords').columns(['tracking_id', 'kw']).unique().execute();
      await db.schema.createIndex('rank_tracked_keywords_due').on('rank_tracked_keywords').columns(['checked_through']).execute();
      await db.schema.createIndex('rank_tracked_keywords_account').on('rank_tracked_keywords').columns(['account_id']).execute();

      await db.schema
        .createTable('rank_checks')
        .addColumn('keyword_id', 'text', (c) => c.notNull().references('rank_tracked_keywords.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('tracking_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer')
        .addColumn('url', 'text')
        .addColumn('visual', 'text')
        .addColumn('features', 'text', (c) => c.notNull())
        .addColumn('serp_snapshot_id', 'text')
        .addColumn('checked_ms', 'integer', (c) => c.notNull())
        // At most one check per keyword and day, however many runs overlap.
        .addPrimaryKeyConstraint('rank_checks_pk', ['keyword_id', 'day'])
        .execute();
      await db.schema.createIndex('rank_checks_tracking_day').on('rank_checks').columns(['tracking_id', 'day', 'position']).execute();

      await db.schema
        .createTable('rank_reports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('emails', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('triggers', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rank_reports_tracking').on('rank_reports').columns(['tracking_id', 'created_at']).execute();

      await db.schema
        .createTable('rank_report_deliveries')
        .addColumn('report_id', 'text', (c) => c.notNull().references('rank_reports.id').onDelete('cascade'))
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('claimed_ms', 'integer', (c) => c.notNull())
        .addColumn('sent_ms', 'integer')
        .addColumn('message_id', 'text')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('rank_report_deliveries_pk', ['report_id', 'period_start'])
        .execute();
    },
  },
};
