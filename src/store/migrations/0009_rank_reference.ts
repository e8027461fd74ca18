/**
 * State store migration 0009: the rank tool as the published reference speaks it.
 *
 * - Report types take the reference's numbers: 0 rank-change alert, 1 weekly, 2 monthly
 *   (they were 0 weekly, 1 monthly, 2 alert). Triggers become the reference's array of
 *   integers; an alert's `min_change` (stored in the old triggers object) moves to a column
 *   of its own. The delivery claims keep their report ids, so nothing is sent twice.
 * - Trackings get `tracking_config` (local-SEO settings, JSON, null when unset).
 * - Tags (per tracking, assigned to tracked keywords) and annotations (chart markers).
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const rankReferenceMigrations: Record<string, Migration> = {
  '0009_rank_reference': {
    async up(db: Kysely<any>) {
      await sql`UPDATE rank_reports SET type = CASE type WHEN 0 THEN 1 WHEN 1 THEN 2 WHEN 2 THEN 0 ELSE type END`.execute(db);
      await db.schema.alterTable('rank_reports').addColumn('min_change', 'integer').execute();
      await sql`UPDATE rank_reports SET min_change = json_extract(triggers, '$.min_change')
                WHERE json_valid(triggers) AND json_type(triggers) = 'object'`.execute(db);
      await sql`UPDATE rank_reports SET triggers = '[]' WHERE NOT json_valid(triggers) OR json_type(triggers) != 'array'`.execute(db);

      await db.schema.alterTable('rank_trackings').addColumn('tracking_config', 'text').execute();

      await db.schema
        .createTable('rank_tags')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('creator', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rank_tags_account').on('rank_tags').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('rank_tags_tracking').on('rank_tags').columns(['tracking_id']).execute();

      await db.schema
        .createTable('rank_keyword_tags')
        .addColumn('keyword_id', 'text', (c) => c.notNull().references('rank_tracked_keywords.id').onDelete('cascade'))
        .addColumn('tag_id', 'text', (c) => c.notNull().references('rank_tags.id').onDelete('cascade'))
        .addColumn('tracking_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('rank_keyword_tags_pk', ['keyword_id', 'tag_id'])
        .execute();
      await db.schema.createIndex('rank_keyword_tags_tag').on('rank_keyword_tags').columns(['tag_id']).execute();
      await db.schema.createIndex('rank_keyword_tags_tracking').on('rank_keyword_tags').columns(['tracking_id']).execute();

      await db.schema
        .createTable('rank_annotations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('date', 'text', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('text', 'text')
        .addColumn('keywords_count', 'integer')
        .addColumn('avg', 'real')
        .addColumn('platform_id', 'integer', (c) => c.notNull())
        .addColumn('non_shareable', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('creator', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rank_annotations_tracking').on('rank_annotations').columns(['tracking_id', 'date']).execute();
    },
  },
};
