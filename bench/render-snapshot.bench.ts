/**
 * SERP snapshot rendering time: the fixture results page (ads, map pack, featured
 * snippet, "people also ask", ten organic results) rendered N times per platform,
 * with p50/p95 in milliseconds of wall-clock time, and the p50 of the process's CPU time
 * (which a busy shared machine inflates much less). Target: p50 ≤ 150 ms. Also writes one picture per
 * platform to /tmp/snapshot-desktop.png and /tmp/snapshot-mobile.png for a look.
 *
 * Run: npx tsx bench/render-snapshot.bench.ts [iterations=30]
 */
import { writeFileSync } from 'node:fs';
import { renderSerpSnapshot } from '../src/render/serpSnapshot.js';
import { plumberSerp } from '../test/render/serpFixture.js';
import { percentile } from './benchSupport.js';

const iterations = Math.max(1, Number(process.argv[2] ?? 30));
const WARM_UP = 3;

for (const [name, platform] of [
  ['desktop', 1],
  ['mobile', 2],
] as const) {
  const serp = plumberSerp(platform);
  const png = renderSerpSnapshot(serp);
  writeFileSync(`/tmp/snapshot-${name}.png`, png);
  for (let i = 0; i < WARM_UP; i++) renderSerpSnapshot(serp);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    renderSerpSnapshot(serp);
    const used = process.cpuUsage(startCpu);
    times.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(7)} n=${iterations} p50=${percentile(times, 50).toFixed(1)} ms p95=${percentile(times, 95).toFixed(1)} ms ` +
      `cpu p50=${percentile(cpu, 50).toFixed(1)} ms png=${(png.length / 1024).toFixed(0)} KiB → /tmp/snapshot-${name}.png`,
  );
}
