/**
 * State store migration 0016: indexes the rank tool's storage quota counts by (fair use,
 * issue 12). Each write that adds annotations or reports counts the account's, inside its
 * transaction; without an index by account that count would scan every account's rows. The
 * partial index finds the deleted trackings due for their purge.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const rankStorageQuotaMigrations: Record<string, Migration> = {
  '0016_rank_storage_quota': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('rank_annotations_account').on('rank_annotations').columns(['account_id']).execute();
      await db.schema.createIndex('rank_reports_account').on('rank_reports').columns(['account_id']).execute();
      await db.schema.createIndex('rank_trackings_deleted').on('rank_trackings').columns(['deleted_at']).where(sql.ref('is_deleted'), '=', 1).execute();
    },
  },
};
