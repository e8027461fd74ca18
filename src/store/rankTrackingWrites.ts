/**
 * The rank-tracking writes that several store operations share, run inside their caller's
 * transaction: inserting keywords, reports, tag assignments and annotations.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { newId } from '../lib/ids.js';
import type { StateDatabase } from './schema.js';
import {
  ROWS_PER_INSERT,
  utcDay,
  type AnnotationRow,
  type NewAnnotation,
  type NewKeyword,
  type NewReport,
  type ReportRow,
  type TrackedKeywordRow,
  type TrackingRow,
} from './rankTrackingRecords.js';

export async function insertKeywords(
  trx: Transaction<StateDatabase> | Kysely<StateDatabase>,
  tracking: TrackingRow,
  keywords: readonly NewKeyword[],
  nowSec: number,
  nowMs: number,
): Promise<TrackedKeywordRow[]> {
  const rows: TrackedKeywordRow[] = keywords.map((k) => ({
    id: newId(),
    tracking_id: tracking.id,
    account_id: tracking.account_id,
    kw: k.kw,
    location_id: tracking.location_id,
    platform_id: tracking.platform_id,
    sv: k.sv,
    created_at: nowSec,
    first_day: utcDay(nowMs),
    checked_through: null,
  }));
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await trx
      .insertInto('rank_tracked_keywords')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
  }
  return rows;
}

export async function insertReport(db: Kysely<StateDatabase>, accountId: string, trackingId: string, report: NewReport, nowSec: number): Promise<ReportRow> {
  const row: ReportRow = {
    id: newId(),
    account_id: accountId,
    tracking_id: trackingId,
    type: report.type,
    emails: JSON.stringify(report.emails),
    name: report.name,
    triggers: JSON.stringify(report.triggers),
    min_change: report.min_change,
    created_at: nowSec,
  };
  await db.insertInto('rank_reports').values(row).execute();
  return row;
}

export async function assignTags(trx: Kysely<StateDatabase>, trackingId: string, keywordIds: readonly string[], tagIds: readonly string[]): Promise<void> {
  if (keywordIds.length === 0 || tagIds.length === 0) return;
  for (let i = 0; i < keywordIds.length; i += ROWS_PER_INSERT) {
    const mine = await trx
      .selectFrom('rank_tracked_keywords')
      .select('id')
      .where('tracking_id', '=', trackingId)
      .where('id', 'in', keywordIds.slice(i, i + ROWS_PER_INSERT))
      .execute();
    const rows = mine.flatMap((k) => tagIds.map((tag_id) => ({ keyword_id: k.id, tag_id, tracking_id: trackingId })));
    for (let j = 0; j < rows.length; j += ROWS_PER_INSERT) {
      await trx
        .insertInto('rank_keyword_tags')
        .values(rows.slice(j, j + ROWS_PER_INSERT))
        .onConflict((oc) => oc.columns(['keyword_id', 'tag_id']).doNothing())
        .execute();
    }
  }
}

/**
 * Mean position of the tracking's keywords ranking on their latest check (on or before
 * `day` when given), 2 decimals; null when none ranks.
 */
export async function averagePosition(trx: Kysely<StateDatabase>, trackingId: string, day?: string): Promise<number | null> {
  const row = day
    ? await sql<{ avg: number | null }>`
        SELECT AVG(c.position) AS avg FROM rank_checks c
        WHERE c.tracking_id = ${trackingId} AND c.position IS NOT NULL
          AND c.day = (SELECT MAX(day) FROM rank_checks d WHERE d.keyword_id = c.keyword_id AND d.day <= ${day})`.execute(trx)
    : await sql<{ avg: number | null }>`
        SELECT AVG(c.position) AS avg FROM rank_checks c JOIN rank_tracked_keywords k ON k.id = c.keyword_id AND c.day = k.checked_through
        WHERE k.tracking_id = ${trackingId} AND c.position IS NOT NULL`.execute(trx);
  const avg = row.rows[0]?.avg;
  return avg === null || avg === undefined ? null : Math.round(Number(avg) * 100) / 100;
}

export function annotationOfChange(type: number, keywordsCount: number | null, opts: { nowMs: number; creator: string }): NewAnnotation {
  return { date: utcDay(opts.nowMs), type, text: null, keywords_count: keywordsCount, avg: null, creator: opts.creator };
}

export async function insertAnnotation(
  trx: Kysely<StateDatabase>,
  tracking: TrackingRow,
  a: NewAnnotation,
  nowSec: number,
  avg?: number | null,
): Promise<AnnotationRow> {
  const row: AnnotationRow = {
    id: newId(),
    account_id: tracking.account_id,
    tracking_id: tracking.id,
    date: a.date,
    type: a.type,
    text: a.text,
    keywords_count: a.keywords_count,
    avg: avg === undefined ? (a.avg ?? (await averagePosition(trx, tracking.id))) : avg,
    platform_id: tracking.platform_id,
    non_shareable: 0,
    creator: a.creator,
    created_at: nowSec,
  };
  await trx.insertInto('rank_annotations').values(row).execute();
  return row;
}
