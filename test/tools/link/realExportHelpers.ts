/**
 * Helpers of the real-mode export tests (realExports*.test.ts): an embedded export worker with
 * a chosen provider page size whose progress notes a test can watch, the export list, waiting
 * for a job to end, creating an export after its suggestion, and reading its CSV.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import type { TestApp } from '../../support/app.js';
import { startEmbeddedWorker, type RunningWorker } from '../../../src/jobs/embeddedWorker.js';
import { EXPORT_JOB_KIND } from '../../../src/jobs/exportJobs.js';
import type { JobHandler } from '../../../src/jobs/worker.js';
import { EXPORT_COLUMNS, exportHandler } from '../../../src/tools/link/exports.js';
import { pace, type LinkClient } from './helpers.js';

export interface ExportJob {
  _id: string;
  state: number;
  error: string;
  cost: number;
  backLinks: number;
  progress: { done: number; total: number | null };
  downloadURL?: string;
}

export type Row = Record<string, string>;
export type OnProgress = (done: number, signal: AbortSignal) => Promise<void>;

/** An embedded export worker asking the provider `pageRows` rows a page (undefined: the product's default); `onProgress` sees each progress note. */
export function startExportWorker(t: TestApp, pageRows: number | undefined, onProgress?: OnProgress): RunningWorker {
  const real = exportHandler(t.ctx, { providerPageRows: pageRows }) as JobHandler;
  const handlers: Record<string, JobHandler> = {
    [EXPORT_JOB_KIND]: {
      ...real,
      run: (ctx) =>
        real.run({
          ...ctx,
          progress: async (done, total) => {
            await ctx.progress(done, total);
            await onProgress?.(done, ctx.signal);
          },
        }),
    },
  };
  return startEmbeddedWorker(t.ctx, { handlers, queue: t.ctx.jobs, pollIntervalMs: 20 });
}

export async function listed(c: LinkClient): Promise<ExportJob[]> {
  const res = await c.get('/exports');
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls GET /link-tool/exports until the job is done (600) or failed (`error` set); records the progress seen. */
export async function finished(c: LinkClient, id: string, seen: ExportJob['progress'][] = []): Promise<ExportJob> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const job = (await listed(c)).find((j) => j._id === id);
    assert.ok(job, `job ${id} is listed`);
    seen.push(job.progress);
    if (job.state === 600 || job.error !== '') return job;
    if (Date.now() > deadline) assert.fail(`job ${id} still in state ${job.state}`);
    await sleep(20);
  }
}

/** Suggests, then creates the export (paced under the burst window). */
export async function createExport(t: TestApp, c: LinkClient, body: Record<string, unknown>): Promise<ExportJob> {
  pace(t);
  const suggested = await c.post('/exports/suggest', { url: body.url });
  assert.equal(suggested.statusCode, 200, suggested.body);
  pace(t);
  const res = await c.post('/exports', body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The rows of a completed export's CSV (its columns checked). */
export async function csvOf(t: TestApp, job: ExportJob): Promise<Row[]> {
  assert.ok(job.downloadURL, 'a completed export has a downloadURL');
  const u = new URL(job.downloadURL);
  const res = await t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
  assert.equal(res.statusCode, 200, res.body);
  const rows = parse(res.body, { columns: true, skip_empty_lines: true }) as Row[];
  if (rows.length > 0) assert.deepEqual(Object.keys(rows[0]), [...EXPORT_COLUMNS]);
  return rows;
}

/** Stops a running export worker as soon as its first page is stored (a shutdown or crash between two pages); resolves once it stopped. */
export async function stopAfterFirstPage(start: (onProgress: OnProgress) => RunningWorker): Promise<void> {
  let stopping: Promise<void> | null = null;
  let worker: RunningWorker | null = null;
  worker = start(async (done, signal) => {
    if (done === 0 || stopping) return;
    stopping = worker!.stop(0);
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  });
  for (let i = 0; !stopping && i < 6000; i++) await sleep(20);
  assert.ok(stopping, 'the first worker was stopped');
  await stopping;
}
