/** State store migration 0004: favourite-link lists of the link tool. */
import type { Kysely, Migration } from 'kysely';

export const favouriteMigrations: Record<string, Migration> = {
  '0004_link_favourites': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('favourite_lists')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .addUniqueConstraint('favourite_lists_account_domain', ['account_id', 'domain'])
        .execute();
      await db.schema
        .createTable('favourite_links')
        .addColumn('list_id', 'text', (c) => c.notNull().references('favourite_lists.id').onDelete('cascade'))
        .addColumn('link_id', 'text', (c) => c.notNull())
        .addColumn('added_at', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('favourite_links_pk', ['list_id', 'link_id'])
        .execute();
    },
  },
};
