/**
 * State store migration 0045: the one difficulty of a keyword per market and UTC day
 * (engine/sources/difficultyBook.ts). The first computation of a day is kept and every tool
 * reads it, whichever process computed it: the sandbox's rank index, a SERP lookup, or a
 * provider's SERP with its link metrics. It lives in the state store (PostgreSQL in the scale
 * mode) because a research store is a per-process copy there, replaced at each generation.
 */
import type { Kysely, Migration } from 'kysely';

export const keywordDifficultyMigrations: Record<string, Migration> = {
  '0045_keyword_difficulty': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('keyword_difficulty')
        .addColumn('kw', 'text', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('seo', 'integer', (c) => c.notNull())
        .addColumn('seo_ts', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('keyword_difficulty_pk', ['location_id', 'kw', 'day'])
        .execute();
      await db.schema.createIndex('keyword_difficulty_day').on('keyword_difficulty').column('day').execute();
    },
  },
};
