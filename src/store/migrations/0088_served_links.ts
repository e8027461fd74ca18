/**
 * State store migration 0088: the backlinks a link-index provider served to an account
 * (store/servedLinks.ts), so that in real mode the `_id` of a link from GET /link-tool/links
 * can be favourited, listed and removed (link-tool rule 2) although no sandbox index holds it;
 * and a favourite's copy of the link's data as served, so that a list keeps the full data of
 * its links after the served row is pruned. Sandbox favourites keep `body` null: their links
 * are read from the sandbox index, as before.
 */
import type { Kysely, Migration } from 'kysely';

export const servedLinkMigrations: Record<string, Migration> = {
  '0088_served_links': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('served_links')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('link_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('served_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('served_links_pk', ['account_id', 'link_id'])
        .execute();
      await db.schema.createIndex('served_links_served').on('served_links').column('served_ms').execute();
      await db.schema.alterTable('favourite_links').addColumn('body', 'text').execute();
    },
  },
};
