/**
 * Time and peak memory to build the `small` sandbox web and be ready to serve: every
 * table written, every link metric computed, indexes built (DESIGN.md §6; target ≤ 120 s
 * wall and ≤ 3 GiB peak RSS on a 2-core machine).
 *
 * Writes `.bench-data/world-small-s1.db`, which bench/engine-backlinks.bench.ts reuses.
 * Usage: tsx bench/engine-world.bench.ts [small|tiny|large] [seed]
 */
import fs from 'node:fs';
import path from 'node:path';
import type { WorldSize } from '../src/config.js';
import { buildWorld } from '../src/engine/world/buildWorld.js';
import { openEngine } from '../src/engine/index.js';
import { FakeClock } from '../src/lib/clock.js';
import { BENCH_AS_OF } from './benchSupport.js';

export function benchWorldFile(size: WorldSize, seed: number): string {
  return path.resolve('.bench-data', `world-${size}-s${seed}.db`);
}

async function main(): Promise<void> {
  const size = (process.argv[2] ?? 'small') as WorldSize;
  const seed = Number(process.argv[3] ?? 1);
  const file = benchWorldFile(size, seed);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const stages: [string, number][] = [];
  let last = '';
  const started = performance.now();
  const built = await buildWorld({
    size,
    seed,
    file: temporary,
    asOf: BENCH_AS_OF,
    onProgress: (stage) => {
      if (stage !== last) {
        stages.push([stage, (performance.now() - started) / 1000]);
        last = stage;
      }
    },
  });
  // Ready = the engine opens on the file and answers.
  const engine = await openEngine({ file: temporary, clock: new FakeClock(BENCH_AS_OF) });
  const probe = engine.links.backlinks('openpedia.org', {}, { offset: 0, limit: 500 });
  await engine.close();
  const seconds = (performance.now() - started) / 1000;
  fs.renameSync(temporary, file);
  for (const suffix of ['-wal', '-shm']) fs.rmSync(`${temporary}${suffix}`, { force: true });
  const peakMiB = process.resourceUsage().maxRSS / 1024;
  console.log(
    `world ${size} seed ${seed}: ${built.keywords.toLocaleString()} keywords, ${built.rootDomains.toLocaleString()} root domains, ` +
      `${built.pages.toLocaleString()} pages, ${built.links.toLocaleString()} links; giant backlinks ${probe?.meta.available_links.toLocaleString()}`,
  );
  console.log(`stages (s since start): ${stages.map(([s, t]) => `${s} ${t.toFixed(1)}`).join(', ')}`);
  console.log(`ready in ${seconds.toFixed(1)} s wall (target ≤ 120 s), peak RSS ${peakMiB.toFixed(0)} MiB (target ≤ 3072 MiB)`);
  console.log(`file ${file} (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB)`);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('engine-world.bench.ts')) await main();
