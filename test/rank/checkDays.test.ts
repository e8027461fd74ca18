/**
 * The per-day aggregates of the rank checks (rank_check_days, migration 0075, issue 26): kept
 * in step by triggers through every kind of write — daily checks, a catch-up, Search Console
 * clicks and positions updated in place, removed keywords, a purged tracking — and the stats
 * read from them answer exactly what the stats grouped from the checks answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { testApp, type TestApp } from '../support/app.js';
import { DAY, unixSeconds } from '../../src/lib/clock.js';
import { rankServices } from '../../src/rank/rankService.js';
import { trackingStats } from '../../src/rank/rankStats.js';
import { rankClient, type RankClient } from '../tools/rank/helpers.js';

let t: TestApp;
let c: RankClient;
let trackingId: string;

const KEYWORDS = ['hiking boots', 'tent', 'sleeping bag', 'backpack', 'camping stove', 'trekking poles', 'rain jacket', 'headlamp', 'camping chair'];
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type AggregateRow = { tracking_id: string; day: string; position: number; n: number; sv: number; clicks: number; clicks_n: number };

/** The stored aggregates, and the same figures grouped from the checks now (what the triggers must keep them equal to). */
async function aggregatesAndTruth(): Promise<{ stored: AggregateRow[]; truth: AggregateRow[] }> {
  const db = t.ctx.state.db;
  const norm = (rows: AggregateRow[]) =>
    rows
      .map((r) => ({ ...r, position: Number(r.position), n: Number(r.n), sv: Number(r.sv), clicks: Number(r.clicks), clicks_n: Number(r.clicks_n) }))
      .sort((a, b) => (a.tracking_id + a.day + String(a.position).padStart(3, '0') < b.tracking_id + b.day + String(b.position).padStart(3, '0') ? -1 : 1));
  const stored = (await sql<AggregateRow>`SELECT tracking_id, day, position, n, sv, clicks, clicks_n FROM rank_check_days`.execute(db)).rows;
  const truth = (
    await sql<AggregateRow>`SELECT k.tracking_id, c.day, COALESCE(c.position, 0) AS position, COUNT(*) AS n,
      COALESCE(SUM(CASE WHEN c.clicks IS NULL THEN k.sv END), 0) AS sv, COALESCE(SUM(c.clicks), 0) AS clicks, COUNT(c.clicks) AS clicks_n
      FROM rank_checks c JOIN rank_tracked_keywords k ON k.id = c.keyword_id
      GROUP BY k.tracking_id, c.day, COALESCE(c.position, 0)`.execute(db)
  ).rows;
  return { stored: norm(stored), truth: norm(truth) };
}

/** The stats of the whole tracking read both ways, over the last `days` days. */
async function bothWays(days: number) {
  const range = { from: day(t.clock.now() - (days - 1) * DAY), to: day(t.clock.now()) };
  const tagIds = await rankServices(t.ctx).store.tagIdsByKeyword(trackingId);
  const fast = await trackingStats(t.ctx.state.db, { id: trackingId }, range, { tagIds });
  const slow = await trackingStats(t.ctx.state.db, { id: trackingId }, range, { tagIds, fromChecks: true });
  return { fast, slow };
}

describe('per-day aggregates of the rank checks', () => {
  before(async () => {
    t = await testApp();
    c = await rankClient(t);
    const res = await c.post('/trackings', { domain: 'openpedia.org', location_id: 2840, platform_id: 1, keywords: KEYWORDS });
    assert.equal(res.statusCode, 201, res.body);
    trackingId = res.json().tracking._id;
    const { checks } = rankServices(t.ctx);
    await checks.idle();
    // Ten days of checks, then a missed day caught up by the next run.
    for (let d = 0; d < 10; d++) {
      t.clock.advance(DAY);
      if (d !== 6) await checks.runDueChecks(t.clock.now());
    }
    await checks.idle();
  });
  after(async () => {
    await rankServices(t.ctx).checks.idle();
    await t.close();
  });

  test('daily checks and a catch-up: the aggregates are the checks grouped, and the stats read from them equal the stats grouped from the checks', async () => {
    const { stored, truth } = await aggregatesAndTruth();
    assert.ok(truth.length > 0 && truth.some((r) => r.position === 0) === stored.some((r) => r.position === 0));
    assert.deepEqual(stored, truth);
    for (const days of [1, 5, 11, 30]) {
      const { fast, slow } = await bothWays(days);
      assert.deepEqual(fast, slow, `${days} days`);
    }
    const { fast } = await bothWays(11);
    assert.equal(fast.history_dates.length, 11);
  });

  test('clicks and positions updated in place (Search Console), checks inserted with clicks, removed keywords: still equal', async () => {
    const db = t.ctx.state.db;
    const keywords = await db.selectFrom('rank_tracked_keywords').select(['id', 'sv']).where('tracking_id', '=', trackingId).orderBy('kw').execute();
    const today = day(t.clock.now());
    const earlier = day(t.clock.now() - 3 * DAY);
    // Clicks measured on a SERP check (binary fractions: their sums are exact in any order).
    await db.updateTable('rank_checks').set({ clicks: 2.5, impressions: 40 }).where('keyword_id', '=', keywords[0].id).where('day', '=', today).execute();
    await db.updateTable('rank_checks').set({ clicks: 0.25 }).where('keyword_id', '=', keywords[1].id).where('day', '>=', earlier).execute();
    // A position that moves and one that leaves the top 100.
    await db.updateTable('rank_checks').set({ position: 7 }).where('keyword_id', '=', keywords[2].id).where('day', '=', earlier).execute();
    await db.updateTable('rank_checks').set({ position: null, url: null }).where('keyword_id', '=', keywords[3].id).where('day', '=', today).execute();
    // The clicks cleared again, and a day before the tracking existed that an import adds.
    await db.updateTable('rank_checks').set({ clicks: null }).where('keyword_id', '=', keywords[1].id).where('day', '=', today).execute();
    const old = day(t.clock.now() - 20 * DAY);
    await db
      .insertInto('rank_checks')
      .values({
        keyword_id: keywords[4].id,
        day: old,
        tracking_id: trackingId,
        position: 12,
        url: null,
        visual: null,
        features: '[]',
        serp_snapshot_id: null,
        checked_ms: t.clock.now(),
        clicks: 1.5,
        impressions: 9,
        source: 'search-console',
      })
      .execute();
    let { stored, truth } = await aggregatesAndTruth();
    assert.deepEqual(stored, truth);
    for (const days of [1, 4, 21]) {
      const { fast, slow } = await bothWays(days);
      assert.deepEqual(fast, slow, `${days} days`);
    }
    // Removing keywords removes their checks: days they alone were checked on leave the answer.
    const tracking = (await rankServices(t.ctx).store.get(c.id, trackingId))!;
    await rankServices(t.ctx).store.removeKeywords(tracking, [keywords[4].id, keywords[5].id], {
      nowSec: unixSeconds(t.clock.now()),
      nowMs: t.clock.now(),
      creator: 'test',
    });
    ({ stored, truth } = await aggregatesAndTruth());
    assert.deepEqual(stored, truth);
    const { fast, slow } = await bothWays(21);
    assert.deepEqual(fast, slow);
    assert.ok(!fast.history_dates.includes(old), 'the removed keyword’s lone day is gone');
    assert.ok(
      stored.every((r) => r.n > 0),
      'no empty aggregate is kept',
    );
  });

  test('a purged tracking takes its aggregates with it', async () => {
    const other = await c.post('/trackings', { domain: 'example.org', location_id: 2840, platform_id: 1, keywords: ['tent', 'headlamp'] });
    const otherId = other.json().tracking._id;
    await rankServices(t.ctx).checks.idle();
    const rowsOf = async (id: string) =>
      (await sql<{ n: number }>`SELECT COUNT(*) AS n FROM rank_check_days WHERE tracking_id = ${id}`.execute(t.ctx.state.db)).rows[0].n;
    assert.ok(Number(await rowsOf(otherId)) > 0);
    await t.ctx.state.db.deleteFrom('rank_trackings').where('id', '=', otherId).execute();
    assert.equal(Number(await rowsOf(otherId)), 0);
    const { stored, truth } = await aggregatesAndTruth();
    assert.deepEqual(stored, truth);
  });
});
