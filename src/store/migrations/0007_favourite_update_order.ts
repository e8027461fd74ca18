/**
 * State store migration 0007: favourite lists get `update_seq`, the order of their updates
 * within an account. `updated_at` is in whole seconds and ids are random, so two lists
 * updated in the same second had no order of their own; lists listed newest update first
 * break that tie on `update_seq`. Existing lists start from their insertion order (rowid),
 * the closest record there is of the order they were last touched in.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const favouriteUpdateOrderMigrations: Record<string, Migration> = {
  '0007_favourite_update_order': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('favourite_lists')
        .addColumn('update_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE favourite_lists SET update_seq = rowid`.execute(db);
    },
  },
};
