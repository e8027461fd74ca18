/**
 * Time to build rank indexes: the default market (2840) from scratch, then further
 * markets in the same process (an English one with as many keywords, a German one with
 * few), then, in a second engine on the same store (a restart), a request for a market
 * not ranked yet while the warm-up build of another one runs in the background (target:
 * a further market ≤ 30 s on `small`).
 *
 * World: $QUARRY_BENCH_WORLD, else the first `.bench-data/*small*.db`, else a tiny world
 * built into `.bench-data/search-tiny.db`. The world is copied into a temporary directory
 * (the engine writes rank indexes into its store) and its stored rank indexes and ranking
 * candidates are dropped, so every build starts cold.
 * Run: `npm run bench:engine-rank-index`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openResearchStore } from '../src/engine/researchStore.js';
import { openSearch } from '../src/engine/search/index.js';
import { FakeClock } from '../src/lib/clock.js';
import { BENCH_AS_OF, largestBenchWorld } from './benchSupport.js';

/** A consistent private copy of the world (SQLite's backup API: safe while another process writes it). */
async function privateCopy(source: string): Promise<{ file: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-rank-bench-'));
  const file = path.join(dir, 'research.db');
  const db = new Database(source, { readonly: true });
  await db.backup(file);
  db.close();
  const copy = new Database(file);
  for (const table of ['search_rank_index', 'search_rank_candidates']) {
    const exists = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (exists) copy.prepare(`DELETE FROM ${table}`).run();
  }
  copy.close();
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Wall and CPU time (this process) of an operation: on a busy machine the wall time inflates. */
async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await run();
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(`${name.padEnd(58)} wall ${wall.toFixed(1)} s, CPU ${((used.user + used.system) / 1e6).toFixed(1)} s`);
  return result;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const source = await largestBenchWorld();
  console.log(`world: ${source}; load average ${load()} (${os.cpus().length} cores)`);
  const copy = await privateCopy(source);
  try {
    const store = await openResearchStore(copy.file);
    const clock = new FakeClock(BENCH_AS_OF);
    const search = await timed('open (corpus + text index)', () => openSearch({ store, clock }));
    const us = await timed('build 2840 (default market, first build)', () => search.buildRankIndex(2840));
    console.log(`  ${us.rows} rows`);
    await timed('build 2826 (English market, after 2840)', () => search.buildRankIndex(2826));
    await timed('build 2276 (German market, after 2840)', () => search.buildRankIndex(2276));

    // A restart: a second engine on the same store warms 2124 up in the background while
    // a request asks for 2250; the request should not wait for the warm-up.
    const restarted = await timed('open a second engine (restart), warm-up 2124', () => openSearch({ store, clock, warmRankIndexes: [2124] }));
    await timed('  request 2250 (French) during the 2124 warm-up', () => restarted.rankIndex(2250));
    await timed('  then 2124 warm-up done (English, after a restart)', () => restarted.rankIndex(2124));
    console.log(`load average at the end ${load()}; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (two engines)`);
    await store.close();
  } finally {
    copy.remove();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
