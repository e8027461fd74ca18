import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CHUNK_BYTES, removeTempFiles, tempFileName, tempFileOwners, writeCsvExport, type CsvRow } from '../../src/jobs/exportFiles.js';
import type { CsvRecordSource } from '../../src/lib/csv.js';

const COLUMNS = ['source', 'target', 'anchor', 'no_follow', 'ls'];

function* links(count: number): Generator<CsvRow> {
  for (let i = 0; i < count; i++) {
    yield {
      source: `https://blog${i}.example/post`,
      target: 'https://target.example/',
      anchor: i % 2 ? 'best "coffee", ever' : 'line\nbreak',
      no_follow: i % 3 === 0,
      ls: i % 11,
    };
  }
}

/** A source that writes `count` records `row <i>,<i % 7>` itself, and counts its closes. */
function recordSource(count: number): CsvRecordSource & { written: number; closes: number } {
  const record = (i: number) => `row ${i},${i % 7}\n`;
  return {
    written: 0,
    closes: 0,
    nextRecordBytes() {
      return this.written < count ? record(this.written).length : 0;
    },
    writeRecords(into, at, maxRows) {
      for (let n = 0; n < maxRows && this.written < count && at + this.nextRecordBytes() <= into.length; n++) at += into.write(record(this.written++), at);
      return at;
    },
    close() {
      this.closes++;
    },
  };
}

async function* slowLinks(count: number): AsyncGenerator<CsvRow> {
  for (const row of links(count)) {
    await new Promise((r) => setImmediate(r));
    yield row;
  }
}

describe('export files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-exports-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a complete CSV with a header that parses back, reporting progress as rows are written', async () => {
    const progress: number[] = [];
    const result = await writeCsvExport({
      dir,
      fileName: 'job.csv',
      attemptTag: '1',
      columns: COLUMNS,
      rows: slowLinks(2_500),
      progressEvery: 1_000,
      onProgress: (n) => progress.push(n),
    });
    assert.equal(result.rows, 2_500);
    assert.equal(result.path, path.join(dir, 'job.csv'));
    assert.deepEqual(progress, [1_000, 2_000, 2_500]);
    assert.deepEqual(fs.readdirSync(dir), ['job.csv']);
    const text = fs.readFileSync(result.path, 'utf8');
    assert.equal(result.bytes, Buffer.byteLength(text));
    const records = parse(text, { columns: true }) as Record<string, string>[];
    assert.equal(records.length, 2_500);
    assert.deepEqual(Object.keys(records[0]), COLUMNS);
    assert.equal(records[0].anchor, 'line\nbreak');
    assert.equal(records[1].anchor, 'best "coffee", ever');
    assert.equal(records[0].no_follow, 'true');
    assert.equal(records[1].no_follow, 'false');
    assert.equal(records[10].ls, '10');
  });

  it('writes multi-byte text across write chunks, and a record larger than a chunk, byte for byte as csv-stringify did', async () => {
    // Rows of about 100 bytes with 1-, 2-, 3- and 4-byte characters: records end at every
    // offset of the write chunks, and the two reused buffers take turns many times; one
    // record alone is larger than a chunk.
    const rows: unknown[][] = [];
    for (let i = 0; i < 20_000; i++)
      rows.push([`https://blog${i}.example/é-${i}`, 'https://target.example/語', i % 7 ? `anchor "${i}", 😀` : '', i % 2 === 0, i]);
    rows.splice(2_500, 0, ['https://big.example/', 'https://target.example/', `huge, "quoted"\n${'ü😀'.repeat(CHUNK_BYTES / 5)}`, true, 1]);
    const result = await writeCsvExport({ dir, fileName: 'utf8.csv', attemptTag: '1', columns: COLUMNS, rows });
    const expected = stringify(rows, { header: true, columns: COLUMNS, cast: { boolean: (v) => (v ? 'true' : 'false') } });
    assert.equal(fs.readFileSync(result.path, 'utf8'), expected);
    assert.equal(result.bytes, Buffer.byteLength(expected));
    assert.equal(result.rows, rows.length);
  });

  it('accepts a synchronous source and array rows', async () => {
    const rows = [
      ['a', 'b', 'c', true, 1],
      ['d', 'e', 'f', false, 2],
    ];
    const result = await writeCsvExport({ dir, fileName: 'arr.csv', attemptTag: '1', columns: COLUMNS, rows });
    assert.equal(fs.readFileSync(result.path, 'utf8'), 'source,target,anchor,no_follow,ls\na,b,c,true,1\nd,e,f,false,2\n');
  });

  it('writes rows given already encoded as they are, among array rows', async () => {
    const rows = [['a', 'b', 'c', true, 1], '"d,1",e,f,false,2\n'];
    const result = await writeCsvExport({ dir, fileName: 'encoded.csv', attemptTag: '1', columns: COLUMNS, rows });
    assert.equal(fs.readFileSync(result.path, 'utf8'), 'source,target,anchor,no_follow,ls\na,b,c,true,1\n"d,1",e,f,false,2\n');
    assert.equal(result.rows, 2);
  });

  it('writes the records of a source that encodes them itself, with progress at the same counts, and closes it once', async () => {
    const source = recordSource(250_000);
    const progress: number[] = [];
    const result = await writeCsvExport({
      dir,
      fileName: 'self.csv',
      attemptTag: '1',
      columns: ['name', 'n'],
      rows: source,
      progressEvery: 100_000,
      onProgress: (n) => progress.push(n),
    });
    assert.deepEqual(progress, [100_000, 200_000, 250_000]);
    assert.equal(result.rows, 250_000);
    assert.equal(source.closes, 1);
    const text = fs.readFileSync(result.path, 'utf8');
    assert.equal(text, `name,n\n${Array.from({ length: 250_000 }, (_, i) => `row ${i},${i % 7}\n`).join('')}`);
    assert.equal(result.bytes, Buffer.byteLength(text));
  });

  it('closes a self-encoding source when aborted midway, leaving no file', async () => {
    const controller = new AbortController();
    const source = recordSource(2_000_000);
    await assert.rejects(
      writeCsvExport({
        dir,
        fileName: 'self.csv',
        attemptTag: '1',
        columns: ['name', 'n'],
        rows: source,
        signal: controller.signal,
        progressEvery: 100_000,
        onProgress: (n) => n >= 300_000 && controller.abort(new Error('stop')),
      }),
      /stop/,
    );
    assert.equal(source.closes, 1);
    assert.ok(source.written < 2_000_000);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('leaves neither a final nor a temporary file when aborted midway', async () => {
    const controller = new AbortController();
    await assert.rejects(
      writeCsvExport({
        dir,
        fileName: 'job.csv',
        attemptTag: '1',
        columns: COLUMNS,
        rows: slowLinks(100_000),
        signal: controller.signal,
        progressEvery: 500,
        onProgress: (n) => n >= 1_000 && controller.abort(new Error('stop')),
      }),
      /stop/,
    );
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('leaves no final file when the source fails midway', async () => {
    async function* broken(): AsyncGenerator<CsvRow> {
      yield* slowLinks(100);
      throw new Error('link index unavailable');
    }
    await assert.rejects(writeCsvExport({ dir, fileName: 'job.csv', attemptTag: '1', columns: COLUMNS, rows: broken() }), /link index unavailable/);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('a re-run removes what a crashed attempt left and ends with exactly one file', async () => {
    // What kill -9 leaves: a half-written temporary file of attempt 1; also another job's.
    fs.writeFileSync(path.join(dir, tempFileName('job.csv', '1-aaaa')), 'source,target\nhalf');
    fs.writeFileSync(path.join(dir, tempFileName('other.csv', '1-bbbb')), 'x');
    assert.deepEqual((await tempFileOwners(dir)).sort(), ['job', 'other']);
    await writeCsvExport({ dir, fileName: 'job.csv', attemptTag: '2-cccc', columns: COLUMNS, rows: links(10) });
    assert.deepEqual(fs.readdirSync(dir).sort(), [tempFileName('other.csv', '1-bbbb'), 'job.csv'].sort());
    // A re-run after a crash between rename and completion replaces the file, still one.
    await writeCsvExport({ dir, fileName: 'job.csv', attemptTag: '3-dddd', columns: COLUMNS, rows: links(20) });
    assert.equal((parse(fs.readFileSync(path.join(dir, 'job.csv'))) as unknown[]).length, 21);
    assert.equal(await removeTempFiles(dir, 'other.csv'), 1);
    assert.deepEqual(fs.readdirSync(dir), ['job.csv']);
  });

  it('refuses file names that could leave the exports directory', async () => {
    for (const fileName of ['../x.csv', 'a/b.csv', '.hidden.csv']) {
      await assert.rejects(writeCsvExport({ dir, fileName, attemptTag: '1', columns: COLUMNS, rows: [] }), /invalid export file name/);
    }
  });
});

describe('export files, aborted while the source is pending', () => {
  it('rejects with the abort reason and raises no unhandled rejection', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-exports-'));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const controller = new AbortController();
      async function* stalls(): AsyncGenerator<CsvRow> {
        yield ['a', 'b', 'c', false, 1];
        // The abort arrives while the writer waits here for the next row.
        controller.abort(new Error('worker stopping'));
        await new Promise((r) => setTimeout(r, 20));
        yield ['d', 'e', 'f', false, 2];
      }
      await assert.rejects(
        writeCsvExport({ dir, fileName: 'job.csv', attemptTag: '1', columns: COLUMNS, rows: stalls(), signal: controller.signal }),
        /worker stopping/,
      );
      await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(unhandled, []);
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
