/**
 * Durability across processes: separate worker processes on one file-backed state store.
 * The kill -9 tests kill a worker in the middle of an export and check what the next
 * worker process makes of it: first fixture workers with a synthetic handler, then the
 * real path (an export created through the API, run by `quarry worker` on the tiny world).
 * Short real waits here are for the child processes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import type { QuarryContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { systemClock, unixSeconds } from '../../src/lib/clock.js';
import { EXPORT_JOB_KIND, ExportState, exportFileName, exportsDir, exportState } from '../../src/jobs/exportJobs.js';
import { type Job, JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { openStateStore, sqliteOf, type SqliteStateStore } from '../../src/store/database.js';
import { closeContext, createContext } from '../../src/service.js';
import { EXPORT_COLUMNS } from '../../src/tools/link/exports.js';
import { copyTinyWorld } from '../support/world.js';
import { Processes, until, type QuarryProcess } from '../support/processes.js';
import { embeddedOnly } from '../support/postgres.js';

const ACCOUNT = 'f'.repeat(24);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const processes = new Processes();

/** A fixture worker or claimer with its options. */
function start(script: string, options: object): QuarryProcess {
  return processes.start([JSON.stringify(options)], { script: fixture(script) });
}

/** Its exit and output, once it has ended by itself. */
async function exited(p: QuarryProcess): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const { code, signal } = await p.finished();
  return { code, signal, stdout: p.stdout(), stderr: p.stderr() };
}

/**
 * Waits for a child process to get somewhere. Generous: a `quarry worker` loads the research
 * engine first, which took over 25 s on a loaded 2-core machine (load average 20).
 */
const waitUntil = (condition: () => boolean | Promise<boolean>, what: string) => until(what, async () => ((await condition()) ? true : undefined), 120_000, 20);

// Processes on one SQLite file; on PostgreSQL: test/scale/processes.slow.test.ts.
describe('worker processes on one state store', { skip: embeddedOnly('a SQLite data directory') }, () => {
  let dataDir: string;
  let store: SqliteStateStore;
  let queue: JobQueue;
  const stateFile = () => path.join(dataDir, 'state.db');

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-processes-'));
    store = await openStateStore(stateFile());
    store.raw.exec(`CREATE TABLE fixture_ledger (job_id TEXT NOT NULL, entry TEXT NOT NULL, pid INTEGER NOT NULL)`);
    store.raw.exec(`CREATE TABLE fixture_claims (job_id TEXT NOT NULL, worker TEXT NOT NULL)`);
    queue = openJobQueue(store, systemClock);
  });
  after(async () => {
    await processes.killAll();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const ledger = (jobId: string, entry: string) =>
    (store.raw.prepare('SELECT COUNT(*) AS n FROM fixture_ledger WHERE job_id = ? AND entry = ?').get(jobId, entry) as { n: number }).n;
  /** The API's side of export creation: the job and its one charge, in one transaction. */
  const createExport = (rows: number, maxAttempts: number): Promise<Job> =>
    queue.enqueue(
      EXPORT_JOB_KIND,
      ACCOUNT,
      { rows },
      {
        maxAttempts,
        onCreated: (job) => void store.raw.prepare(`INSERT INTO fixture_ledger (job_id, entry, pid) VALUES (?, 'charge', ?)`).run(job.id, process.pid),
      },
    );
  const workerOptions = { stateFile: '', dataDir: '', leaseMs: 1_500, pauseEvery: 100, pauseMs: 8 };
  const exportFiles = () => (fs.existsSync(exportsDir(dataDir)) ? fs.readdirSync(exportsDir(dataDir)) : []);

  it('never hands one job to two processes', async () => {
    const jobs = await Promise.all(Array.from({ length: 400 }, () => queue.enqueue('contended', ACCOUNT, {})));
    const startAt = Date.now() + 2_500;
    const claimers = ['p1', 'p2', 'p3'].map((workerId) => exited(start('claimer.ts', { stateFile: stateFile(), workerId, startAt })));
    const results = await Promise.all(claimers);
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const perProcess = results.map((r) => Number(r.stdout.trim()));
    assert.equal(
      perProcess.reduce((a, b) => a + b, 0),
      jobs.length,
    );
    const claims = store.raw.prepare('SELECT job_id, COUNT(*) AS n FROM fixture_claims GROUP BY job_id').all() as { job_id: string; n: number }[];
    assert.equal(claims.length, jobs.length);
    assert.ok(
      claims.every((c) => c.n === 1),
      'every job claimed exactly once',
    );
    for (const j of jobs) assert.equal((await queue.byId(j.id))?.state, 'completed');
    console.log(`# claims per process: ${perProcess.join(', ')}`);
  });

  it('kill -9 mid-export: the next worker process re-runs it to exactly one complete file, one charge, no refund', async () => {
    const rows = 30_000;
    const job = await createExport(rows, 3);
    const options = { ...workerOptions, stateFile: stateFile(), dataDir };
    const first = start('exportWorker.ts', options);
    const firstExit = exited(first);
    await waitUntil(async () => ((await queue.byId(job.id))?.progress.done ?? 0) >= 3_000, 'the first worker to write 3,000 rows');
    const midway = (await queue.byId(job.id))!;
    assert.equal(exportState(midway), ExportState.LinksCollected);
    assert.equal(midway.progress.total, rows);
    assert.ok(midway.progress.done < rows, 'killed mid-export');
    assert.ok(
      exportFiles().some((f) => f.endsWith('.tmp')),
      'a temporary file is being written',
    );
    assert.ok(!exportFiles().includes(exportFileName(job.id)), 'no final file yet');
    await first.kill();
    assert.equal((await firstExit).signal, 'SIGKILL');
    assert.equal((await queue.byId(job.id))?.state, 'running', 'the dead worker still holds the lease');

    const second = await exited(start('exportWorker.ts', options));
    assert.equal(second.code, 0, second.stderr);
    const done = (await queue.byId(job.id))!;
    assert.equal(exportState(done), ExportState.Done);
    assert.equal(done.attempts, 2);
    assert.deepEqual(exportFiles(), [exportFileName(job.id)]);
    const records = parse(fs.readFileSync(path.join(exportsDir(dataDir), exportFileName(job.id))), { columns: true }) as Record<string, string>[];
    assert.equal(records.length, rows);
    assert.equal(records[rows - 1].source, `https://blog${rows - 1}.example/post-${rows - 1}`);
    assert.equal(records[1].anchor, 'anchor, "1"');
    assert.deepEqual(done.result, { fileName: exportFileName(job.id), rows, bytes: fs.statSync(path.join(exportsDir(dataDir), exportFileName(job.id))).size });
    assert.equal(ledger(job.id, 'charge'), 1);
    assert.equal(ledger(job.id, 'refund'), 0);
  });

  it('kill -9 on the last attempt: the next worker process fails the job and refunds it exactly once', async () => {
    const job = await createExport(30_000, 1);
    const options = { ...workerOptions, stateFile: stateFile(), dataDir };
    const first = start('exportWorker.ts', options);
    const firstExit = exited(first);
    await waitUntil(async () => ((await queue.byId(job.id))?.progress.done ?? 0) >= 1_000, 'the first worker to write 1,000 rows');
    await first.kill();
    await firstExit;

    for (let run = 0; run < 2; run++) {
      const next = await exited(start('exportWorker.ts', options));
      assert.equal(next.code, 0, next.stderr);
      const failed = (await queue.byId(job.id))!;
      assert.equal(failed.state, 'failed');
      assert.match(failed.error ?? '', /worker lost/);
      assert.equal(ledger(job.id, 'charge'), 1);
      assert.equal(ledger(job.id, 'refund'), 1, `refunded once (after run ${run + 1})`);
    }
    assert.ok(!exportFiles().some((f) => f.includes(job.id)), 'the dead attempt’s temporary file was swept');
  });
});

describe('the real export path across processes', { skip: embeddedOnly('a SQLite data directory') }, () => {
  /** The tiny world's target with the most backlinks: the longest export it has. */
  const TARGET = 'openpedia.org';
  let dataDir: string;
  let ctx: QuarryContext;
  let app: FastifyInstance;
  let key: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-real-export-'));
    await copyTinyWorld(1, dataDir);
    ctx = await createContext(loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0', QUARRY_PUBLIC_URL: 'http://quarry.test' }));
    app = await buildApp(ctx);
    await app.ready();
    const now = unixSeconds(Date.now());
    const account = await ctx.accounts.create('kill9@example.test', 'premium', now);
    ({ key } = await ctx.accounts.createKey(account.id, now));
  });
  after(async () => {
    // A failed assertion may leave a worker of this test running.
    await processes.killAll();
    await app?.close();
    if (ctx) await closeContext(ctx);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url: `/v3${url}`, headers: { 'x-access-token': key }, ...(payload ? { payload } : {}) });
  const linksRemaining = async () => (await api('GET', '/keyword-tool/limits')).json().resources.links.remaining as number;
  /** `quarry worker`, exactly as an operator starts it, on the test's data dir. */
  const quarryWorker = () => processes.start(['worker', '--concurrency', '1', '--poll-interval', '20'], { env: { QUARRY_DATA_DIR: dataDir } });
  const exportFiles = () => (fs.existsSync(exportsDir(dataDir)) ? fs.readdirSync(exportsDir(dataDir)) : []);

  it('kill -9 of `quarry worker` mid-export: the next one completes it to one CSV, charged once', async () => {
    assert.equal((await api('POST', '/link-tool/exports/suggest', { url: TARGET })).statusCode, 200);
    const poolBefore = await linksRemaining();
    const created = await api('POST', '/link-tool/exports', { url: TARGET });
    assert.equal(created.statusCode, 200, created.body);
    const { _id: jobId, cost } = created.json() as { _id: string; cost: number };
    assert.equal(await linksRemaining(), poolBefore - cost);
    const tempFile = () => exportFiles().find((f) => f.includes(jobId) && f.endsWith('.tmp'));

    const first = quarryWorker();
    const firstExit = exited(first);
    // Writing the tiny world's largest export takes about a second; its temporary file
    // appears part way through, which is the moment to kill.
    const over = async () => ['completed', 'failed'].includes((await ctx.jobs.byId(jobId))!.state);
    await waitUntil(async () => tempFile() !== undefined || (await over()), 'the first worker to write the CSV');
    await first.kill();
    assert.equal((await firstExit).signal, 'SIGKILL');
    const killed = (await ctx.jobs.byId(jobId))!;
    assert.equal(killed.state, 'running', 'killed mid-export: the dead worker still holds the lease');
    assert.equal(exportState(killed), ExportState.LinksCollected);
    assert.equal(killed.attempts, 1);
    assert.ok(tempFile(), 'a temporary file was being written');
    assert.ok(!exportFiles().includes(exportFileName(jobId)), 'no final file yet');
    // The dead worker's lease would run out 30 s from its last heartbeat; end it now instead.
    sqliteOf(ctx.state).prepare('UPDATE jobs SET lease_expires_ms = ? WHERE id = ?').run(Date.now(), jobId);

    const second = quarryWorker();
    await waitUntil(async () => (await ctx.jobs.byId(jobId))!.state !== 'running', 'the second worker to finish the export');
    const stopped = await second.stop();
    assert.equal(stopped.code, 0, second.stderr());

    const done = (await ctx.jobs.byId(jobId))!;
    assert.equal(done.state, 'completed', done.error ?? '');
    assert.equal(done.attempts, 2);
    assert.deepEqual(exportFiles(), [exportFileName(jobId)], 'one CSV, no temporary leftovers');
    assert.equal(await linksRemaining(), poolBefore - cost, 'charged once, not refunded');
    const listed = ((await api('GET', '/link-tool/exports')).json() as { _id: string; state: number; backLinks: number; downloadURL?: string }[]).find(
      (j) => j._id === jobId,
    )!;
    assert.equal(listed.state, ExportState.Done);
    const url = new URL(listed.downloadURL!);
    const download = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.equal(download.statusCode, 200);
    const records = parse(download.body, { columns: true }) as Record<string, string>[];
    assert.deepEqual(Object.keys(records[0]), [...EXPORT_COLUMNS]);
    assert.equal(records.length, cost, 'every backlink of the target, as suggested and charged');
    assert.equal(listed.backLinks, cost);
    assert.equal(new Set(records.map((r) => r._id)).size, records.length, 'no row written twice');
    assert.equal(download.body, fs.readFileSync(path.join(exportsDir(dataDir), exportFileName(jobId)), 'utf8'));
  });
});
