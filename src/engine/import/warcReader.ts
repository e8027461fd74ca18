/**
 * Streaming WARC reader (ISO 28500, WARC/1.0 and 1.1) over plain or gzip files. Common
 * Crawl writes WARC, WAT and WET files as one gzip member per record; Node's gunzip reads
 * concatenated members as one stream. A record is a version line, header lines, an empty
 * line, `Content-Length` bytes of block and two CRLFs. Memory stays bounded by the largest
 * record, whatever the file size; `bytesRead` (of the file, compressed) drives progress.
 *
 * Example: `for await (const r of readWarc('x.warc.wat.gz')) if (r.type === 'metadata') …`
 */
import type { Readable } from 'node:stream';
import { ImportError } from './importError.js';
import { openInputFile } from './inputFile.js';

export interface WarcRecord {
  /** `WARC-Type` (warcinfo, response, request, metadata, conversion, …). */
  type: string;
  /** Header fields, names lower-cased. */
  headers: Map<string, string>;
  block: Buffer;
}

export class WarcFormatError extends ImportError {}

/** Largest record block accepted (a WAT record of a huge page is a few MB). */
export const MAX_WARC_BLOCK = 64 * 1024 * 1024;
const MAX_HEADER = 64 * 1024;

export interface WarcSource {
  records: AsyncGenerator<WarcRecord>;
  /** Bytes of the file read so far. */
  bytesRead(): number;
  size: number;
}

export function openWarc(file: string): WarcSource {
  const { stream, bytesRead, size } = openInputFile(file);
  return { records: parseRecords(stream), bytesRead, size };
}

async function* parseRecords(stream: Readable): AsyncGenerator<WarcRecord> {
  let buffer: Buffer = Buffer.alloc(0);
  // Chunks read but not yet joined to `buffer`: a large block is joined once, not per chunk.
  const chunks: Buffer[] = [];
  let chunkBytes = 0;
  const join = (): void => {
    if (chunks.length === 0) return;
    buffer = Buffer.concat([buffer, ...chunks]);
    chunks.length = 0;
    chunkBytes = 0;
  };
  // Wanted: a header block (state 'header') or `need` bytes of block plus its CRLFCRLF.
  let pending: { type: string; headers: Map<string, string>; length: number } | null = null;
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    let next: IteratorResult<Buffer>;
    try {
      next = await iterator.next();
    } catch (error) {
      // zlib's "unexpected end of file", "incorrect header check", …: a damaged gzip file.
      throw new WarcFormatError(`cannot read the file: ${(error as Error).message}`);
    }
    if (next.done) {
      ended = true;
      return false;
    }
    chunks.push(next.value);
    chunkBytes += next.value.length;
    return true;
  };
  try {
    for (;;) {
      if (!pending) {
        // Skip blank lines between records (the two CRLFs, or stray ones).
        let start = 0;
        while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
        if (start > 0) buffer = buffer.subarray(start);
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffer.length > MAX_HEADER) throw new WarcFormatError('WARC header longer than 64 KiB');
          if (!(await more())) {
            if (buffer.length === 0) return;
            throw new WarcFormatError('truncated WARC record header');
          }
          join();
          continue;
        }
        const lines = buffer.subarray(0, end).toString('utf8').split('\r\n');
        buffer = buffer.subarray(end + 4);
        if (!/^WARC\/1\.[01]$/.test(lines[0] ?? '')) throw new WarcFormatError(`not a WARC record: ${JSON.stringify((lines[0] ?? '').slice(0, 40))}`);
        const headers = new Map<string, string>();
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':');
          if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
        }
        const lengthText = headers.get('content-length') ?? '';
        if (!/^\d+$/.test(lengthText)) throw new WarcFormatError('WARC record without a valid Content-Length');
        const length = Number(lengthText);
        if (length > MAX_WARC_BLOCK) throw new WarcFormatError(`WARC record block of ${length} bytes exceeds ${MAX_WARC_BLOCK}`);
        pending = { type: headers.get('warc-type') ?? '', headers, length };
      }
      while (buffer.length + chunkBytes < pending.length) {
        if (!(await more())) throw new WarcFormatError('truncated WARC record block');
      }
      join();
      // Copied out so that the (possibly large) read buffer is not kept alive by the record.
      const block = Buffer.from(buffer.subarray(0, pending.length));
      buffer = buffer.subarray(pending.length);
      const record = { type: pending.type, headers: pending.headers, block };
      pending = null;
      yield record;
    }
  } finally {
    stream.destroy();
  }
}
