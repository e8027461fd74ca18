/**
 * Streams the lines of a text file, plain or gzip (`.txt.gz` rank lists), one at a time:
 * memory stays constant whatever the file size. `bytesRead` (of the file) drives progress.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { ImportError } from './importError.js';

export interface LineSource {
  lines: AsyncIterable<string>;
  bytesRead(): number;
  size: number;
}

export function openLines(file: string): LineSource {
  const size = fs.statSync(file).size;
  const magic = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, magic, 0, 2, 0);
  } finally {
    fs.closeSync(fd);
  }
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const stream: Readable = magic[0] === 0x1f && magic[1] === 0x8b ? input.pipe(zlib.createGunzip({ chunkSize: 1 << 18 })) : input;
  input.on('error', (error) => stream.destroy(error));
  const reader = readline.createInterface({ input: stream, crlfDelay: Infinity });
  async function* lines(): AsyncGenerator<string> {
    try {
      for await (const line of reader) yield line;
    } catch (error) {
      throw new ImportError(`cannot read the file: ${(error as Error).message}`);
    } finally {
      reader.close();
      stream.destroy();
    }
  }
  return { lines: lines(), bytesRead: () => input.bytesRead, size };
}
