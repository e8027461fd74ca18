/**
 * Rank tracking records: trackings, tracked keywords, daily checks and email reports.
 * Creating trackings and adding keywords count against the plan's tracked-keywords limit
 * inside one transaction, so two concurrent requests cannot both slip under it.
 *
 * @example
 * const store = new RankTrackingStore(state.db);
 * const created = await store.createTrackings(account.id, [{ domain: 'example.com', locationId: 2840, platformId: 1 }], keywords, { limit: 200, nowSec, email });
 */
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { newId } from '../lib/ids.js';
import type { RankReportsTable, RankTrackedKeywordsTable, RankTrackingsTable, StateDatabase } from './schema.js';

export type TrackingRow = Selectable<RankTrackingsTable>;
export type TrackedKeywordRow = Selectable<RankTrackedKeywordsTable>;
export type ReportRow = Selectable<RankReportsTable>;

export interface TrackingWithCount extends TrackingRow {
  count: number;
}

export interface NewKeyword {
  kw: string;
  sv: number | null;
}

export interface TrackingTarget {
  domain: string;
  locationId: number;
  platformId: number;
}

export interface NewReport {
  type: number;
  emails: string[];
  name: string | null;
  triggers: Record<string, unknown>;
}

/** Thrown when a tracking of the same domain, location and platform is live (409). */
export class TrackingConflictError extends Error {}

/** Thrown when the account would track more keywords than its plan allows (422). */
export class TrackedKeywordLimitError extends Error {
  constructor(
    readonly limit: number,
    readonly requested: number,
  ) {
    super(`Your plan tracks at most ${limit} keywords; this request would track ${requested}`);
  }
}

export const REPORT_TYPES = { weekly: 0, monthly: 1, rankChange: 2 } as const;

/** UTC day `YYYY-MM-DD` of a millisecond timestamp. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const ROWS_PER_INSERT = 500;

export class RankTrackingStore {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  /** Keywords the account tracks across its trackings not deleted. */
  async trackedKeywordCount(db: Kysely<StateDatabase>, accountId: string): Promise<number> {
    const { n } = await db
      .selectFrom('rank_tracked_keywords')
      .innerJoin('rank_trackings', 'rank_trackings.id', 'rank_tracked_keywords.tracking_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('rank_tracked_keywords.account_id', '=', accountId)
      .where('rank_trackings.is_deleted', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  /**
   * Creates one tracking per target with the same keywords and default weekly and monthly
   * reports to `email`, all or nothing. Throws TrackingConflictError (a live tracking of a
   * target exists) or TrackedKeywordLimitError.
   */
  async createTrackings(
    accountId: string,
    targets: readonly TrackingTarget[],
    keywords: readonly NewKeyword[],
    opts: { limit: number; nowSec: number; nowMs: number; email: string },
  ): Promise<{ tracking: TrackingRow; keywords: TrackedKeywordRow[]; reports: ReportRow[] }[]> {
    return this.db.transaction().execute(async (trx) => {
      for (const t of targets) {
        const live = await trx
          .selectFrom('rank_trackings')
          .select('id')
          .where('account_id', '=', accountId)
          .where('domain', '=', t.domain)
          .where('location_id', '=', t.locationId)
          .where('platform_id', '=', t.platformId)
          .where('is_deleted', '=', 0)
          .executeTakeFirst();
        if (live) throw new TrackingConflictError(`A tracking of ${t.domain} for this location and platform exists already (${live.id})`);
      }
      const used = await this.trackedKeywordCount(trx, accountId);
      const requested = used + keywords.length * targets.length;
      if (requested > opts.limit) throw new TrackedKeywordLimitError(opts.limit, requested);
      const out = [];
      for (const t of targets) {
        const tracking: TrackingRow = {
          id: newId(),
          account_id: accountId,
          domain: t.domain,
          location_id: t.locationId,
          platform_id: t.platformId,
          created_at: opts.nowSec,
          is_deleted: 0,
          deleted_at: null,
          reports_active: 1,
          share_token: newId() + newId(),
        };
        await trx.insertInto('rank_trackings').values(tracking).execute();
        const rows = await insertKeywords(trx, tracking, keywords, opts.nowSec, opts.nowMs);
        const reports: ReportRow[] = [];
        for (const [type, name] of [
          [REPORT_TYPES.weekly, 'Weekly report'],
          [REPORT_TYPES.monthly, 'Monthly report'],
        ] as const) {
          reports.push(await insertReport(trx, accountId, tracking.id, { type, emails: [opts.email], name, triggers: {} }, opts.nowSec));
        }
        out.push({ tracking, keywords: rows, reports });
      }
      return out;
    });
  }

  /** Trackings of the account, newest first (also within one second), with their keyword counts. */
  async list(accountId: string, filter: { fromSec?: number; toSec?: number; withDeleted: boolean }): Promise<TrackingWithCount[]> {
    let q = this.db
      .selectFrom('rank_trackings')
      .selectAll('rank_trackings')
      .select((eb) =>
        eb
          .selectFrom('rank_tracked_keywords')
          .select((e) => e.fn.countAll<number>().as('c'))
          .whereRef('rank_tracked_keywords.tracking_id', '=', 'rank_trackings.id')
          .as('count'),
      )
      .where('account_id', '=', accountId);
    if (!filter.withDeleted) q = q.where('is_deleted', '=', 0);
    if (filter.fromSec !== undefined) q = q.where('created_at', '>=', filter.fromSec);
    if (filter.toSec !== undefined) q = q.where('created_at', '<=', filter.toSec);
    // Ids are random: within one second, rowid keeps the order of creation.
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy(sql`rank_trackings.rowid`, 'desc')
      .execute();
    return rows.map((r) => ({ ...r, count: Number(r.count ?? 0) }));
  }

  /** One tracking of the account; undefined for another account's, an unknown or (unless asked) a deleted one. */
  async get(accountId: string, trackingId: string, opts: { withDeleted?: boolean } = {}): Promise<TrackingRow | undefined> {
    let q = this.db.selectFrom('rank_trackings').selectAll().where('id', '=', trackingId).where('account_id', '=', accountId);
    if (!opts.withDeleted) q = q.where('is_deleted', '=', 0);
    return q.executeTakeFirst();
  }

  async keywordsOf(trackingId: string): Promise<TrackedKeywordRow[]> {
    return this.db.selectFrom('rank_tracked_keywords').selectAll().where('tracking_id', '=', trackingId).orderBy('created_at').orderBy('kw').execute();
  }

  async keywordIdsOf(trackingId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('rank_tracked_keywords')
      .select('id')
      .where('tracking_id', '=', trackingId)
      .orderBy('created_at')
      .orderBy('kw')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Tracked keyword ids per tracking, in the order they were added. */
  async keywordIdsByTracking(trackingIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(trackingIds.map((id) => [id, []]));
    for (let i = 0; i < trackingIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('rank_tracked_keywords')
        .select(['tracking_id', 'id'])
        .where('tracking_id', 'in', trackingIds.slice(i, i + 500))
        .orderBy('created_at')
        .orderBy('kw')
        .execute();
      for (const r of rows) out.get(r.tracking_id)!.push(r.id);
    }
    return out;
  }

  /** Each keyword of a tracking with its latest check (null fields before the first one). */
  async keywordsWithLatest(trackingId: string) {
    return this.db
      .selectFrom('rank_tracked_keywords as k')
      .leftJoin('rank_checks as c', (j) => j.onRef('c.keyword_id', '=', 'k.id').onRef('c.day', '=', 'k.checked_through'))
      .selectAll('k')
      .select(['c.position', 'c.url'])
      .where('k.tracking_id', '=', trackingId)
      .orderBy('k.created_at')
      .orderBy('k.kw')
      .execute();
  }

  /** A keyword's checks, oldest first. */
  async checksOf(keywordId: string) {
    return this.db.selectFrom('rank_checks').selectAll().where('keyword_id', '=', keywordId).orderBy('day').execute();
  }

  async keyword(trackingId: string, keywordId: string): Promise<TrackedKeywordRow | undefined> {
    return this.db.selectFrom('rank_tracked_keywords').selectAll().where('tracking_id', '=', trackingId).where('id', '=', keywordId).executeTakeFirst();
  }

  async setReportsActive(trackingId: string, active: boolean): Promise<void> {
    await this.db
      .updateTable('rank_trackings')
      .set({ reports_active: active ? 1 : 0 })
      .where('id', '=', trackingId)
      .execute();
  }

  /** Soft delete: the tracking stops being checked and reported and frees its keywords from the plan limit. */
  async softDelete(accountId: string, trackingId: string, nowSec: number): Promise<boolean> {
    const res = await this.db
      .updateTable('rank_trackings')
      .set({ is_deleted: 1, deleted_at: nowSec })
      .where('id', '=', trackingId)
      .where('account_id', '=', accountId)
      .where('is_deleted', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /**
   * Adds keywords not tracked yet (already tracked ones silently); throws
   * TrackedKeywordLimitError when the account would exceed its plan.
   */
  async addKeywords(
    tracking: TrackingRow,
    keywords: readonly NewKeyword[],
    opts: { limit: number; nowSec: number; nowMs: number },
  ): Promise<TrackedKeywordRow[]> {
    return this.db.transaction().execute(async (trx) => {
      const present = new Set((await trx.selectFrom('rank_tracked_keywords').select('kw').where('tracking_id', '=', tracking.id).execute()).map((r) => r.kw));
      const fresh = keywords.filter((k) => !present.has(k.kw));
      const used = await this.trackedKeywordCount(trx, tracking.account_id);
      if (used + fresh.length > opts.limit) throw new TrackedKeywordLimitError(opts.limit, used + fresh.length);
      return insertKeywords(trx, tracking, fresh, opts.nowSec, opts.nowMs);
    });
  }

  /** Removes keywords and their check history (unknown ids silently). */
  async removeKeywords(trackingId: string, keywordIds: readonly string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < keywordIds.length; i += ROWS_PER_INSERT) {
        const ids = keywordIds.slice(i, i + ROWS_PER_INSERT);
        await trx.deleteFrom('rank_checks').where('keyword_id', 'in', ids).where('tracking_id', '=', trackingId).execute();
        await trx.deleteFrom('rank_tracked_keywords').where('id', 'in', ids).where('tracking_id', '=', trackingId).execute();
      }
    });
  }

  // ---- reports --------------------------------------------------------------------------

  async reportsOf(trackingId: string): Promise<ReportRow[]> {
    return this.db.selectFrom('rank_reports').selectAll().where('tracking_id', '=', trackingId).orderBy('created_at').orderBy('type').execute();
  }

  async createReport(tracking: TrackingRow, report: NewReport, nowSec: number): Promise<ReportRow> {
    return insertReport(this.db, tracking.account_id, tracking.id, report, nowSec);
  }

  async updateReport(trackingId: string, reportId: string, report: NewReport): Promise<ReportRow | undefined> {
    const res = await this.db
      .updateTable('rank_reports')
      .set({ type: report.type, emails: JSON.stringify(report.emails), name: report.name, triggers: JSON.stringify(report.triggers) })
      .where('id', '=', reportId)
      .where('tracking_id', '=', trackingId)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) return undefined;
    return this.db.selectFrom('rank_reports').selectAll().where('id', '=', reportId).executeTakeFirst();
  }

  async deleteReport(trackingId: string, reportId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('rank_report_deliveries')
        .where('report_id', '=', reportId)
        .where(sql<boolean>`exists (select 1 from rank_reports r where r.id = ${reportId} and r.tracking_id = ${trackingId})`)
        .execute();
      const res = await trx.deleteFrom('rank_reports').where('id', '=', reportId).where('tracking_id', '=', trackingId).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }
}

async function insertKeywords(
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

async function insertReport(db: Kysely<StateDatabase>, accountId: string, trackingId: string, report: NewReport, nowSec: number): Promise<ReportRow> {
  const row: ReportRow = {
    id: newId(),
    account_id: accountId,
    tracking_id: trackingId,
    type: report.type,
    emails: JSON.stringify(report.emails),
    name: report.name,
    triggers: JSON.stringify(report.triggers),
    created_at: nowSec,
  };
  await db.insertInto('rank_reports').values(row).execute();
  return row;
}
