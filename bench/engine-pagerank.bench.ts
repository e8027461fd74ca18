/**
 * PageRank throughput: edges per second per power iteration over the CSR arrays of the
 * sandbox link graph, against a plain sequential pass summing over the same edge array
 * (the memory-bandwidth ceiling of one pass over the edges). Target ratio ≥ 0.3.
 *
 * The graph is generated in memory (keywords, sites, links) without writing a store.
 * Usage: tsx bench/engine-pagerank.bench.ts [large|small|tiny] [iterations]
 */
import fs from 'node:fs';
import path from 'node:path';
import type { WorldSize } from '../src/config.js';
import { WORLD_SIZE_SPECS } from '../src/engine/world/sizes.js';
import { Rng } from '../src/engine/world/random.js';
import { generateKeywords } from '../src/engine/world/keywordGenerator.js';
import { generateSites } from '../src/engine/world/siteGenerator.js';
import { generateLinks } from '../src/engine/world/linkGenerator.js';
import { dayNumber } from '../src/engine/world/dates.js';
import { buildInEdgeCsr, segmentCsr } from '../src/engine/links/csrGraph.js';
import { pageRank } from '../src/engine/links/pageRank.js';

const size = (process.argv[2] ?? 'large') as WorldSize;
const iterations = Number(process.argv[3] ?? 10);
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
  const sites = generateSites(spec, keywords, asOfDay, rng.fork(2));
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
// segmentation computed once beforehand (its cost is reported apart).
const segmentSize = Number(process.env.SEGMENT_SIZE ?? 131_072);
t = performance.now();
const segmented = pageCount > segmentSize ? segmentCsr(csr, segmentSize) : null;
console.log(`segmentation (${segmented ? `${segmented.segments.length} segments of ${segmentSize.toLocaleString()} nodes` : 'not needed'}): ${((performance.now() - t) / 1000).toFixed(2)} s`);
pageRank(csr, { tolerance: 0, maxIterations: 2, segmented }); // warm-up (JIT)
t = performance.now();
const result = pageRank(csr, { tolerance: 0, maxIterations: iterations, segmented });
const prSeconds = (performance.now() - t) / 1000;
const prEdgesPerSecond = (csr.edgeCount * result.iterations) / prSeconds;

// Baseline: the same number of sequential passes summing the edge array (after one warm-up pass).
let checksum = 0;
for (let k = -1; k < iterations; k++) {
  if (k === 0) t = performance.now();
  let sum = 0;
  const sources = csr.sources;
  for (let e = 0; e < sources.length; e++) sum += sources[e];
  checksum += sum;
}
const baseSeconds = (performance.now() - t) / 1000;
const baseEdgesPerSecond = (csr.edgeCount * iterations) / baseSeconds;

let total = 0;
for (const r of result.ranks) total += r;
console.log(`PageRank: ${result.iterations} iterations in ${prSeconds.toFixed(2)} s → ${(prEdgesPerSecond / 1e6).toFixed(1)} M edges/s per iteration (rank sum ${total.toFixed(9)})`);
console.log(`baseline sequential sum: ${(baseEdgesPerSecond / 1e6).toFixed(1)} M edges/s (checksum ${checksum})`);
console.log(`ratio PageRank / baseline: ${(prEdgesPerSecond / baseEdgesPerSecond).toFixed(2)} (target ≥ 0.3)`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
