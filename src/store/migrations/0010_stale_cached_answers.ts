/**
 * State store migration 0010: the typed contract (issue 11) changed the shape of most answers,
 * so answers cached by an earlier release must not be served again. They are not deleted: a
 * client who repeats such a request within its 24 hours is still owed a free answer, so the
 * entry is marked stale and the access policy answers the repeat anew without a charge. A
 * later release that changes answer shapes marks the cache stale the same way.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const staleCachedAnswerMigrations: Record<string, Migration> = {
  '0010_stale_cached_answers': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('request_cache')
        .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE request_cache SET stale = 1`.execute(db);
    },
  },
};
