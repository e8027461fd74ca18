/**
 * Rank tracking records: trackings, tracked keywords, daily checks and email reports.
 * Creating trackings and adding keywords count against the plan's tracked-keywords limit
 * inside one transaction under the account's lock (store/accountLock.ts), so two concurrent
 * requests cannot both slip under it, on either backend.
 *
 * @example
 * const store = new RankTrackingStore(state.db);
 * const created = await store.createTrackings(account.id, [{ domain: 'example.com', locationId: 2840, platformId: 1 }], keywords, { limit: 200, nowSec, email });
 */
import { sql } from 'kysely';
import { newId } from '../lib/ids.js';
import { lockAccount } from './accountLock.js';
import { RankAttachmentsStore } from './rankTrackingAttachments.js';
import {
  ANNOTATION_TYPES,
  REPORT_TYPES,
  ROWS_PER_INSERT,
  TrackedKeywordLimitError,
  TrackingConflictError,
  type AnnotationRow,
  type NewKeyword,
  type ReportRow,
  type TrackedKeywordRow,
  type TrackingConfig,
  type TrackingRow,
  type TrackingTarget,
  type TrackingWithCount,
} from './rankTrackingRecords.js';
import { annotationOfChange, assignTags, averagePosition, insertAnnotation, insertKeywords, insertReport } from './rankTrackingWrites.js';

// The records, errors and quota, where the rank service and tools import them from.
export {
  ANNOTATION_TYPES,
  REPORT_TYPES,
  StorageQuotaError,
  TrackedKeywordLimitError,
  TrackingConflictError,
  utcDay,
  type AnnotationRow,
  type NewAnnotation,
  type NewKeyword,
  type NewReport,
  type RankObject,
  type RankStorageQuota,
  type ReportRow,
  type TagRow,
  type TrackedKeywordRow,
  type TrackingConfig,
  type TrackingRow,
  type TrackingTarget,
  type TrackingWithCount,
} from './rankTrackingRecords.js';

/** Reports a new tracking starts with: weekly and monthly. */
const DEFAULT_REPORTS = 2;

/**
 * The rank-tracking store: trackings and their keywords here; tags, annotations and
 * reports in RankAttachmentsStore; the storage quota in RankStorage.
 */
export class RankTrackingStore extends RankAttachmentsStore {
  /**
   * Creates one tracking per target with the same keywords and default weekly and monthly
   * reports to `email`, all or nothing. Throws TrackingConflictError when a live tracking of
   * a target exists (with `skipExisting`, only when every target has one: the others are
   * created) or TrackedKeywordLimitError.
   */
  async createTrackings(
    accountId: string,
    targets: readonly TrackingTarget[],
    keywords: readonly NewKeyword[],
    opts: { limit: number; nowSec: number; nowMs: number; email: string; skipExisting?: boolean },
  ): Promise<{ tracking: TrackingRow; keywords: TrackedKeywordRow[]; reports: ReportRow[] }[]> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      const missing: TrackingTarget[] = [];
      let conflict: TrackingConflictError | undefined;
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
        if (!live) missing.push(t);
        else conflict ??= new TrackingConflictError(`A tracking of ${t.domain} for this location and platform exists already (${live.id})`);
      }
      if (conflict && (!opts.skipExisting || missing.length === 0)) throw conflict;
      const used = await this.trackedKeywordCount(trx, accountId);
      const requested = used + keywords.length * missing.length;
      if (requested > opts.limit) throw new TrackedKeywordLimitError(opts.limit, requested);
      await this.checkStorage(
        trx,
        accountId,
        { trackings: missing.length, trackedKeywords: keywords.length * missing.length, reports: DEFAULT_REPORTS * missing.length },
        opts.nowSec,
      );
      const out = [];
      for (const t of missing) {
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
          tracking_config: null,
        };
        await trx.insertInto('rank_trackings').values(tracking).execute();
        const rows = await insertKeywords(trx, tracking, keywords, opts.nowSec, opts.nowMs);
        const reports: ReportRow[] = [];
        for (const [type, name] of [
          [REPORT_TYPES.weekly, 'Weekly report'],
          [REPORT_TYPES.monthly, 'Monthly report'],
        ] as const) {
          reports.push(await insertReport(trx, accountId, tracking.id, { type, emails: [opts.email], name, triggers: [], min_change: null }, opts.nowSec));
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
   * Adds keywords not tracked yet; already tracked ones only gain the tags. Only new
   * keywords count against the plan: throws TrackedKeywordLimitError when the account
   * would exceed it. Tags must be the tracking's (checked by the caller). Records an
   * annotation of the addition.
   */
  async addKeywords(
    tracking: TrackingRow,
    keywords: readonly NewKeyword[],
    opts: { limit: number; nowSec: number; nowMs: number; tagIds?: readonly string[]; creator: string },
  ): Promise<TrackedKeywordRow[]> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, tracking.account_id);
      const present = new Map(
        (await trx.selectFrom('rank_tracked_keywords').select(['kw', 'id']).where('tracking_id', '=', tracking.id).execute()).map((r) => [r.kw, r.id]),
      );
      const fresh = keywords.filter((k) => !present.has(k.kw));
      const used = await this.trackedKeywordCount(trx, tracking.account_id);
      if (used + fresh.length > opts.limit) throw new TrackedKeywordLimitError(opts.limit, used + fresh.length);
      await this.checkStorage(trx, tracking.account_id, { trackedKeywords: fresh.length, annotations: fresh.length > 0 ? 1 : 0 }, opts.nowSec);
      const added = await insertKeywords(trx, tracking, fresh, opts.nowSec, opts.nowMs);
      if (opts.tagIds && opts.tagIds.length > 0) {
        const ids = [...keywords.flatMap((k) => (present.has(k.kw) ? [present.get(k.kw)!] : [])), ...added.map((k) => k.id)];
        await assignTags(trx, tracking.id, ids, opts.tagIds);
      }
      if (added.length > 0) {
        await insertAnnotation(trx, tracking, annotationOfChange(ANNOTATION_TYPES.keywordsAdded, added.length, opts), opts.nowSec);
      }
      return added;
    });
  }

  /** Removes keywords and their check history (unknown ids silently); records an annotation of the removal. */
  async removeKeywords(tracking: TrackingRow, keywordIds: readonly string[], opts: { nowSec: number; nowMs: number; creator: string }): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      let removed = 0;
      for (let i = 0; i < keywordIds.length; i += ROWS_PER_INSERT) {
        const ids = keywordIds.slice(i, i + ROWS_PER_INSERT);
        await trx.deleteFrom('rank_checks').where('keyword_id', 'in', ids).where('tracking_id', '=', tracking.id).execute();
        await trx.deleteFrom('rank_keyword_tags').where('keyword_id', 'in', ids).where('tracking_id', '=', tracking.id).execute();
        const res = await trx.deleteFrom('rank_tracked_keywords').where('id', 'in', ids).where('tracking_id', '=', tracking.id).executeTakeFirst();
        removed += Number(res.numDeletedRows);
      }
      if (removed > 0) {
        await insertAnnotation(
          trx,
          tracking,
          annotationOfChange(ANNOTATION_TYPES.keywordsRemoved, -removed, opts),
          opts.nowSec,
          await averagePosition(trx, tracking.id),
        );
      }
      return removed;
    });
  }

  /**
   * Changes a tracking's domain and local-SEO settings. A new domain taken by another live
   * tracking of the same location and platform throws TrackingConflictError; a domain change
   * is recorded as an annotation (the history stays with the tracking).
   */
  async updateTracking(
    tracking: TrackingRow,
    change: { domain?: string; config?: TrackingConfig | null; reportsActive?: boolean },
    opts: { nowSec: number; nowMs: number; creator: string },
  ): Promise<{ tracking: TrackingRow; annotation: AnnotationRow | null }> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, tracking.account_id);
      let annotation: AnnotationRow | null = null;
      if (change.domain !== undefined && change.domain !== tracking.domain) {
        const live = await trx
          .selectFrom('rank_trackings')
          .select('id')
          .where('account_id', '=', tracking.account_id)
          .where('domain', '=', change.domain)
          .where('location_id', '=', tracking.location_id)
          .where('platform_id', '=', tracking.platform_id)
          .where('is_deleted', '=', 0)
          .executeTakeFirst();
        if (live) throw new TrackingConflictError(`A tracking of ${change.domain} for this location and platform exists already (${live.id})`);
        // The change is recorded as an annotation, which must fit.
        await this.checkStorage(trx, tracking.account_id, { annotations: 1 }, opts.nowSec);
        await trx.updateTable('rank_trackings').set({ domain: change.domain }).where('id', '=', tracking.id).execute();
        annotation = await insertAnnotation(
          trx,
          tracking,
          { ...annotationOfChange(ANNOTATION_TYPES.domainChanged, null, opts), text: `Domain changed from ${tracking.domain} to ${change.domain}` },
          opts.nowSec,
          await averagePosition(trx, tracking.id),
        );
      }
      if (change.config !== undefined) {
        await trx
          .updateTable('rank_trackings')
          .set({ tracking_config: change.config === null ? null : JSON.stringify(change.config) })
          .where('id', '=', tracking.id)
          .execute();
      }
      if (change.reportsActive !== undefined) {
        await trx
          .updateTable('rank_trackings')
          .set({ reports_active: change.reportsActive ? 1 : 0 })
          .where('id', '=', tracking.id)
          .execute();
      }
      const updated = await trx.selectFrom('rank_trackings').selectAll().where('id', '=', tracking.id).executeTakeFirstOrThrow();
      return { tracking: updated, annotation };
    });
  }

  /** A tracking by its id and share token, for the read-only shared view (deleted ones too). */
  async byShareToken(trackingId: string, token: string): Promise<TrackingRow | undefined> {
    return this.db.selectFrom('rank_trackings').selectAll().where('id', '=', trackingId).where('share_token', '=', token).executeTakeFirst();
  }
}
