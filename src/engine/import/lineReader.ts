/**
 * Streams the lines of a text file, plain or gzip (`.txt.gz` rank lists), one at a time:
 * memory stays constant whatever the file size. `bytesRead` (of the file) drives progress.
 */
import readline from 'node:readline';
import { ImportError } from './importError.js';
import { openInputFile } from './inputFile.js';

export interface LineSource {
  lines: AsyncIterable<string>;
  bytesRead(): number;
  size: number;
}

export function openLines(file: string): LineSource {
  const { stream, bytesRead, size } = openInputFile(file);
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
  return { lines: lines(), bytesRead, size };
}
