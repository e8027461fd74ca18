/**
 * Export throughput: ≥ 1,000,000 generated backlink-like rows (20 columns) through the
 * export CSV writer (lib/csv.ts records → UTF-8 chunks → temp file → fsync → atomic rename). Prints rows/s
 * and the process's peak RSS sampled at 250k, 500k and 1M rows, which must stay flat
 * (the writer streams with backpressure). Target: ≥ 200,000 rows/s.
 *
 *   npx tsx bench/jobs-export.bench.ts [rows]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeCsvExport, type CsvRow } from '../src/jobs/exportFiles.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const CHECKPOINTS = [250_000, 500_000, 1_000_000].filter((n) => n <= ROWS);
const TARGET_ROWS_PER_S = 200_000;

const COLUMNS = [
  'source_url',
  'target_url',
  'anchor',
  'alt',
  'type',
  'no_follow',
  'image',
  'redirect',
  'frame',
  'deleted',
  'first_seen',
  'last_seen',
  'last_crawl',
  'reason_lost',
  'source_cf',
  'source_tf',
  'target_cf',
  'target_tf',
  'lang',
  'ls',
];
const TYPES = ['text', 'image', 'redirect', 'frame', 'mention'];
const WORDS = ['best', 'cheap', 'review', 'guide', 'coffee', 'grinder', 'espresso', 'beans', 'how to', 'near me'];

// Formatting a Date per field would cost more than the CSV writer itself; link data repeats days.
const DATES = Array.from({ length: 2200 }, (_, d) => new Date(Date.UTC(2020, 0, 1) + d * 86_400_000).toISOString().slice(0, 10));
const date = (dayOffset: number): string => DATES[dayOffset];

const SLUGS = WORDS.map((w) => w.replace(' ', '-'));
const ANCHORS = WORDS.flatMap((a) => WORDS.map((b) => `${a} ${b}`));
const TARGETS = Array.from({ length: 5000 }, (_, i) => `https://www.target-site.com/${SLUGS[i % 10]}/${i % 500}`);
const HOSTS = Array.from({ length: 9973 }, (_, i) => `https://blog${i}.example.com/posts/`);

/**
 * Deterministic backlink-like rows, each with its own source URL; the other fields come
 * from small tables and a cheap LCG so that making rows costs far less than writing them
 * (the generator alone is timed and printed too).
 */
function* backlinks(count: number): Generator<CsvRow> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (let i = 0; i < count; i++) {
    const r = next();
    const first = r % 1500;
    yield [
      HOSTS[r % 9973] + i + '/' + SLUGS[r % 10],
      TARGETS[(r >> 3) % 5000],
      ANCHORS[(r >> 5) % 100],
      r % 7 === 0 ? 'logo' : '',
      TYPES[r % 5],
      r % 3 === 0,
      r % 5 === 1,
      r % 5 === 2,
      r % 5 === 3,
      r % 11 === 0,
      date(first),
      date(first + (r % 300)),
      date(first + (r % 300) + 3),
      r % 11 === 0 ? 'page removed' : '',
      r % 101,
      (r >> 4) % 101,
      (r >> 8) % 101,
      (r >> 12) % 101,
      'en',
      r % 11,
    ];
  }
}

async function main(): Promise<void> {
  const genStarted = process.hrtime.bigint();
  let generated = 0;
  for (const _row of backlinks(ROWS)) generated++;
  const genSeconds = Number(process.hrtime.bigint() - genStarted) / 1e9;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-export-bench-'));
  const rssAt = new Map<number, number>();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await writeCsvExport({
    dir,
    fileName: 'bench.csv',
    attemptTag: '1',
    columns: COLUMNS,
    rows: backlinks(ROWS),
    progressEvery: 50_000,
    onProgress: (n) => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      if (CHECKPOINTS.includes(n)) rssAt.set(n, peakRss);
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(sampler);
  fs.rmSync(dir, { recursive: true, force: true });

  const rate = result.rows / seconds;
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  console.log(`export CSV writer: ${result.rows.toLocaleString('en')} rows × ${COLUMNS.length} columns, ${mb(result.bytes)} written`);
  console.log(
    `  time ${seconds.toFixed(2)} s   throughput ${Math.round(rate).toLocaleString('en')} rows/s (target ≥ ${TARGET_ROWS_PER_S.toLocaleString('en')}) ${rate >= TARGET_ROWS_PER_S ? 'OK' : 'BELOW TARGET'}`,
  );
  // On a shared machine wall-clock throughput depends on the neighbours; rows per CPU-second does not.
  console.log(
    `  CPU ${cpuSeconds.toFixed(2)} s (${Math.round((cpuSeconds / seconds) * 100)}% of one core)   ${Math.round(result.rows / cpuSeconds).toLocaleString('en')} rows per CPU-second`,
  );
  console.log(`  (making the rows alone: ${genSeconds.toFixed(2)} s for ${generated.toLocaleString('en')}, included in the figures above)`);
  for (const n of CHECKPOINTS) console.log(`  peak RSS at ${n.toLocaleString('en').padStart(9)} rows: ${mb(rssAt.get(n) ?? 0)}`);
  const first = rssAt.get(CHECKPOINTS[0]) ?? 0;
  const last = rssAt.get(CHECKPOINTS[CHECKPOINTS.length - 1]) ?? 0;
  console.log(`  growth from first to last checkpoint: ${mb(last - first)} (${first ? ((last / first - 1) * 100).toFixed(1) : '0'}%)`);
}

await main();
