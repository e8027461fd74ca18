/**
 * PageRank throughput: edges per second per power iteration over the CSR arrays of the
 * sandbox link graph, against a plain sequential pass summing over the same edge array
 * (the memory-bandwidth ceiling of one pass over the edges). Target ratio ≥ 0.3.
 *
 * The graph is generated in memory (keywords, sites, links) without writing a store.
 * Usage: tsx bench/engine-pagerank.bench.ts [large|small|tiny] [iterations per round] [rounds]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WorldSize } from '../src/config.js';
import { WORLD_SIZE_SPECS } from '../src/engine/world/sizes.js';
import { Rng } from '../src/engine/world/random.js';
import { generateKeywords } from '../src/engine/world/keywordGenerator.js';
import { generateSites } from '../src/engine/world/siteGenerator.js';
import { generateLinks } from '../src/engine/world/linkGenerator.js';
import { dayNumber } from '../src/engine/world/dates.js';
import { buildInEdgeCsr, tileCsr } from '../src/engine/links/csrGraph.js';
import { pageRank } from '../src/engine/links/pageRank.js';

const size = (process.argv[2] ?? 'large') as WorldSize;
const iterations = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 7);
const spec = WORLD_SIZE_SPECS[size];
const asOfDay = dayNumber(Date.UTC(2026, 10, 22));

let t = performance.now();
// The generated graph is cached under .bench-data (generation of `large` takes minutes).
const cache = path.resolve('.bench-data', `graph-${size}-s1.bin`);
let pageCount: number;
let source: Int32Array;
let target: Int32Array;
if (fs.existsSync(cache)) {
  const bytes = fs.readFileSync(cache);
  const header = new Int32Array(bytes.buffer, bytes.byteOffset, 2);
  pageCount = header[0];
  const m = header[1];
  const body = new Int32Array(bytes.buffer.slice(bytes.byteOffset + 8, bytes.byteOffset + 8 + 8 * m));
  source = body.subarray(0, m);
  target = body.subarray(m, 2 * m);
  console.log(`graph (${size}) loaded from ${cache}`);
} else {
  const rng = new Rng(1);
  const keywords = generateKeywords(spec.keywords, rng.fork(1));
  const sites = generateSites(spec, keywords, asOfDay, rng.fork(2), new Rng(2));
  const links = generateLinks(sites, spec, asOfDay, rng.fork(3));
  pageCount = sites.pages.count;
  source = links.source;
  target = links.target;
  console.log(`graph (${size}) generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  const out = fs.openSync(cache, 'w');
  fs.writeSync(out, new Uint8Array(Int32Array.from([pageCount, source.length]).buffer));
  fs.writeSync(out, new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  fs.writeSync(out, new Uint8Array(target.buffer, target.byteOffset, target.byteLength));
  fs.closeSync(out);
}
console.log(`${pageCount.toLocaleString()} pages, ${source.length.toLocaleString()} links`);

t = performance.now();
const csr = buildInEdgeCsr(pageCount, source, target);
console.log(`CSR built in ${((performance.now() - t) / 1000).toFixed(2)} s (${csr.edgeCount.toLocaleString()} edges)`);

// PageRank: exactly `iterations` power iterations (tolerance 0 never stops early) over a
// tiling computed once beforehand (its cost is reported apart).
t = performance.now();
const tiles = tileCsr(csr);
console.log(`tiling (${tiles.blockCount}² tiles of ${(2 ** tiles.blockBits).toLocaleString()} nodes a side): ${((performance.now() - t) / 1000).toFixed(2)} s`);
const runPageRank = () => pageRank(csr, { tolerance: 0, maxIterations: iterations, tiles });

// Baseline: `iterations` sequential passes summing the edge array (the memory-bandwidth
// ceiling of one pass over the edges).
let checksum = 0;
const sequentialPasses = (): void => {
  const sources = csr.sources;
  for (let k = 0; k < iterations; k++) {
    let sum = 0;
    for (let e = 0; e < sources.length; e++) sum += sources[e];
    checksum += sum;
  }
};

// Alternating rounds (baseline, PageRank, baseline, PageRank, …) so that the load of the
// machine at any moment weighs on both sides alike; the ratio is the median of the rounds'.
let result = runPageRank(); // warm-up (JIT); the rounds below replace the result
sequentialPasses();
const loadBefore = os.loadavg();
const baseRates: number[] = [];
const prRates: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  t = performance.now();
  sequentialPasses();
  const baseRate = (csr.edgeCount * iterations) / ((performance.now() - t) / 1000);
  t = performance.now();
  result = runPageRank();
  const prRate = (csr.edgeCount * result.iterations) / ((performance.now() - t) / 1000);
  baseRates.push(baseRate);
  prRates.push(prRate);
  ratios.push(prRate / baseRate);
}
const loadAfter = os.loadavg();
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

let total = 0;
for (const r of result.ranks) total += r;
const millions = (rates: number[]) => rates.map((r) => (r / 1e6).toFixed(0)).join(' ');
console.log(`${rounds} alternating rounds of ${iterations} iterations / ${iterations} passes (rank sum ${total.toFixed(9)}, checksum ${checksum})`);
console.log(`PageRank: median ${(median(prRates) / 1e6).toFixed(1)} M edges/s per iteration [${millions(prRates)}]`);
console.log(`baseline sequential sum: median ${(median(baseRates) / 1e6).toFixed(1)} M edges/s [${millions(baseRates)}]`);
console.log(`ratio PageRank / baseline: median ${median(ratios).toFixed(2)} [${ratios.map((r) => r.toFixed(2)).join(' ')}] (target ≥ 0.3)`);
console.log(`load average (1, 5, 15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
