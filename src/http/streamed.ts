/**
 * Streamed answers for bulk reads (list detail, keyword export, all lists): the body is
 * written a batch at a time, each batch in its own turn of the event loop, so a
 * 10,000-keyword answer neither sits whole in memory nor holds up the lookups of other
 * accounts while it is built. The JSON is the same document the unstreamed answer was.
 */
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { safeFilename } from './csv.js';

/**
 * Items per batch: presenting a keyword builds its search-volume history (about 0.1 ms), so
 * 100 keywords hold the event loop about 10 ms; 250 held it 25–70 ms on the small world.
 */
export const STREAM_BATCH = 100;

/** `items` in slices of `size`, yielding the event loop before every slice but the first. */
export async function* slices<T>(items: readonly T[], size = STREAM_BATCH): AsyncGenerator<T[]> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await nextTurn();
    yield items.slice(i, i + size);
  }
}

/** The items of `source`, yielding the event loop before every item but the first. */
export async function* turns<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  let first = true;
  for await (const item of source) {
    if (!first) await nextTurn();
    first = false;
    yield item;
  }
}

/** A JSON array written from batches of already-presented values. */
export async function* jsonArray(batches: AsyncIterable<unknown[]>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const text = batch.map((v) => JSON.stringify(v)).join(',');
    yield first ? text : `,${text}`;
    first = false;
  }
  yield ']';
}

/** Sends streamed JSON text (the schema serializer does not see streams: present every field). */
export function sendJsonStream(reply: FastifyReply, chunks: AsyncIterable<string>): FastifyReply {
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(Readable.from(chunks));
}

/** Sends a CSV attachment: the header line, then the rows a batch at a time. */
export function sendCsvStream(reply: FastifyReply, filename: string, header: readonly string[], rows: AsyncIterable<(string | number)[][]>): FastifyReply {
  async function* text(): AsyncGenerator<string> {
    yield stringify([header as string[]]);
    for await (const batch of rows) if (batch.length > 0) yield stringify(batch);
  }
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${safeFilename(filename)}"`)
    .send(Readable.from(text()));
}
