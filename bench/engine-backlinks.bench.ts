/**
 * Latency of a 500-link backlink page of a root domain with ≥ 1,000,000 links (the giant
 * wiki of the `small` world), strongest first, at pages spread over the whole list;
 * target p50 ≤ 50 ms. Also reports the one-per-domain and "new links" variants.
 *
 * Needs `.bench-data/world-small-s1.db` (bench/engine-world.bench.ts builds it).
 * Usage: tsx bench/engine-backlinks.bench.ts [samples]
 */
import fs from 'node:fs';
import path from 'node:path';
import { openEngine } from '../src/engine/index.js';
import { FakeClock } from '../src/lib/clock.js';
import { Rng } from '../src/engine/world/random.js';
import type { BacklinkFilter } from '../src/engine/index.js';
import { BENCH_AS_OF, percentile } from './benchSupport.js';

const file = path.resolve('.bench-data', 'world-small-s1.db');
if (!fs.existsSync(file)) {
  console.error(`${file} is missing: run tsx bench/engine-world.bench.ts small first`);
  process.exit(1);
}
const samples = Number(process.argv[2] ?? 60);
const engine = await openEngine({ file, clock: new FakeClock(BENCH_AS_OF) });
const target = engine.links.resolve('openpedia.org')!;
const total = engine.links.countBacklinks(target, {});
console.log(`target ${target.name}: ${total.toLocaleString()} backlinks`);

function run(label: string, filter: BacklinkFilter, pages: number): void {
  const rng = new Rng(7);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const page = i === 0 ? 0 : rng.int(0, Math.max(0, pages - 1));
    const t = performance.now();
    const result = engine.links.backlinksOf(target, filter, { offset: page * 500, limit: 500 });
    times.push(performance.now() - t);
    if (result.links.length === 0 && page < pages - 1) throw new Error(`empty page ${page}`);
  }
  console.log(
    `${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${samples} pages of 500`,
  );
}

// Totals of unfiltered lists come from the stored counters; the page query is the cost.
run('all links, random pages', {}, Math.ceil(total / 500));
run('all links, first 20 pages', {}, 20);
run('one per domain', { linksPerDomain: 1 }, Math.ceil(engine.links.countBacklinks(target, { linksPerDomain: 1 }) / 500));
run('new links (count + page)', { source: 1 }, Math.ceil(engine.links.countBacklinks(target, { source: 1 }) / 500));
await engine.close();
