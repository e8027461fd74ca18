/**
 * State store migration 0075: per-day aggregates of the rank checks (issue 26), so that a
 * tracking's stats read days × positions rows instead of every check (1,500 keywords × 90
 * days were 135,000 index entries grouped per request).
 *
 * `rank_check_days` holds, per tracking, day and position (0: not in the top 100), the
 * number of checks, the sum of the keywords' search volumes over the checks without measured
 * clicks, and the sum and number of measured clicks — what rank/rankStats.ts grouped in SQL
 * from the checks, summed the same way. Triggers on `rank_checks` keep it in step with every
 * write (position checks, Search Console imports, removed keywords), whoever writes: no
 * write path can forget it. The tracking is the keyword's (`rank_tracked_keywords`), as the
 * stats' join read it; a keyword's `sv` is fixed when it is added, so its checks' sums stay
 * exact. Rows of a purged tracking go with it (foreign key).
 *
 * Rows whose count drops to 0 (their checks removed) are deleted, so a day without checks
 * never shows in `history_dates`.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** The aggregates of the checks present when the migration runs (later writes go through the triggers). */
export const BACKFILL_RANK_CHECK_DAYS = `INSERT INTO rank_check_days (tracking_id, day, position, n, sv, clicks, clicks_n)
  SELECT k.tracking_id, c.day, COALESCE(c.position, 0), COUNT(*),
    COALESCE(SUM(CASE WHEN c.clicks IS NULL THEN k.sv END), 0), COALESCE(SUM(c.clicks), 0), COUNT(c.clicks)
  FROM rank_checks c JOIN rank_tracked_keywords k ON k.id = c.keyword_id
  GROUP BY k.tracking_id, c.day, COALESCE(c.position, 0)`;

/** SQLite: adds (sign 1) or removes (sign -1) one check, `row` being NEW or OLD. */
function sqliteApply(row: 'NEW' | 'OLD', sign: 1 | -1): string {
  const sv = `CASE WHEN ${row}.clicks IS NULL THEN COALESCE(k.sv, 0) ELSE 0 END`;
  if (sign === 1) {
    return `INSERT INTO rank_check_days (tracking_id, day, position, n, sv, clicks, clicks_n)
      SELECT k.tracking_id, NEW.day, COALESCE(NEW.position, 0), 1, ${sv}, COALESCE(NEW.clicks, 0), NEW.clicks IS NOT NULL
      FROM rank_tracked_keywords k WHERE k.id = NEW.keyword_id
      ON CONFLICT (tracking_id, day, position) DO UPDATE SET n = n + 1, sv = sv + excluded.sv,
        clicks = clicks + excluded.clicks, clicks_n = clicks_n + excluded.clicks_n;`;
  }
  // A keyword already gone (its tracking purged, the foreign keys cascading) matches no row:
  // the tracking's aggregates go with the tracking.
  const key = `tracking_id = (SELECT tracking_id FROM rank_tracked_keywords WHERE id = OLD.keyword_id) AND day = OLD.day AND position = COALESCE(OLD.position, 0)`;
  return `UPDATE rank_check_days SET n = n - 1,
        sv = sv - COALESCE((SELECT ${sv} FROM rank_tracked_keywords k WHERE k.id = OLD.keyword_id), 0),
        clicks = CASE WHEN clicks_n - (OLD.clicks IS NOT NULL) = 0 THEN 0 ELSE clicks - COALESCE(OLD.clicks, 0) END,
        clicks_n = clicks_n - (OLD.clicks IS NOT NULL)
      WHERE ${key};
    DELETE FROM rank_check_days WHERE ${key} AND n <= 0;`;
}

export const rankCheckDaysMigrations: Record<string, Migration> = {
  '0075_rank_check_days': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rank_check_days')
        .addColumn('tracking_id', 'text', (c) => c.notNull().references('rank_trackings.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addColumn('sv', 'integer', (c) => c.notNull())
        .addColumn('clicks', 'real', (c) => c.notNull())
        .addColumn('clicks_n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rank_check_days_pk', ['tracking_id', 'day', 'position'])
        .execute();
      await sql.raw(`CREATE TRIGGER rank_check_days_insert AFTER INSERT ON rank_checks BEGIN ${sqliteApply('NEW', 1)} END`).execute(db);
      await sql.raw(`CREATE TRIGGER rank_check_days_delete AFTER DELETE ON rank_checks BEGIN ${sqliteApply('OLD', -1)} END`).execute(db);
      await sql
        .raw(
          `CREATE TRIGGER rank_check_days_update AFTER UPDATE OF keyword_id, day, position, clicks ON rank_checks
          BEGIN ${sqliteApply('OLD', -1)} ${sqliteApply('NEW', 1)} END`,
        )
        .execute(db);
      await sql.raw(BACKFILL_RANK_CHECK_DAYS).execute(db);
    },
  },
};
