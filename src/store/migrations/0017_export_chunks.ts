/**
 * State store migration 0017: export files as chunks in the state store (issue 13). In the
 * scale mode a backlink export's CSV is written by a worker and downloaded through any API
 * process, possibly on other hosts: the bytes live in PostgreSQL, in rows of up to 1 MiB
 * (src/jobs/postgresExportFiles.ts). `attempt` is the writing attempt's tag while the export
 * is being written, and '' once it is finished (one transaction swaps them). The embedded
 * mode keeps its exports as files in the data directory; the table exists in both schemas
 * so that they stay alike, and stays empty on SQLite.
 */
import type { Kysely, Migration } from 'kysely';

export const exportChunkMigrations: Record<string, Migration> = {
  '0017_export_chunks': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('export_chunks')
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('attempt', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('export_chunks_pk', ['file_name', 'attempt', 'seq'])
        .execute();
    },
  },
};
