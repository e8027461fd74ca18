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
import type { TestApp } from '../../support/app.js';
import type { RunningWorker } from '../../../src/jobs/embeddedWorker.js';
import { FAKE_MAJESTIC_KEY, majesticAnswer, majesticError, type FakeLink, type FakeLinkWeb, type FakeMajestic } from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newLinkClient, pace, type LinkClient } from './helpers.js';
import { createExport, csvOf, finished, listed, startExportWorker, stopAfterFirstPage, type ExportJob, type OnProgress } from './realExportHelpers.js';

const TARGET = 'bigbrew.com';
const LINKS = 23;
const PAGE_ROWS = 10;

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

let real: RealMode;
let web: FakeLinkWeb;
let majestic: FakeMajestic;
let t: TestApp;

const startWorker = (onProgress?: OnProgress): RunningWorker => startExportWorker(t, PAGE_ROWS, onProgress);
const create = (c: LinkClient, body: Record<string, unknown>) => createExport(t, c, body);

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
  real = await startRealMode({ links: 'majestic' });
  ({ web, t } = real);
  majestic = real.majestic!;
  web.items[TARGET] = { ...web.items['peets.com'], ExtBackLinks: LINKS, RefDomains: LINKS };
  web.links.push(...bigLinks);
});
after(async () => real.close());

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
      const rows = await csvOf(t, job);
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
    // The first worker stops as soon as the first page is stored (a shutdown or a crash between two pages).
    await stopAfterFirstPage(startWorker);
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
      const rows = await csvOf(t, job);
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
