/**
 * The pages a real-mode backlink export has collected (migration 0085): stored one by one as
 * the worker reads them from the provider, each with the cursor of the page after it, so the
 * next attempt of a job whose worker died continues where the last stored page ends.
 *
 * @example
 * const pages = new ExportPages(state.db);
 * const at = await pages.resumePoint(jobId); // { page: 2, next: { offset: 20, token: null }, rows: 20, total: 23 }
 * await pages.put(jobId, at.page, rows, next, total);
 */
import type { Kysely } from 'kysely';
import type { StateDatabase } from './schema.js';

/** Where an export's collecting stands. */
export interface ResumePoint<C> {
  /** Number of the next page to store (0 when none is). */
  page: number;
  /** Where the next page starts; null once the list was read to its end (or before the first page: see `page`). */
  next: C | null;
  /** Rows stored so far. */
  rows: number;
  /** The provider's count of the whole list, as its last page said. */
  total: number | null;
}

export class ExportPages {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  async resumePoint<C>(jobId: string): Promise<ResumePoint<C>> {
    const last = await this.db
      .selectFrom('export_pages')
      .select(['page', 'next_cursor', 'total'])
      .where('job_id', '=', jobId)
      .orderBy('page', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) return { page: 0, next: null, rows: 0, total: null };
    const sum = await this.db
      .selectFrom('export_pages')
      .select((eb) => eb.fn.sum<number>('row_count').as('rows'))
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();
    return {
      page: Number(last.page) + 1,
      next: last.next_cursor === null ? null : (JSON.parse(last.next_cursor) as C),
      rows: Number(sum.rows ?? 0),
      total: last.total === null ? null : Number(last.total),
    };
  }

  /** Stores page `page` (once: a page already stored by an attempt that lost its lease is kept as it was). */
  async put<C>(jobId: string, page: number, rows: readonly unknown[], next: C | null, total: number | null): Promise<void> {
    await this.db
      .insertInto('export_pages')
      .values({ job_id: jobId, page, rows: JSON.stringify(rows), row_count: rows.length, next_cursor: next === null ? null : JSON.stringify(next), total })
      .onConflict((oc) => oc.columns(['job_id', 'page']).doNothing())
      .execute();
  }

  /** The stored rows, page after page (one page in memory at a time). */
  async *rows<R>(jobId: string): AsyncGenerator<R> {
    for (let page = 0; ; page++) {
      const found = await this.db.selectFrom('export_pages').select('rows').where('job_id', '=', jobId).where('page', '=', page).executeTakeFirst();
      if (!found) return;
      yield* JSON.parse(found.rows) as R[];
    }
  }

  async remove(jobId: string): Promise<void> {
    await this.db.deleteFrom('export_pages').where('job_id', '=', jobId).execute();
  }

  /** Ids of the jobs that have stored pages. */
  async owners(): Promise<string[]> {
    const rows = await this.db.selectFrom('export_pages').select('job_id').distinct().execute();
    return rows.map((r) => r.job_id);
  }
}
