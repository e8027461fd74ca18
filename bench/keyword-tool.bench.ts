/**
 * Keyword tool over a real loopback socket (buildApp + listen(0), QUARRY_GATEWAY_RPS=0):
 * - related keywords with 10,000 rows, cold (a fresh seed each time, custom plan; target
 *   p50 ≤ 250 ms) and from the request cache (target p50 ≤ 15 ms);
 * - export of 10,000 ids as JSON and as CSV (target p50 ≤ 300 ms);
 * - detail of a list of 10,000 keywords (JSON and CSV).
 *
 * World: $QUARRY_BENCH_WORLD, else the first `.bench-data/world-small*.db`, else the tiny world
 * `.bench-data/search-tiny.db` (built when missing). It is copied, then grown by a Keyword
 * Planner import of 12,000 keywords made of four words, so that a seed of those words has
 * more than 10,000 related keywords (no seed of the tiny world has more than ~120).
 * Paid requests are paced on a fake clock (11 s apart) so the burst window never refuses.
 *
 * The grown copy is kept in `.bench-data/keyword-tool/` (delete it to start over): the first run on a small world spends minutes ranking the market.
 *
 * Run: `npx tsx bench/keyword-tool.bench.ts` (env BENCH_RUNS, default 15).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { FakeClock, unixSeconds } from '../src/lib/clock.js';
import { closeContext, createContext } from '../src/service.js';
import { BENCH_AS_OF, largestBenchWorld, percentile } from './benchSupport.js';
import { importPlannerKeywords, PLANNER_WORDS } from '../test/tools/keyword/plannerKeywords.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

/**
 * Wall ms of each sample, and beside them the CPU ms this process spent on them (client and
 * server share it): on a loaded machine the wall time is mostly the neighbours', the CPU not.
 */
function report(name: string, samples: number[], target: number | null, extra = '', cpu: number[] = []): void {
  const s = [...samples].sort((a, b) => a - b);
  const p50 = percentile(s, 50);
  const verdict = target === null ? '' : `  (goal ≤ ${target} ms, ratio p50/goal ${(p50 / target).toFixed(2)}: ${p50 <= target ? 'met' : 'MISSED'})`;
  const cpuP50 = cpu.length > 0 ? `  CPU p50 ${percentile(cpu, 50).toFixed(1).padStart(7)} ms` : '';
  console.log(
    `${name.padEnd(44)} p50 ${p50.toFixed(1).padStart(7)} ms  p90 ${percentile(s, 90).toFixed(1).padStart(7)} ms${cpuP50}  n=${s.length}${verdict}${extra}  load ${os.loadavg()[0].toFixed(1)}`,
  );
}

/** CPU milliseconds (user + system) of this process since `since` (process.cpuUsage()). */
function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** Fresh seeds: ordered selections of two or three of the planner words (every one has all imported keywords as related). */
function* seeds(): Generator<string> {
  const w = PLANNER_WORDS;
  for (const a of w) for (const b of w) if (a !== b) yield `${a} ${b}`;
  for (const a of w) for (const b of w) for (const c of w) if (a !== b && b !== c && a !== c) yield `${a} ${b} ${c}`;
  for (const a of w) for (const b of w) for (const c of w) for (const d of w) if (new Set([a, b, c, d]).size === 4) yield `${a} ${b} ${c} ${d}`;
}

async function main(): Promise<void> {
  const source = await largestBenchWorld();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-kw-bench-'));
  const researchFile = path.join(dir, 'research.db');
  // The grown copy (planner keywords imported, rank index of 2840 built and stored) is kept
  // beside the source: building the rank index of a small world takes minutes.
  // In a directory of its own, named so that no bench looking for `*small*.db` picks it up.
  const grownDir = path.resolve('.bench-data', 'keyword-tool');
  fs.mkdirSync(grownDir, { recursive: true });
  const grown = path.join(grownDir, `grown-${path.basename(source).replace(/\.db$/, '')}.sqlite`);
  // Delete it to start over (e.g. after the source world was rebuilt).
  const reuse = fs.existsSync(grown);
  fs.copyFileSync(reuse ? grown : source, researchFile);
  console.log(`world: ${source} (${reuse ? `grown copy ${grown}` : 'copied, grown by a planner import of 12,000 keywords'})`);

  const clock = new FakeClock(BENCH_AS_OF);
  const config = loadConfig({
    QUARRY_GATEWAY_RPS: '0',
    QUARRY_DATA_DIR: dir,
    QUARRY_PUBLIC_URL: 'http://quarry.bench',
    QUARRY_BODY_LIMIT: String(16 * 1024 * 1024),
  });
  const ctx = await createContext(config, { clock, inMemory: true, researchFile });
  let t = performance.now();
  if (!reuse) {
    await importPlannerKeywords(ctx, 12_000);
    console.log(`planner import: ${(performance.now() - t).toFixed(0)} ms`);
  }
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}/v3/keyword-tool`;
  const account = await ctx.accounts.create('bench@example.test', 'custom', unixSeconds(clock.now()));
  const { key } = await ctx.accounts.createKey(account.id, unixSeconds(clock.now()));
  const headers = { 'x-access-token': key };

  /** One request, body read to the end; returns ms (wall and CPU), status and the body text. */
  async function timed(url: string, init: RequestInit = {}): Promise<{ ms: number; cpu: number; status: number; text: string }> {
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    const res = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
    const text = await res.text();
    return { ms: performance.now() - start, cpu: cpuMs(cpu0), status: res.status, text };
  }
  const post = (p: string, body: unknown) =>
    timed(`${base}${p}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const related = (kw: string) => timed(`${base}/related-keywords?kw=${encodeURIComponent(kw)}&location_id=2840`);

  // Warm the engine: the first lookup of a market loads its rank index.
  t = performance.now();
  const warm = await related('gizmo');
  clock.advance(11_000);
  console.log(`first related lookup (rank index load): ${(performance.now() - t).toFixed(0)} ms, ${warm.text.length} bytes`);

  const cold: number[] = [];
  const coldCpu: number[] = [];
  let rows = 0;
  let bytes = 0;
  let ids: string[] = [];
  const seedList = [...seeds()].slice(0, RUNS);
  for (const seed of seedList) {
    const r = await related(seed);
    if (r.status !== 200) throw new Error(`related ${seed}: ${r.status} ${r.text.slice(0, 200)}`);
    cold.push(r.ms);
    coldCpu.push(r.cpu);
    const body = JSON.parse(r.text);
    rows = body.keywords.length;
    bytes = r.text.length;
    if (ids.length === 0) ids = body.keywords.map((k: { _id: string }) => k._id);
    clock.advance(11_000);
  }
  report('related keywords, 10,000 rows, cold', cold, 250, `  (${rows} rows, ${(bytes / 1e6).toFixed(1)} MB)`, coldCpu);

  const hits: number[] = [];
  const hitsCpu: number[] = [];
  for (let i = 0; i < RUNS * 2; i++) {
    const r = await related(seedList[0]);
    if (r.status !== 200) throw new Error(`cache hit: ${r.status}`);
    hits.push(r.ms);
    hitsCpu.push(r.cpu);
    // A cache hit still counts in the burst window (the contract's rate limit): pace it like the rest.
    clock.advance(11_000);
  }
  report('related keywords, 10,000 rows, cache hit', hits, 15, '', hitsCpu);

  const exportJson: number[] = [];
  const exportCsv: number[] = [];
  const exportJsonCpu: number[] = [];
  const exportCsvCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const j = await post('/keywords', { keyword_ids: ids });
    if (j.status !== 200 || JSON.parse(j.text).length !== 10_000) throw new Error(`export: ${j.status}`);
    exportJson.push(j.ms);
    exportJsonCpu.push(j.cpu);
    const c = await post('/keywords.csv', { keyword_ids: ids });
    if (c.status !== 200) throw new Error(`export csv: ${c.status}`);
    exportCsv.push(c.ms);
    exportCsvCpu.push(c.cpu);
  }
  report('export 10,000 ids, JSON', exportJson, 300, '', exportJsonCpu);
  report('export 10,000 ids, CSV', exportCsv, 300, '', exportCsvCpu);

  const created = await post('/lists', { name: 'bench', keyword_ids: ids });
  if (created.status !== 201) throw new Error(`list create: ${created.status} ${created.text.slice(0, 200)}`);
  console.log(`list create with 10,000 keywords: ${created.ms.toFixed(0)} ms`);
  const listId = JSON.parse(created.text)._id;
  const detail: number[] = [];
  const detailCsv: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const d = await timed(`${base}/lists/${listId}`);
    if (d.status !== 200) throw new Error(`list detail: ${d.status}`);
    detail.push(d.ms);
    const c = await timed(`${base}/lists/${listId}.csv`);
    if (c.status !== 200) throw new Error(`list csv: ${c.status}`);
    detailCsv.push(c.ms);
  }
  report('list detail, 10,000 keywords, JSON', detail, null);
  report('list detail, 10,000 keywords, CSV', detailCsv, null);

  // The engine alone, for the split: related keywords (fresh seeds) and id resolution.
  const engineRelated: number[] = [];
  const engineRelatedCpu: number[] = [];
  for (const seed of [...seeds()].slice(RUNS, RUNS * 2)) {
    const s = performance.now();
    const c = process.cpuUsage();
    await ctx.search.relatedKeywords(seed, 2840, 0, 10_000);
    engineRelated.push(performance.now() - s);
    engineRelatedCpu.push(cpuMs(c));
  }
  report('engine only: relatedKeywords 10,000', engineRelated, null, '', engineRelatedCpu);
  const engineIds: number[] = [];
  const engineIdsCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    const c = process.cpuUsage();
    ctx.search.keywordsById(ids);
    engineIds.push(performance.now() - s);
    engineIdsCpu.push(cpuMs(c));
  }
  report('engine only: keywordsById 10,000', engineIds, null, '', engineIdsCpu);

  await app.close();
  await closeContext(ctx);
  if (!reuse) fs.copyFileSync(researchFile, grown);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
