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
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { newId } from '../lib/ids.js';
import { lockAccount } from './accountLock.js';
import type { RankAnnotationsTable, RankReportsTable, RankTagsTable, RankTrackedKeywordsTable, RankTrackingsTable, StateDatabase } from './schema.js';

export type TrackingRow = Selectable<RankTrackingsTable>;
export type TrackedKeywordRow = Selectable<RankTrackedKeywordsTable>;
export type ReportRow = Selectable<RankReportsTable>;
export type TagRow = Selectable<RankTagsTable>;
export type AnnotationRow = Selectable<RankAnnotationsTable>;

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
  triggers: number[];
  min_change: number | null;
}

/** Local-SEO settings of a tracking (map-pack tracking). */
export interface TrackingConfig {
  place_id: string | null;
  ludocid: string | null;
  name: string | null;
  address: string | null;
}

/** Annotation types: a user's note, and the changes recorded by the service. */
export const ANNOTATION_TYPES = { note: 0, keywordsAdded: 1, keywordsRemoved: 2, domainChanged: 3 } as const;

export interface NewAnnotation {
  date: string;
  type: number;
  text: string | null;
  keywords_count: number | null;
  avg: number | null;
  creator: string;
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

/** The rank-tool objects an account's storage quota counts (fair use; see policy/fairUse.ts). */
export interface RankStorageQuota {
  trackings: number;
  trackedKeywords: number;
  tags: number;
  annotations: number;
  reports: number;
}
export type RankObject = keyof RankStorageQuota;

const UNLIMITED: RankStorageQuota = {
  trackings: Infinity,
  trackedKeywords: Infinity,
  tags: Infinity,
  annotations: Infinity,
  reports: Infinity,
};

const OBJECT_NAMES: Record<RankObject, [string, string]> = {
  trackings: ['rank_trackings', 'trackings (deleted ones included until they are purged)'],
  trackedKeywords: ['rank_tracked_keywords', 'tracked keywords (those of deleted trackings included until they are purged)'],
  tags: ['rank_tags', 'tags'],
  annotations: ['rank_annotations', 'annotations'],
  reports: ['rank_reports', 'reports'],
};

/** Thrown when a write would take the account past its storage quota of one kind of object (422); nothing is written. */
export class StorageQuotaError extends Error {
  constructor(
    readonly kind: RankObject,
    readonly limit: number,
    readonly stored: number,
  ) {
    super(
      `An account stores at most ${limit.toLocaleString('en-US')} ${OBJECT_NAMES[kind][1]} (${stored.toLocaleString('en-US')} stored); delete some to make room`,
    );
  }
}

/** Report types, the reference's numbers. */
export const REPORT_TYPES = { rankChange: 0, weekly: 1, monthly: 2 } as const;

/** UTC day `YYYY-MM-DD` of a millisecond timestamp. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const ROWS_PER_INSERT = 500;
/** Reports a new tracking starts with: weekly and monthly. */
const DEFAULT_REPORTS = 2;

export class RankTrackingStore {
  constructor(
    private readonly db: Kysely<StateDatabase>,
    /** The account's storage quota; read at each write, so a context's copy may be lowered. */
    private readonly quota: RankStorageQuota = UNLIMITED,
    /** Seconds a deleted tracking is kept before it is purged with everything it holds. */
    private readonly retentionSec = Infinity,
  ) {}

  /**
   * Purges the trackings deleted more than the retention ago (of one account, or of all),
   * with their keywords, checks, tags, annotations and reports (the foreign keys cascade).
   */
  async purgeDeleted(nowSec: number, accountId?: string, db: Kysely<StateDatabase> = this.db): Promise<number> {
    if (!Number.isFinite(this.retentionSec)) return 0;
    const res = await db
      .deleteFrom('rank_trackings')
      .where('is_deleted', '=', 1)
      .where('deleted_at', '<', nowSec - this.retentionSec)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /**
   * Refuses a write that would take the account past its storage quota of any kind it adds.
   * Run inside the write's transaction after its first statement took the account's lock
   * (store/accountLock.ts; SQLite's IMMEDIATE transactions are one at a time): concurrent
   * writes, of this process or another, are counted one after the other and cannot both fit. Expired deleted trackings
   * are purged first, so their room is free at once.
   */
  private async checkStorage(trx: Kysely<StateDatabase>, accountId: string, adding: Partial<Record<RankObject, number>>, nowSec: number): Promise<void> {
    const kinds = (Object.keys(adding) as RankObject[]).filter((k) => (adding[k] ?? 0) > 0 && Number.isFinite(this.quota[k]));
    if (kinds.length === 0) return;
    await this.purgeDeleted(nowSec, accountId, trx);
    for (const kind of kinds) {
      const { n } = await trx
        .selectFrom(OBJECT_NAMES[kind][0] as 'rank_tags')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      const stored = Number(n);
      if (stored + adding[kind]! > this.quota[kind]) throw new StorageQuotaError(kind, this.quota[kind], stored);
    }
  }

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

  // ---- tags -----------------------------------------------------------------------------

  /** Every tag of the account's trackings (deleted trackings' too), oldest first. */
  async tagsOfAccount(accountId: string): Promise<TagRow[]> {
    return this.db
      .selectFrom('rank_tags')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  }

  async tagsOf(trackingId: string): Promise<TagRow[]> {
    return this.db
      .selectFrom('rank_tags')
      .selectAll()
      .where('tracking_id', '=', trackingId)
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  }

  async createTag(tracking: TrackingRow, tag: { name: string; color: string; creator: string }, nowSec: number): Promise<TagRow> {
    const row: TagRow = { id: newId(), account_id: tracking.account_id, tracking_id: tracking.id, ...tag, created_at: nowSec };
    await this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, tracking.account_id);
      await this.checkStorage(trx, tracking.account_id, { tags: 1 }, nowSec);
      await trx.insertInto('rank_tags').values(row).execute();
    });
    return row;
  }

  /** Renames and recolours a tag of the tracking: every keyword carrying it shows the change. */
  async updateTag(trackingId: string, tagId: string, change: { name: string; color: string }): Promise<boolean> {
    const res = await this.db.updateTable('rank_tags').set(change).where('id', '=', tagId).where('tracking_id', '=', trackingId).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes a tag of the tracking and takes it off every keyword. */
  async deleteTag(trackingId: string, tagId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('rank_keyword_tags').where('tag_id', '=', tagId).where('tracking_id', '=', trackingId).execute();
      const res = await trx.deleteFrom('rank_tags').where('id', '=', tagId).where('tracking_id', '=', trackingId).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  /** The ids among `tagIds` that are not tags of the tracking. */
  async unknownTags(trackingId: string, tagIds: readonly string[]): Promise<string[]> {
    if (tagIds.length === 0) return [];
    const known = new Set(
      (
        await this.db
          .selectFrom('rank_tags')
          .select('id')
          .where('tracking_id', '=', trackingId)
          .where('id', 'in', [...tagIds])
          .execute()
      ).map((r) => r.id),
    );
    return tagIds.filter((id) => !known.has(id));
  }

  /** Gives keywords of the tracking the tags (merged, no duplicates); keyword ids of other trackings are ignored. */
  async assignTags(trackingId: string, keywordIds: readonly string[], tagIds: readonly string[]): Promise<void> {
    await this.db.transaction().execute((trx) => assignTags(trx, trackingId, keywordIds, tagIds));
  }

  /** Takes the tags off the keywords; tags a keyword does not carry are ignored. */
  async unassignTags(trackingId: string, keywordIds: readonly string[], tagIds: readonly string[]): Promise<void> {
    if (keywordIds.length === 0 || tagIds.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < keywordIds.length; i += ROWS_PER_INSERT) {
        await trx
          .deleteFrom('rank_keyword_tags')
          .where('tracking_id', '=', trackingId)
          .where('keyword_id', 'in', keywordIds.slice(i, i + ROWS_PER_INSERT))
          .where('tag_id', 'in', [...tagIds])
          .execute();
      }
    });
  }

  /** The tag ids of each keyword of the tracking that carries any. */
  async tagIdsByKeyword(trackingId: string): Promise<Map<string, string[]>> {
    const rows = await this.db
      .selectFrom('rank_keyword_tags as kt')
      .innerJoin('rank_tags as t', 't.id', 'kt.tag_id')
      .select(['kt.keyword_id', 'kt.tag_id'])
      .where('kt.tracking_id', '=', trackingId)
      .orderBy('t.created_at')
      .orderBy(sql`t.rowid`)
      .execute();
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const list = out.get(r.keyword_id);
      if (list) list.push(r.tag_id);
      else out.set(r.keyword_id, [r.tag_id]);
    }
    return out;
  }

  // ---- annotations ----------------------------------------------------------------------

  /** The tracking's annotations, by date then creation; dates from `from` to `to` when given. */
  async annotationsOf(trackingId: string, range?: { from: string; to: string }): Promise<AnnotationRow[]> {
    let q = this.db.selectFrom('rank_annotations').selectAll().where('tracking_id', '=', trackingId);
    if (range) q = q.where('date', '>=', range.from).where('date', '<=', range.to);
    return q
      .orderBy('date')
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  }

  async createNote(tracking: TrackingRow, note: { date: string; text: string; creator: string }, nowSec: number, nowMs: number): Promise<AnnotationRow> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, tracking.account_id);
      await this.checkStorage(trx, tracking.account_id, { annotations: 1 }, nowSec);
      return insertAnnotation(
        trx,
        tracking,
        { date: note.date, type: ANNOTATION_TYPES.note, text: note.text, keywords_count: null, avg: null, creator: note.creator },
        nowSec,
        await averagePosition(trx, tracking.id, note.date <= utcDay(nowMs) ? note.date : undefined),
      );
    });
  }

  async updateAnnotationText(trackingId: string, annotationId: string, text: string): Promise<boolean> {
    const res = await this.db
      .updateTable('rank_annotations')
      .set({ text })
      .where('id', '=', annotationId)
      .where('tracking_id', '=', trackingId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async deleteAnnotation(trackingId: string, annotationId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('rank_annotations').where('id', '=', annotationId).where('tracking_id', '=', trackingId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  // ---- reports --------------------------------------------------------------------------

  /** The types of each tracking's reports. */
  async reportTypesByTracking(trackingIds: readonly string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>(trackingIds.map((id) => [id, []]));
    for (let i = 0; i < trackingIds.length; i += 500) {
      const rows = await this.db
        .selectFrom('rank_reports')
        .select(['tracking_id', 'type'])
        .where('tracking_id', 'in', trackingIds.slice(i, i + 500))
        .execute();
      for (const r of rows) out.get(r.tracking_id)!.push(r.type);
    }
    return out;
  }

  async reportsOf(trackingId: string): Promise<ReportRow[]> {
    return this.db.selectFrom('rank_reports').selectAll().where('tracking_id', '=', trackingId).orderBy('created_at').orderBy('type').execute();
  }

  async createReport(tracking: TrackingRow, report: NewReport, nowSec: number): Promise<ReportRow> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, tracking.account_id);
      await this.checkStorage(trx, tracking.account_id, { reports: 1 }, nowSec);
      return insertReport(trx, tracking.account_id, tracking.id, report, nowSec);
    });
  }

  async updateReport(trackingId: string, reportId: string, report: NewReport): Promise<ReportRow | undefined> {
    const res = await this.db
      .updateTable('rank_reports')
      .set({
        type: report.type,
        emails: JSON.stringify(report.emails),
        name: report.name,
        triggers: JSON.stringify(report.triggers),
        min_change: report.min_change,
      })
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
    min_change: report.min_change,
    created_at: nowSec,
  };
  await db.insertInto('rank_reports').values(row).execute();
  return row;
}

async function assignTags(trx: Kysely<StateDatabase>, trackingId: string, keywordIds: readonly string[], tagIds: readonly string[]): Promise<void> {
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
async function averagePosition(trx: Kysely<StateDatabase>, trackingId: string, day?: string): Promise<number | null> {
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

function annotationOfChange(type: number, keywordsCount: number | null, opts: { nowMs: number; creator: string }): NewAnnotation {
  return { date: utcDay(opts.nowMs), type, text: null, keywords_count: keywordsCount, avg: null, creator: opts.creator };
}

async function insertAnnotation(
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
