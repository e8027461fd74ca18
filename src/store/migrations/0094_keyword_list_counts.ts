/**
 * State store migration 0094: each keyword list keeps the number of keyword ids it holds
 * (`item_count`, kept by store/keywordLists.ts in the transaction that changes its ids), so
 * that the account's stored-id quota (1,000,000) is checked by summing at most 10,000 lists'
 * counts instead of counting up to 1,000,000 item rows. That count ran on every list creation
 * and addition: 100–450 ms of the one state-store connection each at a full account, with the
 * event loop held (issue 28, bench:fairness phase 1). Existing lists get their count here.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const keywordListCountMigrations: Record<string, Migration> = {
  '0094_keyword_list_counts': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('keyword_lists')
        .addColumn('item_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE keyword_lists SET item_count = (SELECT COUNT(*) FROM keyword_list_items i WHERE i.list_id = keyword_lists.id)`.execute(db);
    },
  },
};
