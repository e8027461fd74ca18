/**
 * Backlink exports in real mode (issue 24) against the Majestic and Moz fakes
 * (test/support/fakes: Majestic's documented GetBackLinkData with From/Count paging and its
 * `BackLinks` table, genuine sample rows cited in majestic.ts). The worker pages through the
 * provider's list (10 rows a page here), storing each page with the cursor of the next: an
 * export stopped between pages continues on the next worker from where it stopped — every
 * page bought once, every row written once. Suggestions and the charge are the provider's
 * count; a provider failure fails the export and refunds it; a filter on a figure only the
 * sandbox has is refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { testApp, type TestApp } from '../../support/app.js';
import { startEmbeddedWorker, type RunningWorker } from '../../../src/jobs/workerCommand.js';
import { EXPORT_JOB_KIND } from '../../../src/jobs/exportJobs.js';
import type { JobHandler } from '../../../src/jobs/worker.js';
import { EXPORT_COLUMNS, exportHandler } from '../../../src/tools/link/exports.js';
import {
  coffeeWeb,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  linkProviderEnv,
  majesticAnswer,
  majesticError,
  startFakeMajestic,
  startFakeMoz,
  type FakeLink,
  type FakeMajestic,
  type FakeUpstream,
} from '../../support/fakes/index.js';
import { newLinkClient, pace, type LinkClient } from './helpers.js';

const TARGET = 'bigbrew.com';
const LINKS = 23;
const PAGE_ROWS = 10;

const web = coffeeWeb();
web.items[TARGET] = { ...web.items['peets.com'], ExtBackLinks: LINKS, RefDomains: LINKS };
const bigLinks: FakeLink[] = Array.from({ length: LINKS }, (_, i) => ({
  source: `https://blog${i}.example.org/brewing-notes-${i}`,
  target: `https://www.${TARGET}/beans/${i % 4}`,
  anchor: `brew guide ${i}`,
  sourceTitle: `Brewing notes ${i}`,
  nofollow: i % 3 === 0,
  image: false,
  firstSeen: '2025-03-01',
  lastSeen: '2026-11-20',
  lostOn: i === 7 ? '2026-11-01' : null,
  sourceCitationFlow: 10 + i,
  sourceTrustFlow: 5 + i,
  targetCitationFlow: 40,
  targetTrustFlow: 35,
}));
web.links.push(...bigLinks);

let majestic: FakeMajestic;
let moz: FakeUpstream;
let t: TestApp;

interface ExportJob {
  _id: string;
  state: number;
  error: string;
  cost: number;
  backLinks: number;
  progress: { done: number; total: number | null };
  downloadURL?: string;
}

type Row = Record<string, string>;

/** The export handler with 10-row provider pages; `onProgress` sees each progress note of the run. */
function handlers(onProgress?: (done: number, signal: AbortSignal) => Promise<void>): Record<string, JobHandler> {
  const real = exportHandler(t.ctx, { providerPageRows: PAGE_ROWS }) as JobHandler;
  return {
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
}

const startWorker = (onProgress?: (done: number, signal: AbortSignal) => Promise<void>): RunningWorker =>
  startEmbeddedWorker(t.ctx, { handlers: handlers(onProgress), queue: t.ctx.jobs, pollIntervalMs: 20 });

async function listed(c: LinkClient): Promise<ExportJob[]> {
  const res = await c.get('/exports');
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls GET /link-tool/exports until the job is done (600) or failed (`error` set); records the progress seen. */
async function finished(c: LinkClient, id: string, seen: ExportJob['progress'][] = []): Promise<ExportJob> {
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

async function create(c: LinkClient, body: Record<string, unknown>): Promise<ExportJob> {
  pace(t);
  const suggested = await c.post('/exports/suggest', { url: body.url });
  assert.equal(suggested.statusCode, 200, suggested.body);
  pace(t);
  const res = await c.post('/exports', body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function csvOf(job: ExportJob): Promise<Row[]> {
  assert.ok(job.downloadURL, 'a completed export has a downloadURL');
  const u = new URL(job.downloadURL);
  const res = await t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
  assert.equal(res.statusCode, 200, res.body);
  const rows = parse(res.body, { columns: true, skip_empty_lines: true }) as Row[];
  if (rows.length > 0) assert.deepEqual(Object.keys(rows[0]), [...EXPORT_COLUMNS]);
  return rows;
}

/** The From of each GetBackLinkData call made for the target since `since` calls. */
const pagesAsked = (since: number) =>
  majestic
    .calls('GetBackLinkData')
    .slice(since)
    .filter((r) => r.url.searchParams.get('item') === TARGET)
    .map((r) => Number(r.url.searchParams.get('From')));

/** Majestic's spend and calls against its daily budget (the provider ledger). */
async function majesticSpend(): Promise<{ spent: number; calls: number }> {
  const rows = await t.ctx.state.db.selectFrom('provider_spend').select(['spent', 'calls']).where('provider', '=', 'majestic').execute();
  return { spent: Math.round(rows.reduce((s, r) => s + Number(r.spent), 0) * 1e6) / 1e6, calls: rows.reduce((s, r) => s + Number(r.calls), 0) };
}

before(async () => {
  majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY);
  moz = await startFakeMoz(web, FAKE_MOZ_TOKEN);
  t = await testApp({ env: linkProviderEnv({ majestic, moz }) });
});
after(async () => {
  await t.close();
  await majestic.close();
  await moz.close();
});

describe('backlink exports in real mode', () => {
  test('suggest and the charge are the provider’s count; the worker pages through the provider, 10 rows a call, with progress', async () => {
    const c = await newLinkClient(t);
    pace(t);
    const suggested = await c.post('/exports/suggest', { url: TARGET });
    assert.equal(suggested.statusCode, 200, suggested.body);
    assert.deepEqual(suggested.json().suggestions, [{ url: TARGET, type: 'RootDomain', refDomains: LINKS, backLinks: LINKS, cost: LINKS, state: 'available' }]);
    const poolBefore = (await c.pool()).remaining;
    const calls = majestic.calls('GetBackLinkData').length;
    const created = await create(c, { url: TARGET });
    assert.equal(created.cost, LINKS);
    assert.equal((await c.pool()).remaining, poolBefore - LINKS);
    const worker = startWorker();
    try {
      const seen: ExportJob['progress'][] = [];
      const job = await finished(c, created._id, seen);
      assert.equal(job.state, 600, job.error);
      assert.deepEqual(pagesAsked(calls), [0, 10, 20], 'three pages of 10, each asked once');
      const rows = await csvOf(job);
      // The provider's rows in its order, source ← SourceURL, target ← TargetURL, anchor ← AnchorText.
      assert.deepEqual(
        rows.map((r) => [r.source, r.target, r.anchor, r.no_follow, r.deleted]),
        bigLinks.map((l) => [l.source, l.target, l.anchor, String(l.nofollow), String(l.lostOn !== null)]),
      );
      assert.equal(job.backLinks, LINKS);
      assert.ok(
        seen.every((p) => p.total === null || p.done <= p.total),
        JSON.stringify(seen),
      );
      // The pages are in the CSV now: none is kept.
      assert.equal((await t.ctx.state.db.selectFrom('export_pages').select('job_id').where('job_id', '=', job._id).execute()).length, 0);
    } finally {
      await worker.stop();
    }
  });

  test('an export stopped between pages continues on the next worker: no page bought twice, no row duplicated or lost', async () => {
    const c = await newLinkClient(t);
    const calls = majestic.calls('GetBackLinkData').length;
    const created = await create(c, { url: TARGET, filter: { liveLinks: true } });
    let stopping: Promise<void> | null = null;
    let first: RunningWorker | null = null;
    // The first worker stops as soon as the first page is stored (a shutdown or a crash between two pages).
    first = startWorker(async (done, signal) => {
      if (done === 0 || stopping) return;
      stopping = first!.stop(0);
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    });
    for (let i = 0; !stopping && i < 6000; i++) await sleep(20);
    assert.ok(stopping, 'the first worker was stopped');
    await stopping;
    assert.deepEqual(pagesAsked(calls), [0], 'stopped after the first page');
    const stored = await t.ctx.state.db.selectFrom('export_pages').select(['page', 'row_count']).where('job_id', '=', created._id).execute();
    assert.deepEqual(
      stored.map((p) => Number(p.page)),
      [0],
    );
    const midway = (await listed(c)).find((j) => j._id === created._id)!;
    assert.equal(midway.error, '');
    assert.equal(midway.progress.done, Number(stored[0].row_count), 'progress counts the rows collected');

    const second = startWorker();
    try {
      const job = await finished(c, created._id);
      assert.equal(job.state, 600, job.error);
      assert.deepEqual(pagesAsked(calls), [0, 10, 20], 'the second worker asked only the pages after the stored one');
      const rows = await csvOf(job);
      const live = bigLinks.filter((l) => l.lostOn === null);
      assert.deepEqual(
        rows.map((r) => r.source),
        live.map((l) => l.source),
      );
      assert.equal(new Set(rows.map((r) => r._id)).size, rows.length, 'no row twice');
    } finally {
      await second.stop();
    }
  });

  test('a provider failure fails the export and refunds it; the provider budget is not spent', async () => {
    const c = await newLinkClient(t);
    const created = await create(c, { url: TARGET, limit: 15 });
    const poolAfterCharge = (await c.pool()).remaining;
    assert.equal(created.cost, 15);
    const spendBefore = await majesticSpend();
    majestic.setDefault((req) =>
      req.url.searchParams.get('cmd') === 'GetBackLinkData'
        ? majesticError('InsufficientBackLinkDataUnits', 'Your subscription has no backlink data units left')
        : majesticAnswer(web, FAKE_MAJESTIC_KEY, req),
    );
    const worker = startWorker();
    try {
      const job = await finished(c, created._id);
      assert.notEqual(job.state, 600);
      assert.match(job.error, /InsufficientBackLinkDataUnits/);
      // On PostgreSQL the refund follows the failure's commit (jobQueue.ts FailureHook): it may land just after the job shows failed.
      let remaining = (await c.pool()).remaining;
      for (let i = 0; remaining !== poolAfterCharge + 15 && i < 500; i++) {
        await sleep(20);
        remaining = (await c.pool()).remaining;
      }
      assert.equal(remaining, poolAfterCharge + 15, 'refunded');
      assert.deepEqual(await majesticSpend(), spendBefore, 'the failed call is not counted against the provider budget');
      assert.equal((await t.ctx.state.db.selectFrom('export_pages').select('job_id').where('job_id', '=', job._id).execute()).length, 0);
    } finally {
      await worker.stop();
      majestic.setDefault((req) => majesticAnswer(web, FAKE_MAJESTIC_KEY, req));
    }
  });

  test('a filter on TopRank or link strength (sandbox-only figures) is refused with 422 and charges nothing', async () => {
    const c = await newLinkClient(t);
    pace(t);
    assert.equal((await c.post('/exports/suggest', { url: TARGET })).statusCode, 200);
    const before = (await c.pool()).remaining;
    for (const filter of [{ minTopRank: 1 }, { maxLinkStrength: 5 }]) {
      pace(t);
      const res = await c.post('/exports', { url: TARGET, filter });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().error.message, /filter\./);
    }
    assert.equal((await c.pool()).remaining, before);
  });
});
