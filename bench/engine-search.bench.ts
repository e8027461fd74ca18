/**
 * Benchmarks of the search engine: related keywords for a head term (target ≤ 100 ms)
 * and one SERP with metrics (target ≤ 30 ms), plus open and rank-index times.
 *
 * World: $QUARRY_BENCH_WORLD, else `.bench-data/world-small-*.db`, else the tiny bench world
 * (benchSupport.ts). Run: `npx tsx bench/engine-search.bench.ts`.
 */
import { openResearchStore } from '../src/engine/researchStore.js';
import { openSearch } from '../src/engine/search/index.js';
import { FakeClock } from '../src/lib/clock.js';
import { BENCH_AS_OF, largestBenchWorld, percentile } from './benchSupport.js';

/**
 * Wall time and this process's CPU time per operation: on a machine shared with other
 * work the wall time inflates while the CPU time shows what the operation costs.
 */
interface Sample {
  wall: number;
  cpu: number;
}

async function timed(run: () => unknown): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function report(name: string, samples: Sample[], target: number): void {
  const wall = samples.map((x) => x.wall).sort((a, b) => a - b);
  const cpu = samples.map((x) => x.cpu).sort((a, b) => a - b);
  const median = percentile(wall, 50);
  console.log(
    `${name.padEnd(40)} wall median ${median.toFixed(1)} ms, p90 ${percentile(wall, 90).toFixed(1)} ms; ` +
      `CPU median ${percentile(cpu, 50).toFixed(1)} ms, p90 ${percentile(cpu, 90).toFixed(1)} ms ` +
      `(target ≤ ${target} ms: ${median <= target ? 'met' : percentile(cpu, 50) <= target ? 'met in CPU time' : 'MISSED'})`,
  );
}

async function main(): Promise<void> {
  const file = await largestBenchWorld();
  console.log(`world: ${file}`);
  const store = await openResearchStore(file);
  const clock = new FakeClock(BENCH_AS_OF);
  let t = performance.now();
  const search = await openSearch({ store, clock });
  console.log(`open (corpus + BM25 index): ${(performance.now() - t).toFixed(0)} ms`);
  t = performance.now();
  const index = await search.rankIndex(2840);
  console.log(`rank index 2840 (load or build): ${(performance.now() - t).toFixed(0)} ms, ${index.rows} rows`);

  const english = Array.from({ length: search.catalog.size }, (_, i) => search.catalog.at(i)).filter((k) => k.languageId === 1000);
  const heads = english.filter((k) => k.kind === 'head').sort((a, b) => b.volume - a.volume);
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  let rows = 0;
  for (let r = 0; r < 3; r++) {
    for (const head of heads.slice(0, 10)) {
      const sample = await timed(async () => {
        rows = (await search.relatedKeywords(head.kw, 2840, 1000, 700)).keywords.length;
      });
      (r === 0 ? cold : warm).push(sample);
    }
  }
  report(`related, head, ≤700 rows, first call (${rows})`, cold, 100);
  report(`related, head, ≤700 rows, repeated`, warm, 100);
  const relatedMax: Sample[] = [];
  for (const head of heads.slice(0, 5)) relatedMax.push(await timed(() => search.relatedKeywords(head.kw, 2840, 1000, 10_000)));
  report('related, head, ≤10,000 rows', relatedMax, 100);

  const serps: Sample[] = [];
  const sample = english.filter((_, i) => i % Math.max(1, Math.floor(english.length / 60)) === 0).slice(0, 60);
  for (const k of sample) serps.push(await timed(() => search.keywordDetail({ kw: k.kw, locationId: 2840 })));
  report('SERP with metrics (keyword detail)', serps, 30);
  await store.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
