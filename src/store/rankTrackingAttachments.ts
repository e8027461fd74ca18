/**
 * What an account attaches to a tracking: tags of its keywords, annotations (notes and
 * recorded changes) and email reports.
 */
import { sql } from 'kysely';
import { newId } from '../lib/ids.js';
import { lockAccount } from './accountLock.js';
import { RankStorage } from './rankStorage.js';
import {
  ANNOTATION_TYPES,
  ROWS_PER_INSERT,
  utcDay,
  type AnnotationRow,
  type NewReport,
  type ReportRow,
  type TagRow,
  type TrackingRow,
} from './rankTrackingRecords.js';
import { assignTags, averagePosition, insertAnnotation, insertReport } from './rankTrackingWrites.js';

export class RankAttachmentsStore extends RankStorage {
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
