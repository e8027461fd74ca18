/**
 * `quarry import search-console` on small files written here in Search Console's own
 * formats: the Performance report's Queries CSV (totals over a period), its ZIP export
 * (Queries.csv with the period from Dates.csv), a dated CSV, and Search Analytics API
 * answers (one JSON answer; gzip JSON Lines of paged answers). Checks the rank checks and
 * visits the tracking gets, that Quarry's own SERP checks keep their position, that rows of
 * one query and day add up, resuming after an interruption, and a file not imported twice.
 */
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { openConfiguredStateStore, type StateStore } from '../../src/store/database.js';
import { runQuarry } from '../support/cli.js';
import { createTestDatabase, scaleMode, testStateStore } from '../support/postgres.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { RankTrackingStore } from '../../src/store/rankTracking.js';
import { importSearchConsole, parseApiRow, parsePeriod, periodDays } from '../../src/rank/searchConsoleImport.js';
import { trackingStats } from '../../src/rank/rankStats.js';
import { ImportError } from '../../src/engine/import/importError.js';

const NOW = Date.UTC(2026, 10, 20, 12);
let dir: string;
let state: StateStore;
let trackingId: string;
let keywordIds: Map<string, string>;

async function writeZip(file: string, entries: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text, 'utf8'), name);
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
}

/** The tracking's rank checks by day and keyword. */
function checks() {
  return state.db
    .selectFrom('rank_checks as c')
    .innerJoin('rank_tracked_keywords as k', 'k.id', 'c.keyword_id')
    .select(['k.kw', 'c.day', 'c.position', 'c.url', 'c.clicks', 'c.impressions', 'c.source'])
    .where('c.tracking_id', '=', trackingId)
    .orderBy('c.day')
    .orderBy('k.kw')
    .execute();
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-gsc-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

afterEach(async () => {
  await state.close();
});

beforeEach(async () => {
  // On PostgreSQL under npm run test:scale (a database of its own per test).
  state = await testStateStore();
  const store = new RankTrackingStore(state.db);
  const [created] = await store.createTrackings(
    'acc1',
    [{ domain: 'example.com', locationId: 2840, platformId: 1 }],
    [
      { kw: 'blue widgets', sv: 1000 },
      { kw: 'red widgets', sv: 500 },
      { kw: 'widget shop', sv: 200 },
    ],
    { limit: 100, nowSec: NOW / 1000, nowMs: NOW, email: 'a@example.com' },
  );
  trackingId = created.tracking.id;
  keywordIds = new Map(created.keywords.map((k) => [k.kw, k.id]));
});

describe('parsing', () => {
  test('periods and API rows', () => {
    assert.deepEqual(parsePeriod('2026-10-01..2026-10-28'), { from: '2026-10-01', to: '2026-10-28' });
    assert.equal(periodDays(parsePeriod('2026-10-01..2026-10-28')), 28);
    assert.deepEqual(parsePeriod('2026-10-05'), { from: '2026-10-05', to: '2026-10-05' });
    assert.throws(() => parsePeriod('2026-10-28..2026-10-01'), ImportError);
    assert.throws(() => parsePeriod('2026-02-30'), ImportError);
    const row = { keys: ['2026-11-01', 'blue widgets', 'https://example.com/a', 'MOBILE'], clicks: 3, impressions: 40, ctr: 0.075, position: 2.5 };
    assert.deepEqual(parseApiRow(row), { query: 'blue widgets', day: '2026-11-01', page: 'https://example.com/a', clicks: 3, impressions: 40, position: 2.5 });
    assert.throws(() => parseApiRow({ keys: ['blue widgets', 'usa'], clicks: 1, impressions: 2, ctr: 0.5, position: 1 }), /--dimensions/);
    assert.equal(parseApiRow({ keys: ['blue widgets', 'usa'], clicks: 1, impressions: 2, ctr: 0.5, position: 1 }, ['query', 'country'])?.query, 'blue widgets');
    assert.equal(parseApiRow({ keys: ['2026-11-01'], clicks: 1, impressions: 2, ctr: 0.5, position: 1 }), null, 'site totals name no query');
  });
});

describe('quarry import search-console', () => {
  test('the Queries CSV of the Performance report: one check per tracked query on the last day, with mean daily clicks', async () => {
    const file = path.join(dir, 'Queries.csv');
    fs.writeFileSync(
      file,
      '\uFEFFTop queries,Clicks,Impressions,CTR,Position\n' +
        'blue widgets,30,1000,3%,4.4\n' +
        'Red  Widgets,0,50,0%,120.3\n' +
        'cheap widgets,5,10,50%,1\n' +
        '"widget shop, london",1,2,50%,3\n',
    );
    await assert.rejects(importSearchConsole(file, { db: state.db, trackingId, now: () => NOW }), /--period/);
    const r = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW, period: parsePeriod('2026-10-01..2026-10-10'), restart: true });
    assert.equal(r.format, 'csv');
    assert.equal(r.rows, 4);
    assert.equal(r.matched, 2);
    assert.equal(r.untracked, 2);
    assert.equal(r.checksCreated, 2);
    assert.deepEqual(await checks(), [
      { kw: 'blue widgets', day: '2026-10-10', position: 4, url: null, clicks: 3, impressions: 100, source: 'search-console' },
      // Past 100 the rank tool counts a keyword as not ranking.
      { kw: 'red widgets', day: '2026-10-10', position: null, url: null, clicks: 0, impressions: 5, source: 'search-console' },
    ]);
    const again = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW, period: parsePeriod('2026-10-01..2026-10-10') });
    assert.equal(again.alreadyImported, true);
  });

  test('the report ZIP: the period comes from its Dates sheet', async () => {
    const file = path.join(dir, 'example.com-Performance-on-Search-2026-11-20.zip');
    await writeZip(file, {
      'Queries.csv': 'Top queries,Clicks,Impressions,CTR,Position\nblue widgets,70,2000,3.5%,2.6\nwidget shop,7,70,10%,9\n',
      'Pages.csv': 'Top pages,Clicks,Impressions,CTR,Position\nhttps://example.com/,77,2070,3.72%,2.8\n',
      'Dates.csv':
        'Date,Clicks,Impressions,CTR,Position\n2026-11-07,10,300,3.33%,2.5\n' + '2026-11-06,11,290,3.79%,2.7\n'.repeat(1) + '2026-11-01,9,280,3.21%,2.9\n',
      'Filters.csv': 'Filter,Value\nSearch type,Web\nDate,Last 7 days\n',
    });
    const r = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW });
    assert.equal(r.format, 'zip');
    assert.deepEqual(r.period, { from: '2026-11-01', to: '2026-11-07' });
    assert.deepEqual(
      (await checks()).map((c) => [c.kw, c.day, c.position, c.clicks]),
      [
        ['blue widgets', '2026-11-07', 3, 10],
        ['widget shop', '2026-11-07', 9, 1],
      ],
    );
    // The day's visits are the measured clicks, not the click-through estimate.
    const stats = await trackingStats(state.db, { id: trackingId }, { from: '2026-11-01', to: '2026-11-30' });
    assert.equal(stats.timeframes['2026-11-07'].estimated_visits, 11);
    assert.equal(stats.timeframes['2026-11-07'].keywords_with_history, 2);
  });

  test('a dated CSV: one check per query and day; a SERP check keeps its position and gains the clicks', async () => {
    await state.db
      .insertInto('rank_checks')
      .values({
        keyword_id: keywordIds.get('blue widgets')!,
        day: '2026-11-02',
        tracking_id: trackingId,
        position: 7,
        url: 'https://example.com/blue',
        visual: null,
        features: '["ads"]',
        serp_snapshot_id: 'snap1',
        checked_ms: NOW,
      })
      .execute();
    const file = path.join(dir, 'dated.csv');
    fs.writeFileSync(
      file,
      'Date,Query,Landing page,Clicks,Impressions,CTR,Position\n' +
        '2026-11-01,blue widgets,https://example.com/blue,4,100,4%,3.2\n' +
        '2026-11-02,blue widgets,https://example.com/blue,5,120,4.2%,3.0\n' +
        '2026-11-02,widget shop,https://other.example/x,1,9,11%,12.6\n' +
        'not a day,widget shop,,1,9,11%,12.6\n',
    );
    const r = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW });
    assert.equal(r.skipped, 1);
    assert.equal(r.checksCreated, 2);
    assert.equal(r.checksUpdated, 1);
    assert.deepEqual(await checks(), [
      { kw: 'blue widgets', day: '2026-11-01', position: 3, url: 'https://example.com/blue', clicks: 4, impressions: 100, source: 'search-console' },
      { kw: 'blue widgets', day: '2026-11-02', position: 7, url: 'https://example.com/blue', clicks: 5, impressions: 120, source: null },
      // A page on another domain is not the tracking's URL.
      { kw: 'widget shop', day: '2026-11-02', position: 13, url: null, clicks: 1, impressions: 9, source: 'search-console' },
    ]);
    const stats = await trackingStats(state.db, { id: trackingId }, { from: '2026-11-01', to: '2026-11-02' });
    assert.equal(stats.timeframes['2026-11-02'].estimated_visits, 6);
  });

  test('an API answer: rows of one query and day (per page) add up, positions weighted by impressions', async () => {
    const file = path.join(dir, 'answer.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          rows: [
            { keys: ['blue widgets', '2026-11-03', 'https://example.com/a'], clicks: 6, impressions: 300, ctr: 0.02, position: 2 },
            { keys: ['blue widgets', '2026-11-03', 'https://www.example.com/b'], clicks: 2, impressions: 100, ctr: 0.02, position: 6 },
            { keys: ['red widgets', '2026-11-03', 'https://example.com/r'], clicks: 0, impressions: 10, ctr: 0, position: 40.2 },
            { keys: ['something else', '2026-11-03', 'https://example.com/s'], clicks: 1, impressions: 1, ctr: 1, position: 1 },
          ],
          responseAggregationType: 'byPage',
        },
        null,
        2,
      ),
    );
    const r = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW });
    assert.equal(r.format, 'json');
    assert.equal(r.rows, 4);
    assert.equal(r.matched, 3);
    assert.deepEqual(
      (await checks()).map((c) => [c.kw, c.day, c.position, c.url, c.clicks, c.impressions]),
      [
        ['blue widgets', '2026-11-03', 3, 'https://www.example.com/b', 8, 400],
        ['red widgets', '2026-11-03', 40, 'https://example.com/r', 0, 10],
      ],
    );
    // Imported again from its start, the file replaces its figures rather than adding to them.
    await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW, restart: true });
    assert.equal((await checks())[0].clicks, 8);
  });

  test('gzip JSON Lines of paged answers with named dimensions, resumed after an interruption', async () => {
    const file = path.join(dir, 'pages.jsonl.gz');
    const days = Array.from({ length: 20 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);
    const page = (slice: string[]) =>
      JSON.stringify({
        rows: slice.flatMap((day, i) => [
          { keys: [day, 'blue widgets'], clicks: i + 1, impressions: 100, ctr: 0.01, position: 1 + i / 10 },
          { keys: [day, 'usa'], clicks: 1, impressions: 1, ctr: 1, position: 1 },
        ]),
      });
    fs.writeFileSync(file, zlib.gzipSync(`${page(days.slice(0, 10))}\n${page(days.slice(10))}\n`));
    const controller = new AbortController();
    let batches = 0;
    await assert.rejects(
      importSearchConsole(file, {
        db: state.db,
        trackingId,
        now: () => NOW,
        dimensions: ['date', 'query'],
        batchSize: 7,
        signal: controller.signal,
        onProgress: () => {
          if (++batches === 2) controller.abort(new Error('interrupted'));
        },
      }),
      /interrupted/,
    );
    const partial = (await checks()).length;
    assert.ok(partial > 0 && partial < 20, `some checks were committed before the interruption (${partial})`);
    const r = await importSearchConsole(file, { db: state.db, trackingId, now: () => NOW, dimensions: ['date', 'query'], batchSize: 7 });
    assert.equal(r.resumedFrom, 14);
    assert.equal(r.rows, 40 - 14);
    const all = await checks();
    assert.equal(all.length, 20);
    assert.deepEqual(
      all.map((c) => c.clicks),
      days.map((_, i) => (i % 10) + 1),
    );
    assert.deepEqual(await state.db.selectFrom('search_console_written').selectAll().execute(), [], 'resume state is cleared when done');
  });

  test('wrong inputs say what is wrong', async () => {
    const file = path.join(dir, 'Dates.csv');
    fs.writeFileSync(file, 'Date,Clicks,Impressions,CTR,Position\n2026-11-01,1,2,50%,3\n');
    await assert.rejects(importSearchConsole(file, { db: state.db, trackingId }), /query column/);
    await assert.rejects(importSearchConsole(file, { db: state.db, trackingId: 'nope' }), /no rank tracking nope/);
    const zip = path.join(dir, 'other.zip');
    await writeZip(zip, { 'Pages.csv': 'Top pages,Clicks,Impressions,CTR,Position\n' });
    await assert.rejects(importSearchConsole(zip, { db: state.db, trackingId }), /Queries\.csv/);
  });

  test('issue 24: a truncated export writes no check, however many whole rows come before the cut', async () => {
    const before = await checks();
    const rows = Array.from({ length: 200 }, (_, i) => ({
      keys: [`2026-09-${String((i % 28) + 1).padStart(2, '0')}`, 'blue widgets'],
      clicks: 1,
      impressions: 10,
      position: 2,
    }));
    const whole = zlib.gzipSync(`${JSON.stringify({ rows })}\n`);
    const file = path.join(dir, 'cut.json.gz');
    fs.writeFileSync(file, whole.subarray(0, whole.length - 40));
    await assert.rejects(
      importSearchConsole(file, { db: state.db, trackingId, now: () => NOW, dimensions: ['date', 'query'], batchSize: 5 }),
      (e: unknown) => e instanceof ImportError && /nothing was imported/.test(e.message),
    );
    const csv = path.join(dir, 'links-not-gsc.csv');
    fs.writeFileSync(csv, 'Source URL,Target URL\nhttps://a.example/,https://b.example/\n');
    await assert.rejects(importSearchConsole(csv, { db: state.db, trackingId }), /not a Search Console queries export/);
    assert.deepEqual(await checks(), before);
    assert.deepEqual(await state.db.selectFrom('search_console_imports').select('id').where('status', '=', 'running').execute(), [], 'no run left to resume');
  });
});

describe('the quarry import search-console command', () => {
  test('writes into the service’s state store: the data directory’s SQLite file, or PostgreSQL at QUARRY_DATABASE_URL (test:scale)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-gsc-cli-'));
    const database = scaleMode ? await createTestDatabase() : null;
    const env: Record<string, string> = {
      QUARRY_DATA_DIR: dataDir,
      ...(database ? { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL } : {}),
    };
    const service = await openConfiguredStateStore({ dataDir, databaseUrl: database?.url ?? null });
    try {
      const [created] = await new RankTrackingStore(service.db).createTrackings(
        'acc1',
        [{ domain: 'example.com', locationId: 2840, platformId: 1 }],
        [{ kw: 'blue widgets', sv: 1000 }],
        { limit: 100, nowSec: NOW / 1000, nowMs: NOW, email: 'a@example.com' },
      );
      const file = path.join(dataDir, 'dated.csv');
      fs.writeFileSync(file, 'Date,Query,Clicks,Impressions,Position\n2026-11-03,blue widgets,8,400,3.2\n2026-11-03,other,1,2,9\n');
      const res = runQuarry(['import', 'search-console', file, '--tracking', created.tracking.id], env);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /2 rows, 1 of tracked keywords \(1 checks added/);
      const rows = await service.db.selectFrom('rank_checks').select(['day', 'position', 'clicks', 'impressions', 'source']).execute();
      assert.deepEqual(rows, [{ day: '2026-11-03', position: 3, clicks: 8, impressions: 400, source: 'search-console' }]);
    } finally {
      await service.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
