/**
 * `quarry worker`'s context (service.ts `createWorkerContext`, issue 26): it opens the
 * research engine alone, not the search half the API loads (page texts, keyword catalogue,
 * rank indexes: most of a worker's memory before its first row when it did), and a backlink
 * export it runs writes the same bytes as the one the API process's own worker writes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testApp, type TestApp } from '../support/app.js';
import { startEmbeddedWorker } from '../../src/jobs/embeddedWorker.js';
import { jobHandlers } from '../../src/workers.js';
import { closeContext, createWorkerContext, type WorkerContext } from '../../src/service.js';
import { EXPORT_JOB_KIND, exportFileName, openExportFiles } from '../../src/jobs/exportJobs.js';
import type { JobQueue } from '../../src/jobs/jobQueue.js';
import type { JobHandlers } from '../../src/jobs/embeddedWorker.js';

const TARGET = 'learnhub.com';

let t: TestApp;
let dataDir: string;
let worker: WorkerContext;

/** Runs the queue's jobs with `handlers` until job `id` has ended; its state. */
async function runUntilDone(host: Parameters<typeof startEmbeddedWorker>[0], queue: JobQueue, handlers: JobHandlers, id: string): Promise<string> {
  const running = startEmbeddedWorker(host, { handlers, queue, pollIntervalMs: 5 });
  try {
    for (;;) {
      const job = (await queue.byId(id))!;
      if (job.state === 'completed' || job.state === 'failed') return job.state;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await running.stop();
  }
}

/** An export of the target (a `limit` makes the request differ from an earlier one: no cached answer). */
async function createExport(key: string, limit?: number): Promise<string> {
  const headers = { 'x-access-token': key };
  const suggest = await t.app.inject({ method: 'POST', url: '/v3/link-tool/exports/suggest', headers, payload: { url: TARGET } });
  assert.equal(suggest.statusCode, 200, suggest.body);
  t.clock.advance(11_000);
  const created = await t.app.inject({
    method: 'POST',
    url: '/v3/link-tool/exports',
    headers,
    payload: { url: TARGET, ...(limit === undefined ? {} : { limit }) },
  });
  assert.equal(created.statusCode, 200, created.body);
  t.clock.advance(11_000);
  return created.json()._id as string;
}

/** The bytes of a completed export (a file, or chunks in PostgreSQL in the scale mode). */
async function exportBytes(id: string): Promise<Buffer> {
  const file = await openExportFiles(t.ctx.state, dataDir).open(exportFileName(id));
  assert.ok(file, `the file of export ${id}`);
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("quarry worker's context", () => {
  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-worker-context-'));
    t = await testApp({ dataDir });
    // As `quarry worker` opens it beside the API process: same configuration, same research file.
    worker = await createWorkerContext(t.ctx.config, { clock: t.clock, researchFile: t.ctx.research.live.current.file });
  });
  after(async () => {
    await closeContext(worker);
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('opens the research engine without its search half', () => {
    const set = worker.research.live.current;
    assert.ok(set.engine.links.resolve(TARGET), 'the link index answers');
    assert.deepEqual(
      Object.keys(set).filter((k) => k === 'search' || k === 'sources'),
      [],
    );
    assert.equal('search' in worker, false);
  });

  test('runs a backlink export to the same bytes as the API process writes', async () => {
    const { key } = await t.account('premium');
    const inWorker = await createExport(key);
    assert.equal(await runUntilDone(worker, worker.jobs, jobHandlers(worker), inWorker), 'completed');
    const inApi = await createExport(key, 1_000_000);
    assert.equal(await runUntilDone(t.ctx, t.ctx.jobs, jobHandlers(t.ctx), inApi), 'completed');
    const bytes = await exportBytes(inWorker);
    assert.ok(bytes.length > 1000);
    assert.ok(bytes.equals(await exportBytes(inApi)), 'same CSV from both processes');
    assert.equal((await worker.jobs.byId(inWorker))!.kind, EXPORT_JOB_KIND);
  });
});
