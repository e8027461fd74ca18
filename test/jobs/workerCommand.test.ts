/**
 * `quarry worker` as a separate process: SIGTERM stops it cleanly, finishing the running
 * export within the grace period or giving its lease back. Short real waits here are for
 * the child process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { systemClock } from '../../src/lib/clock.js';
import { EXPORT_JOB_KIND, ExportState, exportFileName, exportsDir, exportState } from '../../src/jobs/exportJobs.js';
import { type Job, JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { openStateStore, type SqliteStateStore } from '../../src/store/database.js';
import { freePort, Processes, type QuarryProcess } from '../support/processes.js';
import { embeddedOnly } from '../support/postgres.js';

const ACCOUNT = '9'.repeat(24);
const cli = fileURLToPath(new URL('./fixtures/workerCli.ts', import.meta.url));

const processes = new Processes();

/** Its exit and output once it has ended (killed and failed after `timeoutMs`). */
async function exited(worker: QuarryProcess, timeoutMs = 30_000): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const { code } = await worker.finished(timeoutMs);
  return { code, stderr: worker.stderr(), stdout: worker.stdout() };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// Its fixture ledger is a table of the SQLite file; a worker killed on PostgreSQL: test/scale/processes.slow.test.ts.
describe('quarry worker', { skip: embeddedOnly('a SQLite data directory') }, () => {
  let dataDir: string;
  let store: SqliteStateStore;
  let queue: JobQueue;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-worker-cli-'));
    store = await openStateStore(path.join(dataDir, 'state.db'));
    store.raw.exec(`CREATE TABLE fixture_ledger (job_id TEXT NOT NULL, entry TEXT NOT NULL, pid INTEGER NOT NULL)`);
    queue = openJobQueue(store, systemClock);
  });
  after(async () => {
    await processes.killAll();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const startWorker = (grace: number, env: Record<string, string> = {}) =>
    processes.start([JSON.stringify({ pauseEvery: 100, pauseMs: 5 }), '--grace', String(grace), '--poll-interval', '50'], {
      script: cli,
      env: { QUARRY_DATA_DIR: dataDir, ...env },
    });
  const files = () => (fs.existsSync(exportsDir(dataDir)) ? fs.readdirSync(exportsDir(dataDir)) : []);
  const refunds = (job: Job) =>
    (store.raw.prepare(`SELECT COUNT(*) AS n FROM fixture_ledger WHERE job_id = ? AND entry = 'refund'`).get(job.id) as { n: number }).n;

  it('on SIGTERM past the grace period, gives the job back (attempt not counted) and exits 0', async () => {
    const job = await queue.enqueue(EXPORT_JOB_KIND, ACCOUNT, { rows: 50_000 });
    const worker = startWorker(100);
    const done = exited(worker);
    await until(async () => ((await queue.byId(job.id))?.progress.done ?? 0) >= 1_000, 'the export to be under way');
    worker.child.kill('SIGTERM');
    const { code, stderr } = await done;
    assert.equal(code, 0, stderr);
    const released = (await queue.byId(job.id))!;
    assert.equal(exportState(released), ExportState.Queued);
    assert.equal(released.attempts, 0);
    assert.equal(released.leaseOwner, null);
    assert.deepEqual(files(), [], 'the aborted attempt removed its temporary file');
    assert.equal(refunds(job), 0);
    // Leave the queue as the next test expects it: this job done by another worker.
    const lease = (await queue.claim('cleanup', [EXPORT_JOB_KIND]))!;
    await queue.complete(lease.id, 'cleanup', null);
  });

  it('on SIGTERM within the grace period, finishes the running export first', async () => {
    const job = await queue.enqueue(EXPORT_JOB_KIND, ACCOUNT, { rows: 15_000 });
    // The worker process's own metrics, on its metrics port (it has no API port).
    const metricsPort = await freePort();
    const worker = startWorker(60_000, { QUARRY_METRICS_PORT: String(metricsPort) });
    const done = exited(worker);
    await until(async () => ((await queue.byId(job.id))?.progress.done ?? 0) >= 1_000, 'the export to be under way');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /^quarry_jobs\{state="running"\} 1$/m);
    assert.match(metrics, /^# TYPE quarry_job_duration_seconds histogram$/m);
    worker.child.kill('SIGTERM');
    const { code, stderr } = await done;
    assert.equal(code, 0, stderr);
    const finished = (await queue.byId(job.id))!;
    assert.equal(exportState(finished), ExportState.Done);
    assert.deepEqual(files(), [exportFileName(job.id)]);
    const records = parse(fs.readFileSync(path.join(exportsDir(dataDir), exportFileName(job.id))), { columns: true }) as unknown[];
    assert.equal(records.length, 15_000);
  });
});
