/**
 * The metrics of the worker and scheduler roles (metrics/processMetrics.ts): the job queue's
 * depth by state, job durations by kind and outcome, rank checks by outcome, e-mails by
 * outcome; and GET /metrics of a process without the API role (QUARRY_METRICS_PORT). Each on
 * the state store of the run (PostgreSQL under npm run test:scale).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DAY, FakeClock } from '../../src/lib/clock.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { PermanentJobError, Worker } from '../../src/jobs/worker.js';
import { startMetricsServer } from '../../src/metrics/metricsServer.js';
import { ProcessMetrics } from '../../src/metrics/processMetrics.js';
import { SourceError, type SerpSource } from '../../src/engine/sources/types.js';
import { PositionChecks } from '../../src/rank/positionChecks.js';
import { rankServices } from '../../src/rank/rankService.js';
import type { StateStore } from '../../src/store/database.js';
import { scrapeMetrics, testApp, type TestApp } from '../support/app.js';
import { testStateStore } from '../support/postgres.js';
import { rankClient } from '../tools/rank/helpers.js';

/** The value of one sample line (`name{labels}`) of a scrape, or undefined when absent. */
function sample(text: string, line: string): number | undefined {
  const m = new RegExp(`^${line.replace(/[{}"/.?+]/g, '\\$&')} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('job metrics', () => {
  let store: StateStore;
  before(async () => {
    store = await testStateStore();
  });
  after(() => store.close());

  test('the queue depth by state, and each run’s duration by kind and outcome', async () => {
    const clock = new FakeClock();
    const metrics = new ProcessMetrics(store);
    const queue = openJobQueue(store, clock, { retryDelayMs: () => DAY });
    const account = 'a'.repeat(24);
    await queue.enqueue('ok', account, {});
    await queue.enqueue('ok', account, {});
    await queue.enqueue('broken', account, { permanent: true });
    await queue.enqueue('flaky', account, {});
    let scrape = (await metrics.scrape()).text;
    assert.equal(sample(scrape, 'quarry_jobs{state="queued"}'), 4);

    const worker = new Worker(queue, { concurrency: 4, metrics })
      .register('ok', { run: async () => 'done' })
      .register('broken', {
        run: async () => {
          throw new PermanentJobError('bad payload');
        },
      })
      .register('flaky', {
        run: async () => {
          throw new Error('try again');
        },
      });
    assert.equal(await worker.poll(), 4);
    await worker.idle();
    await worker.stop(0);

    scrape = (await metrics.scrape()).text;
    assert.equal(sample(scrape, 'quarry_job_duration_seconds_count{kind="ok",outcome="completed"}'), 2);
    assert.equal(sample(scrape, 'quarry_job_duration_seconds_count{kind="broken",outcome="failed"}'), 1);
    assert.equal(sample(scrape, 'quarry_job_duration_seconds_count{kind="flaky",outcome="retrying"}'), 1);
    assert.equal(sample(scrape, 'quarry_job_duration_seconds_bucket{le="+Inf",kind="ok",outcome="completed"}'), 2);
    assert.match(scrape, /^# TYPE quarry_job_duration_seconds histogram$/m);
    // Depth after the runs: two completed, one failed, the flaky one queued for its retry.
    assert.equal(sample(scrape, 'quarry_jobs{state="completed"}'), 2);
    assert.equal(sample(scrape, 'quarry_jobs{state="failed"}'), 1);
    assert.equal(sample(scrape, 'quarry_jobs{state="queued"}'), 1);
  });

  test('a process without the API role answers GET /metrics on its metrics port, and nothing else', async () => {
    const metrics = new ProcessMetrics(store);
    metrics.emailed('sent');
    const server = await startMetricsServer(metrics, 0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain/);
      const text = await res.text();
      assert.equal(sample(text, 'quarry_emails_total{outcome="sent"}'), 1);
      assert.match(text, /^quarry_process_cpu_seconds_total /m);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 404);
    } finally {
      await server.close();
    }
  });
});

describe('scheduler metrics', () => {
  let t: TestApp;
  let failing: TestApp;
  before(async () => {
    t = await testApp();
    // Mail that cannot be delivered: nothing listens on port 1.
    failing = await testApp({ env: { QUARRY_SMTP_URL: 'smtp://127.0.0.1:1' } });
  });
  after(async () => {
    for (const app of [t, failing]) {
      await rankServices(app.ctx).checks.idle();
      await rankServices(app.ctx).reports.close();
      await app.close();
    }
  });

  const scrape = (app: TestApp) => scrapeMetrics(app.app);

  test('rank checks by outcome: checked, and source_failed for keywords whose SERP source failed', async () => {
    const c = await rankClient(t);
    const res = await c.post('/trackings', { domain: 'example.com', location_id: 2840, platform_id: 1, keywords: ['tent', 'hiking boots', 'backpack'] });
    assert.equal(res.statusCode, 201, res.body);
    // The new keywords' first checks run in the background.
    await rankServices(t.ctx).checks.idle();
    assert.equal(sample(await scrape(t), 'quarry_rank_checks_total{outcome="checked"}'), 3);

    // The next day, through a source that fails for one keyword's SERP.
    t.clock.advance(DAY);
    const sandbox = t.ctx.sources.serp;
    const flaky: SerpSource = {
      name: sandbox.name,
      pastDays: sandbox.pastDays,
      keywordDetail: (q) => sandbox.keywordDetail(q),
      serp: async (q) => {
        if (q.kw === 'tent') throw new SourceError('test', 'unavailable', 'provider down');
        return sandbox.serp(q);
      },
    };
    const result = await new PositionChecks(t.ctx.state.db, flaky, t.ctx.policy, t.ctx.metrics).runDueChecks(t.clock.now());
    assert.equal(result.checks, 2);
    const text = await scrape(t);
    assert.equal(sample(text, 'quarry_rank_checks_total{outcome="checked"}'), 5);
    assert.equal(sample(text, 'quarry_rank_checks_total{outcome="source_failed"}'), 1);
  });

  test('e-mails by outcome: sent (here to the outbox), failed (an SMTP server that does not answer)', async () => {
    for (const app of [t, failing]) {
      const c = await rankClient(app);
      const res = await c.post('/trackings', { domain: 'example.com', location_id: 2840, platform_id: 1, keywords: ['headlamp'] });
      assert.equal(res.statusCode, 201, res.body);
      const trackingId = res.json().tracking._id;
      assert.equal((await c.post(`/trackings/${trackingId}/reports`, { type: 1, emails: ['team@reports.test'] })).statusCode, 201);
      await rankServices(app.ctx).checks.idle();
      // Weeks end on Monday 00:00 UTC; a report is owed for the weeks that end after it was
      // made (Sunday the 22nd on `failing`, Monday the 23rd on `t`, a day on by the test above).
      app.clock.set(app === t ? Date.UTC(2026, 10, 30, 0, 30) : Date.UTC(2026, 10, 23, 0, 30));
      await rankServices(app.ctx).reports.runDueReports(app.clock.now());
    }
    assert.ok((sample(await scrape(t), 'quarry_emails_total{outcome="sent"}') ?? 0) >= 1);
    assert.equal(sample(await scrape(t), 'quarry_emails_total{outcome="failed"}'), undefined);
    assert.ok((sample(await scrape(failing), 'quarry_emails_total{outcome="failed"}') ?? 0) >= 1);
    assert.equal(sample(await scrape(failing), 'quarry_emails_total{outcome="sent"}'), undefined);
  });
});
