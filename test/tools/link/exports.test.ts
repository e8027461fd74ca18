/**
 * Backlink exports through HTTP with a running worker (link-tool rule 3, DESIGN.md §5):
 * suggest then create, charged min(suggested cost, limit) from `links`; every filter field
 * changes the exported rows as it says; the CSV parses back and matches GET /link-tool/links;
 * states name the last finished stage (100 → 200 → 600) with progress; a failed export tells why in `error` and is
 * refunded exactly once, and an identical POST then creates a new job; the signed download (tampered → 404, job id alone → 404, after
 * 60 days → 410); another account sees none of it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, SECOND } from '../../../src/lib/clock.js';
import { startEmbeddedWorker, type RunningWorker } from '../../../src/jobs/embeddedWorker.js';
import { jobHandlers } from '../../../src/workers.js';
import { EXPORT_JOB_KIND, exportState, openExportFiles, sweepExports } from '../../../src/jobs/exportJobs.js';
import type { JobHandler } from '../../../src/jobs/worker.js';
import { EXPORT_COLUMNS } from '../../../src/tools/link/exports.js';
import { parseHexId } from '../../../src/engine/index.js';
import { newLinkClient, pace, q, spend, type LinkClient, type Res } from './helpers.js';

let t: TestApp;
let worker: RunningWorker;
/** States and progress the running handler went through, per job id. */
const observed = new Map<string, { state: number; done: number; total: number | null }[]>();

const TARGET = 'learnhub.com';
const TARGET_LINKS = 2868;
const BIG = 'openpedia.org';

/**
 * The most used two-word keyword anchor of the target's backlinks and its last word (the
 * anchors follow the sandbox's keywords, so they are read from the world, not written here).
 */
function targetAnchor(): { phrase: string; word: string } {
  const phrase = t.ctx.engine.store.raw
    .prepare(
      `SELECT l.anchor FROM links l JOIN root_domains r ON r.id = l.target_root_id
        WHERE r.domain = ? AND l.internal = 0 AND l.anchor GLOB '[a-z]* [a-z]*' AND l.anchor NOT GLOB '* * *'
        GROUP BY l.anchor ORDER BY COUNT(*) DESC, l.anchor LIMIT 1`,
    )
    .pluck()
    .get(TARGET) as string;
  return { phrase, word: phrase.split(' ')[1] };
}

type Row = Record<string, string>;
interface ExportJob {
  _id: string;
  state: number;
  error: string;
  cost: number;
  costPrediction: number;
  backLinks: number;
  progress: { done: number; total: number | null };
  request: { url: string; type: string; limit: number; filter: Record<string, unknown> };
  completedAt: number | null;
  downloadURL?: string;
  [k: string]: unknown;
}

/** The handlers of src/workers.ts, with the export handler's stage and progress calls observed. */
function observedHandlers(): Record<string, JobHandler> {
  const handlers = jobHandlers(t.ctx);
  const real = handlers[EXPORT_JOB_KIND];
  const record = async (id: string) => {
    const job = (await t.ctx.jobs.byId(id))!;
    const list = observed.get(id) ?? [];
    list.push({ state: exportState(job), done: job.progress.done, total: job.progress.total });
    observed.set(id, list);
  };
  handlers[EXPORT_JOB_KIND] = {
    ...real,
    run: (ctx) =>
      real.run({
        ...ctx,
        stage: async (name) => {
          await ctx.stage(name);
          await record(ctx.job.id);
        },
        progress: async (done, total) => {
          await ctx.progress(done, total);
          await record(ctx.job.id);
        },
      }),
  };
  return handlers;
}

const startWorker = () => startEmbeddedWorker(t.ctx, { handlers: observedHandlers(), queue: t.ctx.jobs, pollIntervalMs: 20 });

async function suggest(
  c: LinkClient,
  url: string,
): Promise<{ suggestedType: string; suggestions: { url: string; type: string; refDomains: number; backLinks: number; cost: number; state: string }[] }> {
  const res = await c.post('/exports/suggest', { url });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function create(c: LinkClient, body: Record<string, unknown>): Promise<ExportJob> {
  pace(t);
  const res = await c.post('/exports', body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Makes a queued export's target unresolvable, through the state store (SQLite or PostgreSQL). */
async function unresolvableTarget(jobId: string): Promise<void> {
  const db = t.ctx.state.db;
  const { payload } = await db.selectFrom('jobs').select('payload').where('id', '=', jobId).executeTakeFirstOrThrow();
  const job = JSON.parse(payload) as { request: { url: string } };
  job.request.url = 'not a domain';
  await db
    .updateTable('jobs')
    .set({ payload: JSON.stringify(job) })
    .where('id', '=', jobId)
    .execute();
}

async function listed(c: LinkClient): Promise<ExportJob[]> {
  const res = await c.get('/exports');
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls GET /link-tool/exports until the job is done (600) or failed (`error` set). */
async function finished(c: LinkClient, id: string, timeoutMs = 20_000): Promise<ExportJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await listed(c)).find((j) => j._id === id);
    assert.ok(job, `job ${id} is listed`);
    if (job.state === 600 || job.error !== '') return job;
    if (Date.now() > deadline) assert.fail(`job ${id} still in state ${job.state}`);
    await sleep(20);
  }
}

/** GET of a signed download URL (absolute, on the public base) through the app. */
function download(url: string): Promise<Res> {
  const u = new URL(url);
  return t.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
}

async function csvOf(job: ExportJob): Promise<Row[]> {
  assert.ok(job.downloadURL, 'a completed export has a downloadURL');
  const res = await download(job.downloadURL);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  const rows = parse(res.body, { columns: true, skip_empty_lines: true }) as Row[];
  if (rows.length > 0) assert.deepEqual(Object.keys(rows[0]), [...EXPORT_COLUMNS]);
  return rows;
}

/** Suggest, create, wait, download. */
async function exportRows(c: LinkClient, body: Record<string, unknown>): Promise<{ job: ExportJob; rows: Row[] }> {
  await suggest(c, String(body.url));
  const created = await create(c, body);
  const job = await finished(c, created._id);
  assert.equal(job.state, 600, `export ${JSON.stringify(body)} failed: ${job.error}`);
  return { job, rows: await csvOf(job) };
}

const topRankOf = (domainId: string): number => t.ctx.engine.links.metricsOf(2, parseHexId(domainId))!.top_rank;
const bool = (v: string) => v === 'true';

describe('link tool: exports', () => {
  before(async () => {
    t = await testApp();
    worker = startWorker();
  });
  after(async () => {
    await worker.stop();
    await t.close();
  });

  test('suggest answers the export targets with counts and cost; creating without a suggestion is 422 and charges nothing', async () => {
    const c = await newLinkClient(t);
    const before = (await c.pool()).remaining;
    const refused = await c.post('/exports', { url: TARGET });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.deepEqual(refused.json(), { error: { type: 'InvalidInput', message: 'Parameter url is invalid' } });
    const body = await suggest(c, 'https://www.learnhub.com/support/student-loans');
    assert.equal(body.suggestedType, 'URL');
    const byType = Object.fromEntries(body.suggestions.map((s) => [s.type, s]));
    assert.equal(byType.RootDomain.url, TARGET);
    assert.equal(byType.RootDomain.backLinks, TARGET_LINKS);
    for (const s of body.suggestions) {
      assert.equal(s.cost, s.backLinks);
      assert.equal(s.state, 'available');
      assert.ok(Number.isInteger(s.refDomains));
    }
    // A suggestion for one URL does not unlock another.
    pace(t);
    assert.equal((await c.post('/exports', { url: 'cleanbot.fr' })).statusCode, 422);
    // A suggestion older than 24 hours no longer counts.
    t.clock.advance(DAY + SECOND);
    pace(t);
    assert.equal((await c.post('/exports', { url: TARGET })).statusCode, 422);
    assert.equal((await c.pool()).remaining, before, 'refusals charge nothing');
  });

  test('omitted limit charges the full suggested cost; a limit charges min(cost, limit) and caps the rows', async () => {
    const c = await newLinkClient(t);
    const start = (await c.pool()).remaining;
    await suggest(c, TARGET);
    const full = await create(c, { url: TARGET });
    assert.equal(full.cost, TARGET_LINKS);
    assert.equal(full.costPrediction, TARGET_LINKS);
    assert.equal(full.request.limit, TARGET_LINKS);
    assert.equal((await c.pool()).remaining, start - TARGET_LINKS);
    const capped = await create(c, { url: TARGET, limit: 1000 });
    assert.equal(capped.cost, 1000);
    assert.equal((await c.pool()).remaining, start - TARGET_LINKS - 1000);
    const over = await create(c, { url: TARGET, limit: 1_000_000 });
    assert.equal(over.cost, TARGET_LINKS, 'a limit above the cost charges the cost');
    assert.equal((await c.pool()).remaining, start - 2 * TARGET_LINKS - 1000);
    const cappedDone = await finished(c, capped._id);
    assert.equal(cappedDone.state, 600);
    assert.equal(cappedDone.backLinks, 1000);
    assert.equal((await csvOf(cappedDone)).length, 1000);
    const fullDone = await finished(c, full._id);
    assert.equal((await csvOf(fullDone)).length, TARGET_LINKS);
    await finished(c, over._id);
    assert.equal((await c.pool()).remaining, start - 2 * TARGET_LINKS - 1000, 'the worker never charges');
  });

  test('a pool smaller than the cost answers 429 CreditLimit and creates no job; a limit that fits is accepted', async () => {
    const c = await newLinkClient(t, 'entry');
    await spend(t, c.id, (await c.pool()).remaining - 500, 'links', 'entry');
    await suggest(c, TARGET);
    pace(t);
    const refused = await c.post('/exports', { url: TARGET });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.type, 'CreditLimit');
    assert.equal(refused.headers['retry-after'], undefined);
    assert.deepEqual(await listed(c), []);
    assert.equal((await c.pool()).remaining, 500);
    const fits = await create(c, { url: TARGET, limit: 500 });
    assert.equal(fits.cost, 500);
    assert.equal((await c.pool()).remaining, 0);
    assert.equal((await finished(c, fits._id)).backLinks, 500);
  });

  test('states name the last finished stage, 100 → 200 → 600, with progress; the done job carries counts, completedAt and downloadURL', async () => {
    const c = await newLinkClient(t);
    await suggest(c, BIG);
    const created = await create(c, { url: BIG });
    assert.equal(created.state, 100);
    assert.equal(created.error, '');
    assert.deepEqual(created.progress, { done: 0, total: null });
    assert.equal(created.completedAt, null);
    assert.equal(created.downloadURL, undefined);
    assert.equal(created.jobName, `RootDomain ${BIG}`);
    assert.equal(created.creator, c.id);
    const job = await finished(c, created._id);
    assert.equal(job.state, 600);
    const seen = observed.get(job._id)!;
    const states = seen.map((s) => s.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);
    // The observer reads the job after each stage or progress call; on PostgreSQL the read of
    // the last call can land after the job finished and see 600, which is not a state of the run.
    if (states.at(-1) === 600) states.pop();
    assert.deepEqual(states, [100, 200], 'collecting (nothing finished yet), then links collected while the rows are written');
    const writing = seen.filter((s) => s.state === 200);
    assert.ok(
      writing.every((s, i) => i === 0 || s.done >= writing[i - 1].done),
      'progress only grows',
    );
    assert.deepEqual(job.progress, { done: 5942, total: 5942 });
    assert.equal(job.backLinks, 5942);
    assert.ok(Number.isInteger(job.completedAt) && job.completedAt! >= (job.createdAt as number));
    assert.match(job.downloadURL!, /^http:\/\/quarry\.test\/downloads\/[0-9a-f]+\?expires=\d+&sig=[0-9a-f]+$/);
    const stats = job.stats as Record<string, unknown>;
    for (const k of ['fresh', 'historic', 'duplicates', 'filtered']) assert.ok(Number.isInteger(stats[k]), `stats.${k}`);
    assert.equal((stats.fresh as number) + (stats.historic as number), 5942);
  });

  test('the CSV parses back and matches GET /link-tool/links: same ids in the same order, same values', async () => {
    const c = await newLinkClient(t);
    const { rows } = await exportRows(c, { url: BIG });
    assert.equal(rows.length, 5942);
    assert.equal(new Set(rows.map((r) => r._id)).size, rows.length, 'no duplicate rows');
    pace(t);
    const page0 = (await c.get(`/links?${q({ url: BIG, source: 0, page: 0, links_per_domain: 0 })}`)).json().links as Record<string, unknown>[];
    pace(t);
    const page1 = (await c.get(`/links?${q({ url: BIG, source: 0, page: 1, links_per_domain: 0 })}`)).json().links as Record<string, unknown>[];
    const api = [...page0, ...page1];
    assert.deepEqual(
      rows.slice(0, 1000).map((r) => r._id),
      api.map((l) => l._id),
    );
    for (let i = 0; i < api.length; i++) {
      for (const col of EXPORT_COLUMNS) {
        const v = api[i][col];
        // The CSV keeps the alt text; the API tells only whether there is one (the reference's boolean).
        if (col === 'alt') assert.equal(rows[i].alt !== '', v, `row ${i} column alt`);
        else assert.equal(rows[i][col], v === null ? '' : String(v), `row ${i} column ${col}`);
      }
    }
  });

  test('the CSV is byte for byte what csv-stringify wrote for the same backlinks read page by page (columns, order, quoting, values)', async () => {
    const c = await newLinkClient(t);
    for (const [url, filter] of [
      [BIG, {}],
      [TARGET, { linksPerDomain: 1, noFollow: false }],
      [TARGET, { targetAnchorText: targetAnchor().word, minTopRank: 10 }],
    ] as const) {
      const { job } = await exportRows(c, { url, filter });
      const body = (await download(job.downloadURL!)).body;
      const items = t.ctx.engine.links.backlinks(url, filter, { offset: 0, limit: 1_000_000 })!.links;
      const expected = stringify(items, { header: true, columns: [...EXPORT_COLUMNS], cast: { boolean: (v) => (v ? 'true' : 'false') } });
      assert.ok(items.length > 0, `${url} ${JSON.stringify(filter)}: some rows`);
      assert.equal(body, expected, `${url} ${JSON.stringify(filter)}`);
    }
  });

  test('every filter field changes the exported rows as it says', async () => {
    const c = await newLinkClient(t);
    const all = (await exportRows(c, { url: TARGET })).rows;
    assert.equal(all.length, TARGET_LINKS);
    const anchor = targetAnchor();
    const checks: { filter: Record<string, unknown>; ok: (r: Row) => boolean; unique?: boolean }[] = [
      // Matched without regard to case.
      { filter: { targetAnchorText: anchor.phrase.toUpperCase() }, ok: (r) => `${r.anchor} ${r.alt}`.toLowerCase().includes(anchor.phrase) },
      { filter: { targetHrefText: '/Support/' }, ok: (r) => r.target.toLowerCase().includes('/support/') },
      { filter: { linkType: 'image' }, ok: (r) => r.type === 'image' && bool(r.image) },
      { filter: { noFollow: true }, ok: (r) => bool(r.no_follow) },
      { filter: { noFollow: false }, ok: (r) => !bool(r.no_follow) },
      { filter: { liveLinks: true }, ok: (r) => !bool(r.deleted) },
      { filter: { minCitationFlow: 30 }, ok: (r) => Number(r.source_cf) >= 30 },
      { filter: { maxCitationFlow: 10 }, ok: (r) => Number(r.source_cf) <= 10 },
      { filter: { minTrustFlow: 20, maxTrustFlow: 60 }, ok: (r) => Number(r.source_tf) >= 20 && Number(r.source_tf) <= 60 },
      { filter: { minTopRank: 100 }, ok: (r) => topRankOf(r.domainId) >= 100 },
      { filter: { maxTopRank: 100 }, ok: (r) => topRankOf(r.domainId) <= 100 },
      { filter: { minLinkStrength: 3 }, ok: (r) => Number(r.ls) >= 3 },
      { filter: { maxLinkStrength: 1 }, ok: (r) => Number(r.ls) <= 1 },
      { filter: { flagTextLink: true }, ok: (r) => r.type === 'text' },
      { filter: { flagImageLink: true }, ok: (r) => r.type === 'image' },
      { filter: { flagFrameLink: true }, ok: (r) => r.type === 'frame' && bool(r.frame) },
      { filter: { flagRedirectLink: true }, ok: (r) => r.type === 'redirect' && bool(r.redirect) },
      { filter: { flagMentionLink: true }, ok: (r) => r.type === 'mention' },
      { filter: { flagFrameLink: true, flagRedirectLink: true }, ok: (r) => r.type === 'frame' || r.type === 'redirect' },
      { filter: { linksPerDomain: 1 }, ok: () => true, unique: true },
      { filter: { linksPerDomain: 1, noFollow: false }, ok: (r) => !bool(r.no_follow), unique: true },
    ];
    const ids = new Set(all.map((r) => r._id));
    for (const { filter, ok, unique } of checks) {
      const { job, rows } = await exportRows(c, { url: TARGET, filter });
      const label = JSON.stringify(filter);
      assert.deepEqual(job.request.filter, filter, `${label}: the job shows its filter`);
      assert.ok(rows.length > 0, `${label}: some rows match`);
      assert.ok(rows.length < all.length, `${label}: fewer rows than unfiltered (${rows.length})`);
      assert.equal(job.backLinks, rows.length);
      const bad = rows.filter((r) => !ok(r));
      assert.equal(bad.length, 0, `${label}: ${bad.length} rows break the filter, e.g. ${JSON.stringify(bad[0])}`);
      assert.ok(
        rows.every((r) => ids.has(r._id)),
        `${label}: rows come from the unfiltered export`,
      );
      // Rows the filter excluded really fail it (the filter is exact, not a sample).
      const kept = new Set(rows.map((r) => r._id));
      if (!unique) assert.equal(all.filter(ok).length, rows.length, `${label}: every matching row is exported`);
      else {
        assert.equal(new Set(rows.map((r) => r.domainId)).size, rows.length, `${label}: one link per referring domain`);
        assert.equal(rows.length, new Set(all.filter(ok).map((r) => r.domainId)).size, `${label}: every referring domain once`);
        assert.ok(all.filter((r) => kept.has(r._id)).length === rows.length);
      }
    }
  });

  test('a failed export keeps the stage it reached and tells why in error; its charge is refunded exactly once', async () => {
    const c = await newLinkClient(t);
    const start = (await c.pool()).remaining;
    await worker.stop();
    try {
      await suggest(c, TARGET);
      const created = await create(c, { url: TARGET, limit: 777 });
      assert.equal((await c.pool()).remaining, start - 777);
      // The target can no longer be resolved when the worker runs the job.
      await unresolvableTarget(created._id);
      worker = startWorker();
      // An unresolvable target is a permanent failure: no retry back-off, one attempt.
      const job = await finished(c, created._id);
      assert.equal(job.state, 100, 'no stage finished: it failed collecting');
      assert.match(job.error, /cannot be resolved/, 'the failure is told by error');
      assert.equal((await t.ctx.jobs.byId(created._id))!.attempts, 1);
      assert.equal(job.downloadURL, undefined);
      assert.equal((await c.pool()).remaining, start, 'refunded');
      // Nothing refunds it again: more polls, a sweep, time passing.
      t.clock.advance(10 * 60 * SECOND);
      await sweepExports(t.ctx.jobs, openExportFiles(t.ctx.state, t.ctx.config.dataDir));
      void worker.worker.poll();
      await sleep(100);
      assert.equal((await c.pool()).remaining, start, 'refunded exactly once');
      assert.equal((await t.ctx.jobs.byId(created._id))!.state, 'failed');
    } finally {
      await worker.stop();
      worker = startWorker();
    }
  });

  test('an identical POST after a failed (refunded) export creates a new job and is charged again', async () => {
    const c = await newLinkClient(t);
    const start = (await c.pool()).remaining;
    const body = { url: TARGET, limit: 555 };
    await worker.stop();
    try {
      await suggest(c, TARGET);
      const first = await create(c, body);
      // Within 24 hours an identical POST answers the same job, not charged again.
      assert.equal((await create(c, body))._id, first._id);
      assert.equal((await c.pool()).remaining, start - 555);
      await unresolvableTarget(first._id);
      worker = startWorker();
      assert.notEqual((await finished(c, first._id)).error, '');
      assert.equal((await c.pool()).remaining, start, 'refunded');
      const second = await create(c, body);
      assert.notEqual(second._id, first._id, 'a new job');
      assert.equal((await c.pool()).remaining, start - 555, 'charged again');
      assert.equal((await finished(c, second._id)).state, 600);
      // The new job's answer is cached as usual.
      assert.equal((await create(c, body))._id, second._id);
      assert.equal((await c.pool()).remaining, start - 555);
      assert.deepEqual(
        (await listed(c)).map((j) => j._id),
        [second._id, first._id],
      );
    } finally {
      await worker.stop();
      worker = startWorker();
    }
  });

  test('downloads: the signed URL needs no key; a tampered signature, expiry or path, or the job id alone → 404', async () => {
    const a = await newLinkClient(t);
    const { job } = await exportRows(a, { url: TARGET, filter: { linkType: 'frame' } });
    const url = new URL(job.downloadURL!);
    const path = url.pathname;
    const sig = url.searchParams.get('sig')!;
    const expires = url.searchParams.get('expires')!;
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('0') ? '1' : '0');
    const cases = [
      `${path}?expires=${expires}&sig=${flip(sig)}`,
      `${path}?expires=${Number(expires) + 1}&sig=${sig}`,
      `${path}?expires=${expires}`,
      path,
      `${path}?sig=${sig}`,
      `/downloads/${flip(job._id)}?expires=${expires}&sig=${sig}`,
    ];
    for (const bad of cases) {
      const res = await t.app.inject({ method: 'GET', url: bad });
      assert.equal(res.statusCode, 404, `${bad}: ${res.body}`);
      assert.equal(res.json().error.type, 'Error');
    }
    // A key does not stand in for the signature.
    const withKey = await t.app.inject({ method: 'GET', url: path, headers: { 'x-access-token': a.key } });
    assert.equal(withKey.statusCode, 404);
    assert.equal((await download(job.downloadURL!)).statusCode, 200);
  });

  test('isolation: another account sees none of the jobs and cannot download without the URL it was not given', async () => {
    const a = await newLinkClient(t);
    const b = await newLinkClient(t);
    const { job } = await exportRows(a, { url: TARGET, filter: { linkType: 'mention' } });
    assert.deepEqual(await listed(b), []);
    const { job: own } = await exportRows(b, { url: TARGET, filter: { linkType: 'redirect' } });
    assert.deepEqual(
      (await listed(b)).map((j) => j._id),
      [own._id],
    );
    assert.ok(!(await listed(a)).some((j) => j._id === own._id));
    // B's own valid signature does not open A's job.
    const mine = new URL(own.downloadURL!);
    const swapped = `/downloads/${job._id}${mine.search}`;
    assert.equal((await t.app.inject({ method: 'GET', url: swapped, headers: { 'x-access-token': b.key } })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/downloads/${job._id}`, headers: { 'x-access-token': b.key } })).statusCode, 404);
  });

  // Last: it moves the clock 60 days.
  test('60 days after completion the sweep expires the export: 600, no downloadURL, the old URL answers 410', async () => {
    const c = await newLinkClient(t);
    const { job } = await exportRows(c, { url: TARGET, filter: { minLinkStrength: 8 } });
    t.clock.advance(60 * DAY - 60 * SECOND);
    assert.equal((await download(job.downloadURL!)).statusCode, 200, 'still there just before 60 days');
    t.clock.advance(2 * 60 * SECOND);
    const { expired } = await sweepExports(t.ctx.jobs, openExportFiles(t.ctx.state, t.ctx.config.dataDir));
    assert.ok(expired >= 1);
    const res = await download(job.downloadURL!);
    assert.equal(res.statusCode, 410, res.body);
    assert.equal(res.json().error.type, 'Expired');
    const after = (await listed(c)).find((j) => j._id === job._id)!;
    assert.equal(after.state, 600);
    assert.equal(after.downloadURL, undefined);
  });
});
