/**
 * Daily position checks on the fake clock (a month of history that moves plausibly, a
 * missed day caught up exactly once, deleted trackings left alone, the scheduler's
 * catch-up on start) and POST /stats agreeing with the stored checks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY } from '../../../src/lib/clock.js';
import { baseClickThroughRate } from '../../../src/engine/search/clickThroughCurve.js';
import { rankServices, startRankScheduler } from '../../../src/rank/rankService.js';
import { bucketOf } from '../../../src/rank/rankStats.js';
import { rankClient, type RankClient } from './helpers.js';

let t: TestApp;
let c: RankClient;
let trackingId: string;

const KEYWORDS = ['hiking boots', 'tent', 'sleeping bag', 'backpack', 'camping stove', 'trekking poles', 'rain jacket', 'headlamp'];
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The domain that ranks for most of the keywords on the first day, so positions can move. */
function rankingDomain(): string {
  const counts = new Map<string, number>();
  for (const kw of KEYWORDS) {
    const serp = t.ctx.search.serp({ kw, locationId: 2840, platform: 1, page: 0 });
    const seen = new Set<string>();
    for (const item of serp.items) if (item.type === 'ORGANIC' && item.domain && item.position! > 3) seen.add(item.domain);
    for (const d of seen) counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
}

interface History {
  _id: string;
  kw: string;
  sv: number | null;
  history: { date: string; position: number | null; url: string | null }[];
}

async function histories(): Promise<History[]> {
  const list = (await c.get(`/trackings/${trackingId}/tracked-keywords`)).json();
  const out: History[] = [];
  for (const k of list) out.push((await c.get(`/trackings/${trackingId}/tracked-keywords/${k._id}`)).json());
  return out;
}

describe('daily position checks and stats', () => {
  before(async () => {
    t = await testApp();
    c = await rankClient(t);
    const res = await c.post('/trackings', { domain: rankingDomain(), location_id: 2840, platform_id: 1, keywords: KEYWORDS });
    assert.equal(res.statusCode, 201);
    trackingId = res.json().tracking._id;
    await rankServices(t.ctx).checks.idle();
  });
  after(async () => {
    await rankServices(t.ctx).checks.idle();
    await t.close();
  });

  test('a month of daily checks: one check per keyword and day, positions that move plausibly', async () => {
    const { checks } = rankServices(t.ctx);
    // Created today: the keywords were checked at once, so nothing is due until tomorrow.
    assert.deepEqual(await checks.runDueChecks(t.clock.now()), { keywords: 0, checks: 0 });
    for (let i = 0; i < 30; i++) {
      t.clock.advance(DAY);
      const run = await checks.runDueChecks(t.clock.now());
      assert.deepEqual(run, { keywords: KEYWORDS.length, checks: KEYWORDS.length });
    }
    const all = await histories();
    let ranked = 0;
    let steps = 0;
    let small = 0;
    let moved = 0;
    for (const k of all) {
      assert.equal(k.history.length, 31, k.kw);
      assert.deepEqual(
        k.history.map((h) => h.date),
        Array.from({ length: 31 }, (_, i) => day(Date.UTC(2026, 10, 22) + i * DAY)),
      );
      const positions = k.history.map((h) => h.position);
      for (const p of positions) assert.ok(p === null || (Number.isInteger(p) && p >= 1 && p <= 100));
      for (const h of k.history) assert.equal(h.position === null, h.url === null);
      if (positions.every((p) => p !== null)) ranked++;
      for (let i = 1; i < positions.length; i++) {
        const [a, b] = [positions[i - 1], positions[i]];
        if (a === null || b === null) continue;
        steps++;
        if (Math.abs(a - b) <= 3) small++;
        if (a !== b) moved++;
      }
    }
    assert.ok(ranked >= 3, `the domain ranks every day for ${ranked} keywords`);
    assert.ok(moved > 0, 'positions are not all identical');
    assert.ok(small / steps >= 0.8, `mostly small day-to-day changes (${small}/${steps})`);
    const one = all.find((k) => k.history.every((h) => h.position !== null))!;
    const detail = (await c.get(`/trackings/${trackingId}/tracked-keywords/${one._id}`)).json();
    assert.match(detail.serp_snapshot_id, new RegExp(`^[0-9a-f]{32}\\.${day(t.clock.now())}`));
    assert.ok(detail.url.startsWith('http'));
    assert.ok(detail.visual && typeof detail.visual.visPart === 'number' && detail.visual.positionToFold);
  });

  test('a missed day is caught up exactly once', async () => {
    const { checks } = rankServices(t.ctx);
    t.clock.advance(2 * DAY);
    const [first, second] = await Promise.all([checks.runDueChecks(t.clock.now()), checks.runDueChecks(t.clock.now())]);
    assert.deepEqual(first, { keywords: KEYWORDS.length, checks: 2 * KEYWORDS.length });
    assert.deepEqual(second, first, 'a concurrent call joins the run under way');
    assert.deepEqual(await checks.runDueChecks(t.clock.now()), { keywords: 0, checks: 0 });
    t.clock.advance(DAY / 4);
    assert.deepEqual(await checks.runDueChecks(t.clock.now()), { keywords: 0, checks: 0 });
    for (const k of await histories()) {
      const dates = k.history.map((h) => h.date);
      assert.equal(new Set(dates).size, dates.length);
      assert.equal(dates.length, 33);
      assert.equal(dates[dates.length - 1], day(t.clock.now()));
    }
  });

  test('POST /stats agrees with the stored checks', async () => {
    const all = await histories();
    const to = day(t.clock.now());
    const from = day(t.clock.now() - 20 * DAY);
    const res = await c.post(`/trackings/${trackingId}/stats`, { from, to });
    assert.equal(res.statusCode, 200, res.body);
    const stats = res.json();
    assert.deepEqual(Object.keys(stats).sort(), [
      'average_position',
      'daily',
      'distribution',
      'estimated_visits',
      'first_day',
      'from',
      'keywords',
      'last_day',
      'to',
      'top_movers',
      'tracking_id',
      'visibility',
    ]);
    assert.deepEqual([stats.tracking_id, stats.from, stats.to], [trackingId, from, to]);
    assert.deepEqual(Object.keys(stats.daily[0]).sort(), ['average_position', 'date', 'distribution', 'keywords', 'visibility']);
    assert.equal(stats.first_day, from);
    assert.equal(stats.last_day, to);
    assert.equal(stats.daily.length, 21);
    const at = (k: History, d: string) => k.history.find((h) => h.date === d)!.position;
    const last = all.map((k) => at(k, to));
    const expected = { '1': 0, '2-3': 0, '4-10': 0, '11-20': 0, '21-100': 0, rest: 0 };
    for (const p of last) expected[bucketOf(p)]++;
    assert.deepEqual(stats.distribution, expected);
    assert.equal(stats.keywords, KEYWORDS.length);
    const rankedNow = last.filter((p): p is number => p !== null);
    assert.equal(stats.average_position, Math.round((rankedNow.reduce((a, b) => a + b, 0) / rankedNow.length) * 100) / 100);
    const vis = (100 * rankedNow.reduce((s, p) => s + baseClickThroughRate(p), 0)) / (KEYWORDS.length * baseClickThroughRate(1));
    assert.equal(stats.visibility, Math.round(vis * 100) / 100);
    const visits = all.reduce((s, k) => s + (at(k, to) !== null && k.sv !== null ? k.sv * baseClickThroughRate(at(k, to)!) : 0), 0);
    assert.equal(stats.estimated_visits, Math.round(visits));
    // Movers: the change between the first and last day, unranked counted as 101.
    const changes = all.map((k) => ({ kw: k.kw, change: (at(k, from) ?? 101) - (at(k, to) ?? 101) }));
    assert.deepEqual(
      stats.top_movers.up.map((m: { kw: string; change: number }) => [m.kw, m.change]).sort(),
      changes
        .filter((m) => m.change > 0)
        .map((m) => [m.kw, m.change])
        .sort(),
    );
    assert.deepEqual(
      stats.top_movers.down.map((m: { kw: string; change: number }) => [m.kw, m.change]).sort(),
      changes
        .filter((m) => m.change < 0)
        .map((m) => [m.kw, m.change])
        .sort(),
    );
    for (const d of stats.daily) {
      const positions = all.map((k) => at(k, d.date));
      assert.equal(
        Object.values(d.distribution as Record<string, number>).reduce((a, b) => a + b, 0),
        KEYWORDS.length,
      );
      assert.equal(d.distribution['1'], positions.filter((p) => p === 1).length);
    }
    // days: the same timeframe counted back from today.
    const byDays = (await c.post(`/trackings/${trackingId}/stats`, { days: 21 })).json();
    assert.deepEqual(byDays, stats);
    for (const bad of [{ from: '2026-13-01' }, { from: to, to: from }, { days: 0 }, { days: 7, from }, { to: 'today' }]) {
      assert.equal((await c.post(`/trackings/${trackingId}/stats`, bad)).statusCode, 422, JSON.stringify(bad));
    }
  });

  test('deleted trackings are not checked; the scheduler catches up on start', async () => {
    const other = await c.post('/trackings', { domain: 'example.org', location_id: 2840, platform_id: 2, keywords: ['tent'] });
    const otherId = other.json().tracking._id;
    await rankServices(t.ctx).checks.idle();
    assert.equal((await c.del(`/trackings/${otherId}`)).statusCode, 204);
    t.clock.advance(3 * DAY);
    const scheduler = startRankScheduler(t.ctx, { everyMs: 3_600_000 });
    await scheduler.tick();
    await scheduler.stop();
    for (const k of await histories()) assert.equal(k.history[k.history.length - 1].date, day(t.clock.now()));
    const deleted = (await c.get(`/trackings/${otherId}/tracked-keywords`)).json();
    assert.equal(deleted[0].checked_at, day(t.clock.now() - 3 * DAY));
  });
});
