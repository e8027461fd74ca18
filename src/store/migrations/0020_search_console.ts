/**
 * State store migration 0020: Search Console performance imports (`quarry import
 * search-console`, issue 14).
 *
 * - A rank check may carry what Search Console measured for its keyword that day: `clicks`
 *   and `impressions` (a day's figures, or the daily mean of an export over a period) and
 *   `source` ('search-console' for a check the import created; null for Quarry's own SERP
 *   checks, which an import never overwrites). The stats read measured clicks as visits.
 * - The stats' covering index of (keyword, day, position) gains `clicks`, so per-day visits
 *   still come from the index alone.
 * - `search_console_imports`: resume state of each (file, tracking) import: rows committed
 *   in the same transaction as their checks, so a crashed import resumes after them;
 *   `search_console_written`: the (keyword, day) checks an unfinished import wrote.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const searchConsoleMigrations: Record<string, Migration> = {
  '0020_search_console': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('rank_checks').addColumn('clicks', 'real').execute();
      await db.schema.alterTable('rank_checks').addColumn('impressions', 'real').execute();
      await db.schema.alterTable('rank_checks').addColumn('source', 'text').execute();
      await db.schema.createIndex('rank_checks_keyword_day_position_clicks').on('rank_checks').columns(['keyword_id', 'day', 'position', 'clicks']).execute();
      await sql`DROP INDEX IF EXISTS rank_checks_keyword_day_position`.execute(db);
      await db.schema
        .createTable('search_console_imports')
        .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('file_key', 'text', (c) => c.notNull())
        .addColumn('records_done', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('started_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('search_console_imports_file').on('search_console_imports').columns(['tracking_id', 'file_key']).unique().execute();
      // (keyword, day) pairs an unfinished import has written: a later row of the same
      // query and day (another page, device or country of it) adds to them, even after a resume.
      await db.schema
        .createTable('search_console_written')
        .addColumn('import_id', 'integer', (c) => c.notNull().references('search_console_imports.id').onDelete('cascade'))
        .addColumn('keyword_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('search_console_written_pk', ['import_id', 'keyword_id', 'day'])
        .execute();
    },
  },
};
