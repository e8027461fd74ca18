/**
 * Lookups while a backlink export streams (issue 12, item 1): the export's scan spans many
 * turns of the event loop; every lookup answered in between, on the research store's
 * shared connection, must answer 200 (it answered 500 "This database connection is busy
 * executing a query" when the export read on that connection).
 *
 * Deterministic on both backends: the lookups are made from the export's own progress
 * reports (every PROGRESS_EVERY rows, before the last), which the CSV writer makes
 * synchronously between two records of the open scan. There the test reads the shared
 * connection at once (better-sqlite3 throws if a scan holds it), at each report, and starts a
 * batch of HTTP lookups when none is running, whose answers are checked at the end. Polling the job instead saw the export finish between
 * two polls on PostgreSQL, where a poll is a network round trip.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../support/app.js';
import { startEmbeddedWorker, type RunningWorker } from '../../src/jobs/embeddedWorker.js';
import { EXPORT_JOB_KIND } from '../../src/jobs/exportJobs.js';
import { jobHandlers } from '../../src/workers.js';
import { SECOND } from '../../src/lib/clock.js';

/** openpedia.org has 5,942 links in the tiny world: a report every 500 rows makes 11 before the last. */
const PROGRESS_EVERY = 500;

let t: TestApp;
let worker: RunningWorker;

describe('lookups beside a streaming export', () => {
  before(async () => {
    // Lookups come from the web client class, so no burst window paces them.
    t = await testApp({ clientClassOf: () => 'web' });
  });
  after(async () => {
    await worker?.stop();
    await t.close();
  });

  test('every lookup made while the export scans answers 200', async () => {
    const { key } = await t.account('agency');
    const headers = { 'x-access-token': key };
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url: `/v3${url}`, headers, payload });
    const get = (url: string) => t.app.inject({ method: 'GET', url: `/v3${url}`, headers });
    assert.equal((await post('/link-tool/exports/suggest', { url: 'openpedia.org' })).statusCode, 200);
    const created = await post('/link-tool/exports', { url: 'openpedia.org' });
    assert.equal(created.statusCode, 200, created.body);
    const jobId = created.json()._id as string;

    const lookups = [
      () => post('/link-tool/exports/suggest', { url: 'learnhub.com' }),
      () => get('/link-tool/url-metrics?url=learnhub.com'),
      () => get('/link-tool/links?url=learnhub.com&source=0&page=0&links_per_domain=0'),
      () => get('/keyword-tool/related-keywords?kw=running%20shoes&location_id=2840'),
    ];
    const answers: Promise<LightMyRequestResponse[]>[] = [];
    let batchRunning = false;
    const readFailures: string[] = [];
    let midScan = 0;
    const handlers = jobHandlers(t.ctx, { progressEvery: PROGRESS_EVERY });
    const exporting = handlers[EXPORT_JOB_KIND];
    handlers[EXPORT_JOB_KIND] = {
      ...exporting,
      run: (job) =>
        exporting.run({
          ...job,
          progress(done, total) {
            if (done > 0 && total !== undefined && total !== null && done < total) {
              midScan++;
              try {
                // What a lookup reads, on the shared connection, while the scan is open.
                const target = t.ctx.engine.links.resolve('learnhub.com');
                assert.ok(target);
                t.ctx.engine.links.countBacklinks(target);
              } catch (err) {
                readFailures.push(`after ${done} rows: ${(err as Error).message}`);
              }
              // One batch at a time (the account's bulk slots are 2): the first report always starts one.
              if (!batchRunning) {
                batchRunning = true;
                const batch = Promise.all(lookups.map((lookup) => lookup()));
                answers.push(batch.finally(() => (batchRunning = false)));
              }
            }
            return job.progress(done, total);
          },
        }),
    };
    worker = startEmbeddedWorker(t.ctx, { handlers, queue: t.ctx.jobs, pollIntervalMs: 5 });
    for (;;) {
      const job = (await t.ctx.jobs.byId(jobId))!;
      if (job.state === 'completed' || job.state === 'failed') break;
      t.clock.advance(SECOND);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await t.ctx.jobs.byId(jobId))!.state, 'completed', (await t.ctx.jobs.byId(jobId))!.error ?? '');
    assert.deepEqual(readFailures, []);
    assert.ok(midScan >= 3, `progress reports made while the scan was open: ${midScan}`);
    assert.ok(answers.length >= 1);
    const failures = (await Promise.all(answers))
      .flat()
      .filter((res) => res.statusCode !== 200)
      .map((res) => `${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.deepEqual(failures, []);
  });
});
