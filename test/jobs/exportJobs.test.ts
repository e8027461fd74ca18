import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { parse } from 'csv-parse/sync';
import { DAY, FakeClock, SECOND } from '../../src/lib/clock.js';
import { UrlSigner } from '../../src/lib/signedUrl.js';
import { downloadRoutes } from '../../src/jobs/downloadRoutes.js';
import { tempFileName, type CsvRow, type ExportFiles } from '../../src/jobs/exportFiles.js';
import {
  EXPORT_JOB_KIND,
  EXPORT_RETENTION_MS,
  exportDownloadUrl,
  exportFileName,
  exportJobStatus,
  exportJobHandler,
  ExportState,
  exportState,
  openExportFiles,
  sweepExports,
} from '../../src/jobs/exportJobs.js';
import { type Job, JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { PermanentJobError, Worker } from '../../src/jobs/worker.js';
import type { StateStore } from '../../src/store/database.js';
import { testStateStore } from '../support/postgres.js';

const ACCOUNT = 'd'.repeat(24);
const COLUMNS = ['source', 'target', 'anchor'];

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('backlink export jobs', () => {
  let store: StateStore;
  let clock: FakeClock;
  let queue: JobQueue;
  let dir: string;
  let files: ExportFiles;
  let worker: Worker;
  let app: FastifyInstance;
  let refunds: Job[];
  let collectGate: ReturnType<typeof deferred<void>>;
  let rowGate: ReturnType<typeof deferred<void>>;
  let failWith: Error | null;
  const signer = new UrlSigner('k'.repeat(64), 'http://quarry.test');

  async function* rows(count: number): AsyncGenerator<CsvRow> {
    for (let i = 0; i < count; i++) {
      if (i === 50) await rowGate.promise;
      if (failWith && i === 60) throw failWith;
      yield [`https://s${i}.example/`, 'https://target.example/', `anchor ${i}`];
    }
  }

  beforeEach(async () => {
    // On PostgreSQL under npm run test:scale, where the exports are stored there too.
    store = await testStateStore();
    clock = new FakeClock();
    queue = openJobQueue(store, clock, { leaseMs: 30 * SECOND, retryDelayMs: () => SECOND });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-jobs-'));
    files = openExportFiles(store, dir);
    refunds = [];
    collectGate = deferred();
    rowGate = deferred();
    failWith = null;
    worker = new Worker(queue, { pollIntervalMs: 10 }).register(
      EXPORT_JOB_KIND,
      exportJobHandler<{ limit: number; cost: number }>({
        files,
        columns: COLUMNS,
        progressEvery: 10,
        async collect(payload) {
          await collectGate.promise;
          return { total: payload.limit, rows: rows(payload.limit) };
        },
        refund: (job) => refunds.push(job),
      }),
    );
    app = Fastify();
    await app.register(downloadRoutes, { queue, signer, files, clock });
  });
  afterEach(async () => {
    await worker.stop(0);
    await app.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const enqueue = (limit = 120, maxAttempts = 3) => queue.enqueue(EXPORT_JOB_KIND, ACCOUNT, { limit, cost: limit }, { maxAttempts });
  const current = async (job: Job) => (await queue.byId(job.id))!;
  /** The finished exports and temporary copies stored, named as the disk keeps them. */
  const stored = async (): Promise<string[]> => {
    if (store.dialect === 'sqlite') return fs.existsSync(path.join(dir, 'exports')) ? fs.readdirSync(path.join(dir, 'exports')) : [];
    const rows = await store.db.selectFrom('export_chunks').select(['file_name', 'attempt']).distinct().execute();
    return rows.map((r) => (r.attempt === '' ? r.file_name : tempFileName(r.file_name, r.attempt))).sort();
  };
  const sizeOf = async (fileName: string): Promise<number> => {
    const file = (await files.open(fileName))!;
    await file.close();
    return file.size;
  };

  it('shows the last finished stage: 100 queued and collecting → 200 links collected while writing (progress visible) → 600 done with a download URL', async () => {
    const job = await enqueue();
    assert.equal(exportState(await current(job)), ExportState.Queued);
    assert.equal(exportDownloadUrl(await current(job), signer, clock.now()), undefined);
    await worker.poll();
    await until(async () => (await current(job)).stage === 'collecting', 'collecting');
    assert.equal(exportState(await current(job)), ExportState.Queued);
    collectGate.resolve();
    await until(async () => (await current(job)).progress.done >= 50, 'rows written');
    assert.equal(exportState(await current(job)), ExportState.LinksCollected);
    assert.deepEqual((await current(job)).progress, { done: 50, total: 120 });
    assert.equal(exportDownloadUrl(await current(job), signer, clock.now()), undefined);
    rowGate.resolve();
    await worker.idle();
    const done = await current(job);
    assert.equal(exportState(done), ExportState.Done);
    assert.deepEqual(done.progress, { done: 120, total: 120 });
    assert.deepEqual(done.result, { fileName: exportFileName(job.id), rows: 120, bytes: await sizeOf(exportFileName(job.id)) });
    assert.deepEqual(await stored(), [exportFileName(job.id)]);
    assert.equal(refunds.length, 0);

    const url = exportDownloadUrl(done, signer, clock.now())!;
    assert.deepEqual(exportJobStatus(done, signer, clock.now()), {
      state: 600,
      error: '',
      createdAt: clock.now() / 1000,
      completedAt: clock.now() / 1000,
      progress: { done: 120, total: 120 },
      downloadURL: url,
    });
    assert.match(url, new RegExp(`^http://quarry\\.test/downloads/${job.id}\\?expires=${(done.completedMs! + 60 * DAY) / 1000}&sig=`));
    const res = await app.inject({ method: 'GET', url: url.replace('http://quarry.test', '') });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="backlinks-[0-9a-f]{24}\.csv"$/);
    const records = parse(res.body, { columns: true }) as Record<string, string>[];
    assert.equal(records.length, 120);
    assert.equal(records[119].anchor, 'anchor 119');
    const head = await app.inject({ method: 'HEAD', url: url.replace('http://quarry.test', '') });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(done.result && (done.result as { bytes: number }).bytes));
    assert.equal(head.body, '');
  });

  it('expires 60 days after completion: the sweep removes the file, state 600, the link answers 410', async () => {
    collectGate.resolve();
    rowGate.resolve();
    const job = await enqueue(20);
    await worker.poll();
    await worker.idle();
    const url = exportDownloadUrl(await current(job), signer, clock.now())!.replace('http://quarry.test', '');

    clock.advance(EXPORT_RETENTION_MS - 1);
    assert.deepEqual(await sweepExports(queue, files), { expired: 0, tempsRemoved: 0, failedRemoved: 0 });
    assert.equal(exportState(await current(job)), ExportState.Done);
    assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200);

    clock.advance(1);
    // The link itself has expired, before any sweep ran.
    const gone = await app.inject({ method: 'GET', url });
    assert.equal(gone.statusCode, 410);
    assert.equal(gone.json().error.type, 'Expired');
    assert.equal(exportDownloadUrl(await current(job), signer, clock.now()), undefined);

    assert.deepEqual(await sweepExports(queue, files), { expired: 1, tempsRemoved: 0, failedRemoved: 0 });
    assert.equal((await current(job)).state, 'expired');
    assert.equal(exportState(await current(job)), ExportState.Done, 'an expired export stays done; only its downloadURL goes');
    assert.deepEqual(await stored(), []);
    assert.equal((await app.inject({ method: 'GET', url })).statusCode, 410);
    assert.deepEqual(await sweepExports(queue, files), { expired: 0, tempsRemoved: 0, failedRemoved: 0 });
  });

  it('answers 404 with the error object for a tampered, unsigned or unknown download', async () => {
    collectGate.resolve();
    rowGate.resolve();
    const job = await enqueue(5);
    await worker.poll();
    await worker.idle();
    const url = exportDownloadUrl(await current(job), signer, clock.now())!.replace('http://quarry.test', '');
    const sig = new URL(url, 'http://x').searchParams.get('sig')!;
    const other = 'e'.repeat(24);
    for (const bad of [
      url.replace(job.id, other),
      url.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 86_400}`),
      url.replace(
        sig,
        sig.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
      ),
      `/downloads/${job.id}`,
      signer.sign(`/downloads/${other}`, clock.now() / 1000 + 3600),
    ]) {
      const res = await app.inject({ method: 'GET', url: bad });
      assert.equal(res.statusCode, 404, bad);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(res.json().error).sort(), ['message', 'type']);
    }
  });

  it('fails with 500, the error set and exactly one refund, after retries of a transient error', async () => {
    collectGate.resolve();
    rowGate.resolve();
    failWith = new Error('link index unavailable');
    const job = await enqueue(100, 2);
    await worker.poll();
    await worker.idle();
    assert.equal(exportState(await current(job)), ExportState.Queued, 'retry pending');
    assert.equal(refunds.length, 0);
    clock.advance(SECOND);
    await worker.poll();
    await worker.idle();
    const failed = await current(job);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error, 'link index unavailable');
    assert.equal(exportJobStatus(failed, signer, clock.now()).error, 'link index unavailable');
    assert.equal(exportJobStatus(failed, signer, clock.now()).downloadURL, undefined);
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0].id, job.id);
    assert.deepEqual(refunds[0].payload, { limit: 100, cost: 100 });
    assert.deepEqual(await stored(), [], 'no partial file');
    clock.advance(DAY);
    assert.equal(await worker.poll(), 0);
    await sweepExports(queue, files);
    assert.equal(refunds.length, 1);
  });

  it('a worker killed mid-export on its last attempt: the claim that finds the job abandoned fails it, refunds once and removes the partial copy and a file the attempt finished', async () => {
    const job = await enqueue(100, 1);
    // The killed worker's attempt: it took the job, finished a file (its completion never
    // recorded) and had a second copy half written when it died.
    assert.equal((await queue.claim('killed-worker', [EXPORT_JOB_KIND]))?.id, job.id);
    const name = exportFileName(job.id);
    await files.write({ fileName: name, attemptTag: '1-finished', columns: COLUMNS, rows: [['https://s.example/', 'https://target.example/', 'a']] });
    if (store.dialect === 'sqlite') {
      fs.writeFileSync(path.join(dir, 'exports', tempFileName(name, '1-killed')), 'source,target,anchor\nhttps://s.exa');
    } else {
      await store.db
        .insertInto('export_chunks')
        .values({ file_name: name, attempt: '1-killed', seq: 0, data: Buffer.from('source,target,anchor\nhttps://s.exa') })
        .execute();
    }
    assert.deepEqual(await stored(), [tempFileName(name, '1-killed'), name].sort());
    clock.advance(30 * SECOND);
    assert.equal(await worker.poll(), 0, 'nothing left to run');
    const failed = await current(job);
    assert.equal(failed.state, 'failed');
    assert.match(failed.error!, /worker lost after 1 attempts/);
    assert.equal(refunds.length, 1);
    assert.deepEqual(await stored(), [], 'no file of a failed export is left');
    assert.deepEqual(await sweepExports(queue, files), { expired: 0, tempsRemoved: 0, failedRemoved: 0 });
  });

  it('the sweep removes a finished file of a job that failed (an attempt that lost its lease and still finished), and leaves a completed one', async () => {
    collectGate.resolve();
    rowGate.resolve();
    const done = await enqueue(5);
    await worker.poll();
    await worker.idle();
    const job = await enqueue(100, 1);
    assert.equal((await queue.claim('zombie-worker', [EXPORT_JOB_KIND]))?.id, job.id);
    assert.equal(await queue.fail(job.id, 'zombie-worker', 'link index unavailable', false), 'failed');
    // The failed attempt's worker had not noticed yet: it renames its file into place afterwards.
    await files.write({
      fileName: exportFileName(job.id),
      attemptTag: '1-zombie',
      columns: COLUMNS,
      rows: [['https://s.example/', 'https://target.example/', 'a']],
    });
    assert.deepEqual(await stored(), [exportFileName(done.id), exportFileName(job.id)].sort());
    assert.deepEqual(await sweepExports(queue, files), { expired: 0, tempsRemoved: 0, failedRemoved: 1 });
    assert.deepEqual(await stored(), [exportFileName(done.id)]);
  });

  it('fails at once on a permanent error', async () => {
    collectGate.resolve();
    rowGate.resolve();
    failWith = new PermanentJobError('target is not in the link index');
    const job = await enqueue(100, 3);
    await worker.poll();
    await worker.idle();
    assert.equal((await current(job)).state, 'failed');
    assert.equal(refunds.length, 1);
  });
});
