/**
 * Where finished exports live (openExportFiles): files in the data directory on the embedded
 * state store, chunks in PostgreSQL under npm run test:scale. The same rules on both: the
 * bytes read back are the bytes the CSV encoder made (the disk version's, byte for byte), an
 * attempt replaces a finished export only once it is whole, a failed attempt leaves nothing of
 * its own. In the scale mode an export written through one process's connection downloads
 * through another process's (another host: another pool, another data directory) with the
 * same answers as the embedded mode's download.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Fastify from 'fastify';
import { FakeClock } from '../../src/lib/clock.js';
import { UrlSigner } from '../../src/lib/signedUrl.js';
import { downloadRoutes } from '../../src/jobs/downloadRoutes.js';
import { diskExportFiles, type CsvRow, type ExportFiles } from '../../src/jobs/exportFiles.js';
import { EXPORT_JOB_KIND, exportDownloadUrl, exportFileName, openExportFiles } from '../../src/jobs/exportJobs.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { openPostgresStateStore, openStateStore, type StateStore } from '../../src/store/database.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';

const COLUMNS = ['source', 'target', 'anchor', 'ls'];

function* links(count: number, anchor = 'anchor'): Generator<CsvRow> {
  for (let i = 0; i < count; i++)
    yield [`https://blog${i}.example/post-${i}`, 'https://target.example/', i % 2 ? `${anchor}, "${i}"` : `${anchor} ${i}`, i % 11];
}

async function readAll(files: ExportFiles, fileName: string): Promise<string | null> {
  const file = await files.open(fileName);
  if (!file) return null;
  const body = await text(file.stream());
  assert.equal(Buffer.byteLength(body), file.size, 'size is the bytes streamed');
  return body;
}

describe('export storage', () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null;
  let store: StateStore;
  let files: ExportFiles;
  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-storage-'));
    database = scaleMode ? await createTestDatabase() : null;
    store = database ? await openPostgresStateStore(database.url, { max: 2 }) : await openStateStore(':memory:');
    files = openExportFiles(store, dataDir);
  });
  afterEach(async () => {
    await store.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads back, byte for byte, what the disk version writes for the same rows (several MiB, so several stored chunks)', async () => {
    const diskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-disk-'));
    try {
      const count = 60_000;
      const progress: number[] = [];
      const written = await files.write({
        fileName: 'job.csv',
        attemptTag: '1-a',
        columns: COLUMNS,
        rows: links(count),
        progressEvery: 20_000,
        onProgress: (n) => progress.push(n),
      });
      const reference = await diskExportFiles(diskDir).write({ fileName: 'job.csv', attemptTag: '1-a', columns: COLUMNS, rows: links(count) });
      assert.deepEqual(written, reference);
      assert.ok(written.bytes > 3 * 1024 * 1024, `${written.bytes} bytes`);
      assert.deepEqual(progress, [20_000, 40_000, 60_000, 60_000]);
      assert.equal(await readAll(files, 'job.csv'), fs.readFileSync(path.join(diskDir, 'job.csv'), 'utf8'));
      assert.deepEqual(await files.tempOwners(), []);
    } finally {
      fs.rmSync(diskDir, { recursive: true, force: true });
    }
  });

  it('a new attempt replaces the export only once whole; a failed one leaves the earlier export and nothing of its own', async () => {
    await files.write({ fileName: 'job.csv', attemptTag: '1-a', columns: COLUMNS, rows: links(10, 'first') });
    const first = await readAll(files, 'job.csv');
    async function* failing(): AsyncGenerator<CsvRow> {
      yield* links(30_000, 'second');
      throw new Error('link index unavailable');
    }
    await assert.rejects(files.write({ fileName: 'job.csv', attemptTag: '2-b', columns: COLUMNS, rows: failing() }), /link index unavailable/);
    assert.equal(await readAll(files, 'job.csv'), first);
    assert.deepEqual(await files.tempOwners(), []);
    await files.write({ fileName: 'job.csv', attemptTag: '3-c', columns: COLUMNS, rows: links(5, 'third') });
    assert.match((await readAll(files, 'job.csv'))!, /third 4/);
    assert.equal(await files.remove('job.csv'), true);
    assert.equal(await files.open('job.csv'), null);
    assert.equal(await files.remove('job.csv'), false);
  });

  it('an attempt whose temporary copy a sweep removed mid-write (another worker took the job for abandoned) fails, leaving the earlier export whole', async () => {
    await files.write({ fileName: 'job.csv', attemptTag: '1-a', columns: COLUMNS, rows: links(10, 'first') });
    const first = await readAll(files, 'job.csv');
    async function* swept(): AsyncGenerator<CsvRow> {
      // Past a stored row's worth of bytes, so the sweep has something of this attempt to remove.
      yield* links(30_000, 'second');
      assert.equal(await files.removeTemps('job.csv'), 1);
      yield* links(30_000, 'second');
    }
    await assert.rejects(files.write({ fileName: 'job.csv', attemptTag: '2-b', columns: COLUMNS, rows: swept() }));
    assert.equal(await readAll(files, 'job.csv'), first);
    assert.deepEqual(await files.tempOwners(), []);
  });

  it('an aborted attempt (lease lost) fails with the abort reason and stores nothing', async () => {
    const controller = new AbortController();
    async function* stalls(): AsyncGenerator<CsvRow> {
      yield* links(100);
      controller.abort(new Error('lease lost'));
      yield* links(100);
    }
    await assert.rejects(files.write({ fileName: 'job.csv', attemptTag: '1-a', columns: COLUMNS, rows: stalls(), signal: controller.signal }), /lease lost/);
    assert.equal(await files.open('job.csv'), null);
    assert.deepEqual(await files.tempOwners(), []);
  });

  it(
    'an export written through one process downloads through another (its own pool and data directory) with the embedded mode’s answers',
    { skip: !scaleMode && 'two processes on one state store need PostgreSQL (npm run test:scale)' },
    async () => {
      const clock = new FakeClock();
      const signer = new UrlSigner('k'.repeat(64), 'http://quarry.test');
      // The worker's host: writes the export and completes the job.
      const queue = openJobQueue(store, clock);
      const job = await queue.enqueue(EXPORT_JOB_KIND, 'a'.repeat(24), { rows: 5_000 });
      const claimed = (await queue.claim('worker-1', [EXPORT_JOB_KIND]))!;
      const written = await files.write({ fileName: exportFileName(job.id), attemptTag: '1-a', columns: COLUMNS, rows: links(5_000) });
      assert.equal(await queue.complete(claimed.id, 'worker-1', written), true);

      // The API's host: another connection pool, another (empty) data directory.
      const apiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-api-'));
      const apiStore = await openPostgresStateStore(database!.url, { max: 2 });
      // The embedded mode's download of the same bytes, for comparison.
      const diskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-disk-'));
      await diskExportFiles(diskDir).write({ fileName: exportFileName(job.id), attemptTag: '1-a', columns: COLUMNS, rows: links(5_000) });
      const api = Fastify();
      const embedded = Fastify();
      try {
        await api.register(downloadRoutes, { queue: openJobQueue(apiStore, clock), signer, files: openExportFiles(apiStore, apiDir), clock });
        await embedded.register(downloadRoutes, { queue: openJobQueue(apiStore, clock), signer, files: diskExportFiles(diskDir), clock });
        const url = exportDownloadUrl((await queue.byId(job.id))!, signer, clock.now())!.replace('http://quarry.test', '');
        for (const method of ['GET', 'HEAD'] as const) {
          const fromPostgres = await api.inject({ method, url });
          const fromDisk = await embedded.inject({ method, url });
          assert.equal(fromPostgres.statusCode, 200);
          const headers = (res: typeof fromDisk) =>
            Object.fromEntries(['content-type', 'content-disposition', 'content-length', 'cache-control'].map((h) => [h, res.headers[h]]));
          assert.deepEqual(headers(fromPostgres), headers(fromDisk), method);
          assert.equal(fromPostgres.body, fromDisk.body, method);
        }
        assert.equal(Number((await api.inject({ method: 'HEAD', url })).headers['content-length']), written.bytes);
        assert.deepEqual(fs.readdirSync(apiDir), [], 'nothing on the API host’s disk');
      } finally {
        await api.close();
        await embedded.close();
        await apiStore.close();
        fs.rmSync(apiDir, { recursive: true, force: true });
        fs.rmSync(diskDir, { recursive: true, force: true });
      }
    },
  );
});
