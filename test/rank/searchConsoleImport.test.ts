/**
 * `quarry import search-console` on small files written here in Search Console's own
 * formats: the Performance report's Queries CSV (totals over a period), its ZIP export
 * (Queries.csv with the period from Dates.csv), a dated CSV, and Search Analytics API
 * answers (one JSON answer; gzip JSON Lines of paged answers). Checks the rank checks and
 * visits the tracking gets, that Quarry's own SERP checks keep their position, that rows of
 * one query and day add up, resuming after an interruption, and a file not imported twice.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { openStateStore, type SqliteStateStore } from '../../src/store/database.js';
import { RankTrackingStore } from '../../src/store/rankTracking.js';
import { importSearchConsole, parseApiRow, parsePeriod, periodDays } from '../../src/rank/searchConsoleImport.js';
import { trackingStats } from '../../src/rank/rankStats.js';
import { ImportError } from '../../src/engine/import/importError.js';

const NOW = Date.UTC(2026, 10, 20, 12);
let dir: string;
let state: SqliteStateStore;
let trackingId: string;
let keywordIds: Map<string, string>;

async function writeZip(file: string, entries: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text, 'utf8'), name);
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
}

function checks(): {
  kw: string;
  day: string;
  position: number | null;
  url: string | null;
  clicks: number | null;
  impressions: number | null;
  source: string | null;
}[] {
  return state.raw
    .prepare(
      `SELECT k.kw, c.day, c.position, c.url, c.clicks, c.impressions, c.source FROM rank_checks c JOIN rank_tracked_keywords k ON k.id = c.keyword_id
       WHERE c.tracking_id = ? ORDER BY c.day, k.kw`,
    )
    .all(trackingId) as never;
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-gsc-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

beforeEach(async () => {
  state = await openStateStore(':memory:');
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
    await assert.rejects(importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW }), /--period/);
    const r = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW, period: parsePeriod('2026-10-01..2026-10-10'), restart: true });
    assert.equal(r.format, 'csv');
    assert.equal(r.rows, 4);
    assert.equal(r.matched, 2);
    assert.equal(r.untracked, 2);
    assert.equal(r.checksCreated, 2);
    assert.deepEqual(checks(), [
      { kw: 'blue widgets', day: '2026-10-10', position: 4, url: null, clicks: 3, impressions: 100, source: 'search-console' },
      // Past 100 the rank tool counts a keyword as not ranking.
      { kw: 'red widgets', day: '2026-10-10', position: null, url: null, clicks: 0, impressions: 5, source: 'search-console' },
    ]);
    const again = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW, period: parsePeriod('2026-10-01..2026-10-10') });
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
    const r = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW });
    assert.equal(r.format, 'zip');
    assert.deepEqual(r.period, { from: '2026-11-01', to: '2026-11-07' });
    assert.deepEqual(
      checks().map((c) => [c.kw, c.day, c.position, c.clicks]),
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
    state.raw
      .prepare(
        `INSERT INTO rank_checks (keyword_id, day, tracking_id, position, url, visual, features, serp_snapshot_id, checked_ms)
         VALUES (?, '2026-11-02', ?, 7, 'https://example.com/blue', NULL, '["ads"]', 'snap1', ?)`,
      )
      .run(keywordIds.get('blue widgets'), trackingId, NOW);
    const file = path.join(dir, 'dated.csv');
    fs.writeFileSync(
      file,
      'Date,Query,Landing page,Clicks,Impressions,CTR,Position\n' +
        '2026-11-01,blue widgets,https://example.com/blue,4,100,4%,3.2\n' +
        '2026-11-02,blue widgets,https://example.com/blue,5,120,4.2%,3.0\n' +
        '2026-11-02,widget shop,https://other.example/x,1,9,11%,12.6\n' +
        'not a day,widget shop,,1,9,11%,12.6\n',
    );
    const r = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW });
    assert.equal(r.skipped, 1);
    assert.equal(r.checksCreated, 2);
    assert.equal(r.checksUpdated, 1);
    assert.deepEqual(checks(), [
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
    const r = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW });
    assert.equal(r.format, 'json');
    assert.equal(r.rows, 4);
    assert.equal(r.matched, 3);
    assert.deepEqual(
      checks().map((c) => [c.kw, c.day, c.position, c.url, c.clicks, c.impressions]),
      [
        ['blue widgets', '2026-11-03', 3, 'https://www.example.com/b', 8, 400],
        ['red widgets', '2026-11-03', 40, 'https://example.com/r', 0, 10],
      ],
    );
    // Imported again from its start, the file replaces its figures rather than adding to them.
    await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW, restart: true });
    assert.equal(checks()[0].clicks, 8);
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
        db: state.raw,
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
    const partial = checks().length;
    assert.ok(partial > 0 && partial < 20, `some checks were committed before the interruption (${partial})`);
    const r = await importSearchConsole(file, { db: state.raw, trackingId, now: () => NOW, dimensions: ['date', 'query'], batchSize: 7 });
    assert.equal(r.resumedFrom, 14);
    assert.equal(r.rows, 40 - 14);
    const all = checks();
    assert.equal(all.length, 20);
    assert.deepEqual(
      all.map((c) => c.clicks),
      days.map((_, i) => (i % 10) + 1),
    );
    assert.equal(state.raw.prepare('SELECT COUNT(*) FROM search_console_written').pluck().get(), 0, 'resume state is cleared when done');
  });

  test('wrong inputs say what is wrong', async () => {
    const file = path.join(dir, 'Dates.csv');
    fs.writeFileSync(file, 'Date,Clicks,Impressions,CTR,Position\n2026-11-01,1,2,50%,3\n');
    await assert.rejects(importSearchConsole(file, { db: state.raw, trackingId }), /query column/);
    await assert.rejects(importSearchConsole(file, { db: state.raw, trackingId: 'nope' }), /no rank tracking nope/);
    const zip = path.join(dir, 'other.zip');
    await writeZip(zip, { 'Pages.csv': 'Top pages,Clicks,Impressions,CTR,Position\n' });
    await assert.rejects(importSearchConsole(zip, { db: state.raw, trackingId }), /Queries\.csv/);
  });
});
