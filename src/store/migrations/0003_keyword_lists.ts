/** State store migration 0003: saved keyword lists. */
import type { Kysely, Migration } from 'kysely';

export const keywordListMigrations: Record<string, Migration> = {
  '0003_keyword_lists': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('keyword_lists')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('creator', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('keyword_lists_account').on('keyword_lists').columns(['account_id', 'created_at']).execute();
      await db.schema
        .createTable('keyword_list_items')
        .addColumn('list_id', 'text', (c) => c.notNull().references('keyword_lists.id').onDelete('cascade'))
        .addColumn('keyword_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('keyword_list_items_pk', ['list_id', 'keyword_id'])
        .execute();
      await db.schema.createIndex('keyword_list_items_order').on('keyword_list_items').columns(['list_id', 'seq']).execute();
    },
  },
};
