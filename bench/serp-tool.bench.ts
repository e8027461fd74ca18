/**
 * SERP and site tools over a real loopback socket (buildApp + listen(0), QUARRY_GATEWAY_RPS=0):
 * - GET /serp-tool/serps cold (a fresh keyword each time) and from the request cache;
 * - GET /serp-tool/serps/{id}/snapshot, desktop and mobile: the PNG rendered through the
 *   API, base64 in JSON (target p50 ≤ 150 ms);
 * - GET /site-tool/overview with its monthly history since 2016, cold (a fresh site each
 *   time) and from cache.
 * Prints p50/p95 in ms of wall-clock time per request, measured by the client.
 *
 * World: $QUARRY_BENCH_WORLD if set; `BENCH_WORLD=small` takes `.bench-data/world-small-*.db`;
 * else the tiny world `.bench-data/search-tiny.db` (built when missing). The file is
 * copied first (the engine records issued keyword ids in it). Paid requests are paced on
 * a fake clock (11 s apart), so the burst window never refuses.
 *
 * Run: `npx tsx bench/serp-tool.bench.ts` (env BENCH_RUNS, default 30).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { FakeClock, SECOND, unixSeconds } from '../src/lib/clock.js';
import { closeContext, createContext } from '../src/service.js';
import { renderSerpSnapshot } from '../src/render/serpSnapshot.js';
import { BENCH_AS_OF, percentile, smallBenchWorld, tinyBenchWorld } from './benchSupport.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const SNAPSHOT_TARGET_MS = 150;

async function worldFile(): Promise<string> {
  if (process.env.QUARRY_BENCH_WORLD) return process.env.QUARRY_BENCH_WORLD;
  if (process.env.BENCH_WORLD !== 'small') return tinyBenchWorld();
  const small = smallBenchWorld();
  if (!small) throw new Error('no .bench-data/world-small-*.db (npm run bench:engine-world builds it)');
  return small;
}

function report(name: string, samples: number[], target: number | null = null, extra = ''): void {
  const s = [...samples].sort((a, b) => a - b);
  const p50 = percentile(s, 50);
  const verdict = target === null ? '' : `  (target ≤ ${target} ms: ${p50 <= target ? 'met' : 'MISSED'})`;
  console.log(`${name.padEnd(40)} p50 ${p50.toFixed(1).padStart(7)} ms  p95 ${percentile(s, 95).toFixed(1).padStart(7)} ms  n=${s.length}${verdict}${extra}`);
}

async function main(): Promise<void> {
  const source = await worldFile();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-serp-bench-'));
  const researchFile = path.join(dir, 'research.db');
  const t = performance.now();
  fs.copyFileSync(source, researchFile);
  const clock = new FakeClock(BENCH_AS_OF);
  const config = loadConfig({ QUARRY_GATEWAY_RPS: '0', QUARRY_DATA_DIR: dir, QUARRY_PUBLIC_URL: 'http://quarry.bench' });
  const ctx = await createContext(config, { clock, inMemory: true, researchFile });
  console.log(`world: ${source} (copied and opened in ${(performance.now() - t).toFixed(0)} ms)`);
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}/v3`;
  const account = await ctx.accounts.create('bench@example.test', 'api-pro', unixSeconds(clock.now()));
  const { key } = await ctx.accounts.createKey(account.id, unixSeconds(clock.now()));
  const headers = { 'x-access-token': key };

  /** One request, timed by the client; fails loudly on an unexpected status. */
  const timed = async (url: string, status = 200): Promise<{ ms: number; cpuMs: number; body: any; bytes: number; cache: string | null }> => {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    const res = await fetch(`${base}${url}`, { headers });
    const text = await res.text();
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(startCpu);
    if (res.status !== status) throw new Error(`${url}: ${res.status} ${text.slice(0, 200)}`);
    // Server and client share this process: its CPU time covers both (a busy machine inflates it much less than wall time).
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, body: text ? JSON.parse(text) : null, bytes: text.length, cache: res.headers.get('x-cache') };
  };
  const pace = () => clock.advance(11 * SECOND);

  // English keywords of the world, in catalog order: each one is asked once (cold).
  const catalog = ctx.search.catalog;
  const keywords: string[] = [];
  for (let i = 0; i < catalog.size && keywords.length < RUNS * 2 + 20; i++) {
    const k = catalog.at(i);
    if (k.languageId === 1000) keywords.push(k.kw);
  }
  const q = (kw: string, platform = 1) => `/serp-tool/serps?kw=${encodeURIComponent(kw)}&location_id=2840&platform_id=${platform}`;

  // Warm up the JIT and the engine's lazy structures.
  for (const kw of keywords.splice(0, 5)) {
    await timed(q(kw));
    pace();
  }

  const cold: number[] = [];
  const sizes: number[] = [];
  const lookedUp: { kw: string; platform: number; snapshotId: string }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const platform = i % 2 === 0 ? 1 : 2;
    const r = await timed(q(keywords[i], platform));
    if (r.cache) throw new Error('a cold SERP came from cache');
    cold.push(r.ms);
    sizes.push(r.bytes);
    if (r.body.serp_snapshot_id) lookedUp.push({ kw: keywords[i], platform, snapshotId: r.body.serp_snapshot_id });
    pace();
  }
  sizes.sort((a, b) => a - b);
  report('serps cold (fresh keyword)', cold, null, `  body p50 ${(percentile(sizes, 50) / 1024).toFixed(0)} KiB`);

  const cached: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await timed(q(keywords[i % 5], (i % 5) % 2 === 0 ? 1 : 2));
    if (r.cache !== 'HIT') throw new Error('expected a cache hit');
    cached.push(r.ms);
  }
  report('serps from cache', cached);

  for (const platform of [1, 2]) {
    const ids = lookedUp.filter((l) => l.platform === platform);
    const times: number[] = [];
    const cpu: number[] = [];
    const pngs: number[] = [];
    await timed(`/serp-tool/serps/${ids[0].snapshotId}/snapshot`);
    for (let i = 0; i < RUNS; i++) {
      const r = await timed(`/serp-tool/serps/${ids[i % ids.length].snapshotId}/snapshot`);
      times.push(r.ms);
      cpu.push(r.cpuMs);
      pngs.push((r.body.image.length * 3) / 4);
    }
    pngs.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    // Where the time goes: the handler rebuilds the stored SERP, then draws it.
    const rebuild: number[] = [];
    const render: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      const { kw } = ids[i % ids.length];
      let start = performance.now();
      const serp = ctx.search.serp({ kw, locationId: 2840, platform: platform as 1 | 2, page: 0 });
      rebuild.push(performance.now() - start);
      start = performance.now();
      renderSerpSnapshot({ ...serp, engine_domain: 'google.com' });
      render.push(performance.now() - start);
    }
    rebuild.sort((a, b) => a - b);
    render.sort((a, b) => a - b);
    report(
      `snapshot ${platform === 1 ? 'desktop' : 'mobile'} via API`,
      times,
      SNAPSHOT_TARGET_MS,
      `  cpu p50 ${percentile(cpu, 50).toFixed(1)} ms; in-process: SERP rebuild p50 ${percentile(rebuild, 50).toFixed(1)} ms, render p50 ${percentile(render, 50).toFixed(1)} ms; png p50 ${(percentile(pngs, 50) / 1024).toFixed(0)} KiB`,
    );
  }

  // Sites: root domains of the world, each asked once (cold), then one again and again (cache).
  const domains = ctx.engine.store.raw
    .prepare('SELECT domain FROM root_domains ORDER BY id LIMIT ?')
    .pluck()
    .all(RUNS + 3) as string[];
  for (const d of domains.splice(0, 3)) {
    await timed(`/site-tool/overview?url=${encodeURIComponent(d)}`);
    pace();
  }
  const overview: number[] = [];
  const months: number[] = [];
  for (const d of domains) {
    const r = await timed(`/site-tool/overview?url=${encodeURIComponent(d)}`);
    overview.push(r.ms);
    months.push(Object.keys(r.body.linkindexHistory).length);
    pace();
  }
  report('site overview cold (fresh site)', overview, null, `  ${Math.min(...months)}–${Math.max(...months)} months of history`);
  const overviewCached: number[] = [];
  for (let i = 0; i < RUNS; i++) overviewCached.push((await timed(`/site-tool/overview?url=${encodeURIComponent(domains[0])}`)).ms);
  report('site overview from cache', overviewCached);

  await app.close();
  await closeContext(ctx);
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
