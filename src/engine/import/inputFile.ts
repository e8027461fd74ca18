/**
 * Opens an import file as a byte stream, gunzipped when it starts with the gzip magic
 * bytes (whatever its name), for the streaming readers (lineReader.ts, warcReader.ts,
 * the Search Console importer). Node's gunzip reads concatenated gzip members (Common
 * Crawl's one member per record) as one stream. `bytesRead` counts bytes of the file
 * itself (compressed), which is what progress against `size` needs.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';

export interface InputFile {
  stream: Readable;
  /** Bytes of the file read so far. */
  bytesRead(): number;
  size: number;
  gzipped: boolean;
}

/** The first `length` bytes of a file, zeros past its end: enough to tell a format by its magic bytes. */
export function fileHead(file: string, length: number): Buffer {
  const head = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return head;
}

/** True when the file starts with the gzip magic bytes. */
export function isGzipFile(file: string): boolean {
  const magic = fileHead(file, 2);
  return magic[0] === 0x1f && magic[1] === 0x8b;
}

export function openInputFile(file: string): InputFile {
  const size = fs.statSync(file).size;
  const gzipped = isGzipFile(file);
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const stream: Readable = gzipped ? input.pipe(zlib.createGunzip({ chunkSize: 1 << 18 })) : input;
  // pipe() does not forward errors: a read error of the file ends the gunzip stream too.
  if (gzipped) input.on('error', (error) => stream.destroy(error));
  return { stream, bytesRead: () => input.bytesRead, size, gzipped };
}
