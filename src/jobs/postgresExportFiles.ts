/**
 * The scale mode's export files: chunks in the PostgreSQL state store (table `export_chunks`,
 * migration 0017), so that a CSV a worker wrote on one host downloads through any API process
 * on any other, with nothing to share but the database (docs/decisions.md, "Export files
 * across hosts").
 *
 * Written as the disk version writes a file: the CSV's chunks (exportFiles.ts's encoder, with
 * its backpressure) are gathered into rows of up to `ROW_BYTES` and inserted one at a time
 * under the attempt's tag, so memory stays flat whatever the export's size; when the last is
 * in, one transaction drops any earlier finished copy and renames the attempt's rows to the
 * finished tag ''. A reader sees the whole file or nothing; a crashed attempt leaves rows
 * under its own tag, which the next attempt or the sweep removes.
 * Read back a row at a time (one query per row, by primary key), so a download holds neither
 * the file in memory nor a connection between rows.
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../store/schema.js';
import { checkExportFileName, csvChunks, type ExportFile, type ExportFiles } from './exportFiles.js';

/** Bytes per stored row: few round trips per export, bounded memory on both ends. */
const ROW_BYTES = 1024 * 1024;
/** The `attempt` of a finished file's rows. */
const FINISHED = '';

export function postgresExportFiles(db: Kysely<StateDatabase>): ExportFiles {
  const removeTemps = async (fileName: string): Promise<number> => {
    const rows = await db.deleteFrom('export_chunks').where('file_name', '=', fileName).where('attempt', '<>', FINISHED).returning('attempt').execute();
    // Copies, as the disk version counts its temporary files: one per attempt.
    return new Set(rows.map((r) => r.attempt)).size;
  };

  return {
    async write(options) {
      const { fileName, attemptTag, signal } = options;
      checkExportFileName(fileName);
      if (attemptTag === FINISHED) throw new Error('an attempt tag must not be empty');
      await removeTemps(fileName);
      const counted = { rows: 0 };
      let seq = 0;
      let bytes = 0;
      // The chunks are views of the encoder's one buffer, valid until the next is asked
      // for: each is copied into the row being gathered.
      const row = Buffer.allocUnsafe(ROW_BYTES);
      let rowBytes = 0;
      const insert = (data: Buffer) => db.insertInto('export_chunks').values({ file_name: fileName, attempt: attemptTag, seq: seq++, data }).execute();
      const flush = async () => {
        if (rowBytes === 0) return;
        await insert(row.subarray(0, rowBytes));
        rowBytes = 0;
      };
      try {
        // The encoder makes its next chunk only when asked: while a row is being inserted, no
        // further rows are read from the source.
        for await (const chunk of csvChunks(options, counted)) {
          signal?.throwIfAborted();
          bytes += chunk.length;
          if (rowBytes + chunk.length > ROW_BYTES) await flush();
          // A chunk larger than a row (one huge record) is a row of its own.
          if (chunk.length > ROW_BYTES) await insert(chunk);
          else rowBytes += chunk.copy(row, rowBytes);
        }
        await flush();
        signal?.throwIfAborted();
        await db.transaction().execute(async (trx) => {
          await trx.deleteFrom('export_chunks').where('file_name', '=', fileName).where('attempt', '=', FINISHED).execute();
          const renamed = await trx
            .updateTable('export_chunks')
            .set({ attempt: FINISHED })
            .where('file_name', '=', fileName)
            .where('attempt', '=', attemptTag)
            .executeTakeFirst();
          // A sweep on another worker that took this job for abandoned (it was queued again
          // between two attempts) may have removed rows of this attempt: then the export is
          // incomplete, and the attempt fails (rolling back) rather than finish with a hole.
          if (Number(renamed.numUpdatedRows) !== seq) throw new Error(`export ${fileName}: rows of this attempt were removed while it was written`);
        });
      } catch (err) {
        await db
          .deleteFrom('export_chunks')
          .where('file_name', '=', fileName)
          .where('attempt', '=', attemptTag)
          .execute()
          .catch(() => undefined);
        throw signal?.aborted ? signal.reason : err;
      }
      options.onProgress?.(counted.rows);
      return { fileName, rows: counted.rows, bytes };
    },

    async open(fileName): Promise<ExportFile | null> {
      checkExportFileName(fileName);
      const summary = await db
        .selectFrom('export_chunks')
        .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.max('seq').as('last'), eb.fn.sum<number>(eb.fn('octet_length', ['data'])).as('size')])
        .where('file_name', '=', fileName)
        .where('attempt', '=', FINISHED)
        .executeTakeFirstOrThrow();
      if (Number(summary.rows) === 0) return null;
      const size = Number(summary.size);
      const last = Number(summary.last);
      async function* chunks(): AsyncGenerator<Buffer> {
        let sent = 0;
        for (let seq = 0; seq <= last; seq++) {
          const row = await db
            .selectFrom('export_chunks')
            .select('data')
            .where('file_name', '=', fileName)
            .where('attempt', '=', FINISHED)
            .where('seq', '=', seq)
            .executeTakeFirst();
          // Replaced or swept while it was being sent: a download cut short says so rather
          // than ending as if complete.
          if (!row) throw new Error(`export ${fileName} was removed while it was being downloaded`);
          sent += row.data.length;
          yield row.data;
        }
        if (sent !== size) throw new Error(`export ${fileName} changed while it was being downloaded`);
      }
      return { size, stream: () => Readable.from(chunks(), { objectMode: false }), close: async () => undefined };
    },

    async remove(fileName) {
      const res = await db.deleteFrom('export_chunks').where('file_name', '=', fileName).where('attempt', '=', FINISHED).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },

    removeTemps,

    async tempOwners() {
      const rows = await db.selectFrom('export_chunks').select('file_name').distinct().where('attempt', '<>', FINISHED).execute();
      return rows.filter((r) => r.file_name.endsWith('.csv')).map((r) => r.file_name.slice(0, -'.csv'.length));
    },

    async owners() {
      const rows = await db.selectFrom('export_chunks').select('file_name').distinct().where('attempt', '=', FINISHED).execute();
      return rows.filter((r) => r.file_name.endsWith('.csv')).map((r) => r.file_name.slice(0, -'.csv'.length));
    },
  };
}
