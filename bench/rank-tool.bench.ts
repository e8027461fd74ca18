/**
 * Rank tool:
 * - daily position checks per second for 10,000 tracked keywords, in two shapes:
 *   (a) 10,000 distinct SERPs — 2,500 keywords × 2 locations (US, UK) × 2 platforms, one domain;
 *   (b) 2,500 shared SERPs — 4 domains tracking the same 2,500 keywords (US, desktop),
 *   plus the event loop's longest stall during a run and the cost of a run with nothing due;
 * - POST /rank-tool/trackings/{id}/stats of a tracking with 1,500 keywords over 90 days
 *   (135,000 checks inserted directly), p50/p95 and CPU per request over BENCH_RUNS requests (goal ≤ 200 ms,
 *   issue 26), with the ratio to the goal; then the stats alone read from the per-day aggregates
 *   and grouped from the checks (the way before them), side by side at the same load.
 *
 * World: the tiny sandbox web (2,500 keywords), `.bench-data/search-tiny.db`, built when
 * missing and copied first (the engine records issued keyword ids in it).
 *
 * Run: `npx tsx bench/rank-tool.bench.ts` (env BENCH_RUNS, default 30; BENCH_ONLY=checks or stats).
 */
import { sqliteOf } from '../src/store/database.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { DAY, FakeClock, unixSeconds } from '../src/lib/clock.js';
import { rankServices } from '../src/rank/rankService.js';
import { trackingStats } from '../src/rank/rankStats.js';
import { closeContext, createContext } from '../src/service.js';
import { utcDay } from '../src/store/rankTracking.js';
import { BENCH_AS_OF, percentile, tinyBenchWorld } from './benchSupport.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const STATS_TARGET_MS = 200;
const STATS_KEYWORDS = 1_500;
const STATS_DAYS = 90;
const ONLY = process.env.BENCH_ONLY ?? '';

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-rank-bench-'));
  const researchFile = path.join(work, 'research.db');
  fs.copyFileSync(await tinyBenchWorld(), researchFile);
  const clock = new FakeClock(BENCH_AS_OF);
  const config = loadConfig({ QUARRY_DATA_DIR: work, QUARRY_GATEWAY_RPS: '0', QUARRY_PUBLIC_URL: 'http://bench.test' });
  const ctx = await createContext(config, { clock, inMemory: true, researchFile });
  const { store, checks } = rankServices(ctx);
  const nowSec = unixSeconds(clock.now());
  const account = await ctx.accounts.create('bench@rank.test', 'custom', nowSec);
  const catalog = ctx.search.catalog;
  const keywords = Array.from({ length: catalog.size }, (_, i) => catalog.at(i).kw);
  const unique = [...new Set(keywords)].map((kw) => ({ kw, sv: null }));
  const opts = { limit: 1_000_000, nowSec, nowMs: clock.now(), email: 'bench@rank.test' };
  console.log(`world: tiny (${unique.length} keywords); ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`);

  const timedRun = async (label: string) => {
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const result = await checks.runDueChecks(clock.now());
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    // CPU time is the figure other people's load on the machine disturbs least.
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    loop.disable();
    console.log(
      `${label.padEnd(52)} ${String(result.checks).padStart(6)} checks in ${seconds.toFixed(1)} s = ${(result.checks / seconds).toFixed(0)} checks/s ` +
        `(${(result.checks / cpuSeconds).toFixed(0)} per CPU-second); event loop max stall ${(loop.max / 1e6).toFixed(0)} ms`,
    );
    return result;
  };

  if (ONLY !== 'stats') await checkRuns();
  if (ONLY !== 'checks') await statsRuns();
  await closeContext(ctx);
  fs.rmSync(work, { recursive: true, force: true });

  async function checkRuns(): Promise<void> {
    // (a) 10,000 distinct SERPs.
    const distinct = await store.createTrackings(
      account.id,
      [2840, 2826].flatMap((locationId) => [1, 2].map((platformId) => ({ domain: 'openpedia.org', locationId, platformId }))),
      unique,
      opts,
    );
    await timedRun(`(a) ${unique.length * 4} tracked keywords, distinct SERPs`);
    const idle = performance.now();
    const none = await checks.runDueChecks(clock.now());
    console.log(`${'    same day again (nothing due)'.padEnd(52)} ${String(none.checks).padStart(6)} checks in ${(performance.now() - idle).toFixed(0)} ms`);
    for (const c of distinct) await store.softDelete(account.id, c.tracking.id, nowSec);

    // (b) 10,000 tracked keywords sharing 2,500 SERPs.
    await store.createTrackings(
      account.id,
      ['fabriclife.io', 'geartalk.org', 'weightpro.org', 'riverjournal.com'].map((domain) => ({ domain, locationId: 2840, platformId: 1 })),
      unique,
      opts,
    );
    await timedRun(`(b) ${unique.length * 4} tracked keywords, ${unique.length} shared SERPs`);
  }

  async function statsRuns(): Promise<void> {
    // Stats: 1,500 keywords × 90 days of checks, inserted directly.
    const statsTracking = (
      await store.createTrackings(
        account.id,
        [{ domain: 'stats.example', locationId: 2840, platformId: 1 }],
        unique.slice(0, STATS_KEYWORDS).map((k, i) => ({ kw: k.kw, sv: 10 + ((i * 7919) % 50_000) })),
        opts,
      )
    )[0];
    const insert = sqliteOf(ctx.state).prepare(
      'INSERT INTO rank_checks (keyword_id, day, tracking_id, position, url, visual, features, serp_snapshot_id, checked_ms) VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?)',
    );
    const firstDayMs = Date.parse(`${utcDay(clock.now())}T00:00:00Z`) - (STATS_DAYS - 1) * DAY;
    let seed = 1;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    sqliteOf(ctx.state).transaction(() => {
      for (const k of statsTracking.keywords) {
        let position = 1 + Math.floor(random() * 120);
        for (let d = 0; d < STATS_DAYS; d++) {
          position = Math.max(1, position + Math.round((random() - 0.5) * 4));
          const shown = position > 100 ? null : position;
          insert.run(
            k.id,
            utcDay(firstDayMs + d * DAY),
            statsTracking.tracking.id,
            shown,
            shown === null ? null : `https://stats.example/${k.id}`,
            '[]',
            clock.now(),
          );
        }
      }
    })();
    const key = (await ctx.accounts.createKey(account.id, nowSec)).key;
    const app = await buildApp(ctx);
    await app.ready();
    const samples: number[] = [];
    const cpuSamples: number[] = [];
    for (let i = 0; i < RUNS + 3; i++) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const res = await app.inject({
        method: 'POST',
        url: `/v3/rank-tool/trackings/${statsTracking.tracking.id}/stats`,
        headers: { 'x-access-token': key },
        payload: { days: STATS_DAYS },
      });
      const ms = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      if (res.statusCode !== 200) throw new Error(`stats answered ${res.statusCode}: ${res.body}`);
      if (i === 0 && res.json().history_dates.length !== STATS_DAYS) throw new Error('stats did not see 90 days');
      if (i >= 3) {
        samples.push(ms);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
      }
    }
    const p50 = percentile(samples, 50);
    const cpuP50 = percentile(cpuSamples, 50);
    console.log(
      `${`POST /stats, ${STATS_KEYWORDS} keywords × ${STATS_DAYS} days`.padEnd(52)} p50 ${p50.toFixed(1)} ms  p95 ${percentile(samples, 95).toFixed(1)} ms  ` +
        `CPU p50 ${cpuP50.toFixed(1)} ms  n=${samples.length}  goal ≤ ${STATS_TARGET_MS} ms, ratio p50/goal ${(p50 / STATS_TARGET_MS).toFixed(2)} ` +
        `(CPU ${(cpuP50 / STATS_TARGET_MS).toFixed(2)}): ${p50 <= STATS_TARGET_MS ? 'met' : 'MISSED'}`,
    );
    // The same figures grouped from the checks (the way before the per-day aggregates), side by
    // side at the same load: the stats alone, without the HTTP layer.
    const range = { from: utcDay(firstDayMs), to: utcDay(clock.now()) };
    const tagIds = await store.tagIdsByKeyword(statsTracking.tracking.id);
    for (const fromChecks of [false, true]) {
      const wall: number[] = [];
      const cpuMs: number[] = [];
      for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 3)); i++) {
        const started = performance.now();
        const cpuBefore = process.cpuUsage();
        await trackingStats(ctx.state.db, statsTracking.tracking, range, { tagIds, fromChecks });
        wall.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuBefore);
        cpuMs.push((cpu.user + cpu.system) / 1000);
      }
      console.log(
        `${`    stats alone, ${fromChecks ? 'grouped from the checks (before)' : 'from the per-day aggregates'}`.padEnd(52)} p50 ${percentile(wall, 50).toFixed(1)} ms  CPU p50 ${percentile(cpuMs, 50).toFixed(1)} ms`,
      );
    }
    await app.close();
  }
}

await main();
