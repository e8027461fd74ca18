/**
 * State store migration 0085: the pages a real-mode backlink export has collected from the
 * link-index provider (tools/link/providerExport.ts). Each page is stored with the cursor of
 * the page after it, in the transaction that records it, so a worker that dies mid-export
 * leaves a job whose next attempt continues from the last stored page: no page is bought
 * twice, no row is written twice or lost. Pages are dropped once the CSV holds them.
 */
import type { Kysely, Migration } from 'kysely';

export const exportPageMigrations: Record<string, Migration> = {
  '0085_export_pages': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('export_pages')
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('page', 'integer', (c) => c.notNull())
        .addColumn('rows', 'text', (c) => c.notNull())
        .addColumn('row_count', 'integer', (c) => c.notNull())
        .addColumn('next_cursor', 'text')
        .addColumn('total', 'integer')
        .addPrimaryKeyConstraint('export_pages_pk', ['job_id', 'page'])
        .execute();
    },
  },
};
