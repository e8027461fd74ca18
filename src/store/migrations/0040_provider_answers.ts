/**
 * State store migration 0040: the link-index and authority providers' answers (Majestic,
 * Moz, DataForSEO Backlinks), each kept with when it was bought, so a datum is bought once
 * for everyone within its freshness (engine/sources/providerAnswers.ts). `claimed_ms` and
 * `claim` are the lease of the process buying an answer right now: another process asking
 * for the same datum waits for it instead of buying it again. A row without `body` is a
 * claim whose purchase has not answered yet.
 */
import type { Kysely, Migration } from 'kysely';

export const providerAnswerMigrations: Record<string, Migration> = {
  '0040_provider_answers': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('provider_answers')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('fetched_ms', 'integer', (c) => c.notNull())
        .addColumn('claimed_ms', 'integer', (c) => c.notNull())
        .addColumn('claim', 'text')
        .addPrimaryKeyConstraint('provider_answers_pk', ['provider', 'kind', 'key'])
        .execute();
      await db.schema.createIndex('provider_answers_fetched').on('provider_answers').column('fetched_ms').execute();
    },
  },
};
