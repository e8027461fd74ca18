/**
 * Fairness (issue 28, item 2): a bystander's latency while another account runs its worst
 * workload, on a real `quarry serve` (API, worker and scheduler in one process, as shipped)
 * over real sockets, against the same calls on the idle server; and the server's peak memory.
 *
 * - Phase 1, the worst workload within the fair-use limits: lists of 10,000 ids created from
 *   8 loops; all lists (1,000,000 stored ids), a list's CSV and 10,000-id keyword exports from
 *   6 loops; 3 live backlink exports of a large domain.
 * - Phase 2, what no limit covered before: backlink export suggestions and the stats of a
 *   1,000-keyword tracking (30 days of checks), 8 loops each.
 * - The bystander (another account) sends one free call (GET /keyword-tool/limits), one free
 *   write (a list rename) and one paid call (a cached related-keywords lookup) every 600 ms
 *   (which its own free-write budget allows) for a minute per phase; a call that takes
 *   longer delays the next round.
 * - Then what a refused request costs the server: list creations of 10,000 ids from 4 loops
 *   once the budget is spent, the server's CPU time (from /proc) per answer.
 *
 * The flooding account runs in a process of its own (bench/fairness/flood.ts); the bystander
 * runs here. World: $QUARRY_BENCH_WORLD, else the `small` one (`npm run bench:engine-world`),
 * else the tiny one, copied into a fresh data directory.
 *
 * Per phase it also prints the server's own event-loop delay (p99 and max, from its /metrics,
 * reset at each scrape) and the CPU of the server and of the flooding process: on a shared
 * 2-core machine the bystander's wall-clock figures hold the machine's load too, the event
 * loop's delay says what the server itself held it for.
 *
 * Goal (issue 28): p99 ≤ 300 ms for free and paid calls in every phase on a 2-core machine;
 * peak anonymous memory ≤ 1.5 GB (the store's mapped pages are page cache, shown beside it: docs/decisions.md). Env: FAIRNESS_PHASE_SECONDS (default 60), FAIRNESS_WARMUP_MS (default
 * 3000); FAIRNESS_SERVER_NODE_ARGS, Node options of the server alone, space-separated (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it: written when the bench stops it).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { DAY, unixSeconds } from '../src/lib/clock.js';
import { rankServices } from '../src/rank/rankService.js';
import { closeContext, createContext } from '../src/service.js';
import { sqliteOf } from '../src/store/database.js';
import { KeywordLists } from '../src/store/keywordLists.js';
import { utcDay } from '../src/store/rankTracking.js';
import { LEVEL } from '../src/engine/researchSchema.js';
import { freePort, startQuarry } from '../test/support/processes.js';
import { largestBenchWorld, percentile } from './benchSupport.js';
import type { FloodPlan } from './fairness/flood.js';

const PHASE_SECONDS = Number(process.env.FAIRNESS_PHASE_SECONDS ?? 60);
const WARMUP_MS = Number(process.env.FAIRNESS_WARMUP_MS ?? 3_000);
const ROUND_MS = 600;
const P99_GOAL_MS = 300;
const MEMORY_GOAL_BYTES = 1.5 * 1024 ** 3;
const STORED_LISTS = 99;
const LIST_IDS = 10_000;
const TRACKED_KEYWORDS = 1_000;
const CHECK_DAYS = 30;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

// ---- the data directory: the world, two accounts, 990,000 stored ids, a tracking with checks ----
const worldFile = await largestBenchWorld();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-fairness-'));
fs.copyFileSync(worldFile, path.join(dir, 'research.db'));
const METRICS_TOKEN = 'fairness-bench-metrics-token';
const env = { QUARRY_DATA_DIR: dir, QUARRY_GATEWAY_RPS: '0', QUARRY_LOG_LEVEL: 'warn', QUARRY_METRICS_TOKEN: METRICS_TOKEN };
const ctx = await createContext(loadConfig(env));
const nowSec = unixSeconds(Date.now());
const makeAccount = async (email: string, plan: string) => {
  const account = await ctx.accounts.create(email, plan, nowSec);
  return { id: account.id, key: (await ctx.accounts.createKey(account.id, nowSec)).key };
};
const flooder = await makeAccount('flooder@example.test', 'custom');
const bystander = await makeAccount('bystander@example.test', 'custom');

// 10,000 keyword ids the service has issued (lists keep only those): related keywords of the catalog's keywords.
const ids = new Set<string>();
const catalog = ctx.search.catalog;
for (let i = 0; ids.size < LIST_IDS && i < catalog.size; i += 1) {
  const { keywords } = await ctx.search.relatedKeywords(catalog.at(i).kw, 2840, 0, LIST_IDS);
  for (const k of keywords) if (ids.size < LIST_IDS) ids.add(k._id);
}
const idList = [...ids];
const idsFile = path.join(dir, 'flood-ids.txt');
fs.writeFileSync(idsFile, idList.join('\n'));
const lists = new KeywordLists(ctx.state.db);
let listId = '';
for (let i = 0; i < STORED_LISTS; i++) listId = (await lists.create(flooder.id, `stored ${i}`, idList, nowSec))._id;
const renamed = (await lists.create(bystander.id, 'renamed', idList.slice(0, 10), nowSec))._id;

// The tracking: 1,000 keywords, a check a day for 30 days, inserted directly.
const { store } = rankServices(ctx);
const trackedKws = [...new Set(Array.from({ length: catalog.size }, (_, i) => catalog.at(i).kw))].slice(0, TRACKED_KEYWORDS);
const tracked = (
  await store.createTrackings(
    flooder.id,
    [{ domain: 'stats.example', locationId: 2840, platformId: 1 }],
    trackedKws.map((kw, i) => ({ kw, sv: 10 + ((i * 7919) % 50_000) })),
    { limit: 1_000_000, nowSec, nowMs: Date.now(), email: 'flooder@example.test' },
  )
)[0];
const insertCheck = sqliteOf(ctx.state).prepare(
  'INSERT INTO rank_checks (keyword_id, day, tracking_id, position, url, visual, features, serp_snapshot_id, checked_ms) VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?)',
);
const firstDayMs = Date.parse(`${utcDay(Date.now())}T00:00:00Z`) - (CHECK_DAYS - 1) * DAY;
sqliteOf(ctx.state).transaction(() => {
  for (const [n, k] of tracked.keywords.entries()) {
    for (let d = 0; d < CHECK_DAYS; d++) {
      const position = 1 + ((n * 31 + d * 7) % 120);
      const shown = position > 100 ? null : position;
      insertCheck.run(k.id, utcDay(firstDayMs + d * DAY), tracked.tracking.id, shown, shown === null ? null : `https://stats.example/${n}`, '[]', Date.now());
    }
  }
})();
await closeContext(ctx);

// The export target: the root domain with the most backlinks.
const research = new Database(path.join(dir, 'research.db'), { readonly: true });
const top = research
  .prepare(
    'SELECT r.domain AS domain, m.total_non_unique AS links FROM entity_metrics m JOIN root_domains r ON r.id = m.entity_id WHERE m.level = ? ORDER BY m.total_non_unique DESC LIMIT 1',
  )
  .get(LEVEL.root) as { domain: string; links: number };
research.close();

// ---- the server ----
const children = new Set<{ kill(signal?: NodeJS.Signals): boolean }>();
const port = await freePort();
const server = startQuarry(['serve'], {
  env: { ...env, QUARRY_PORT: String(port), QUARRY_HOST: '127.0.0.1' },
  nodeArgs: (process.env.FAIRNESS_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
});
children.add(server.child);
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));
const origin = await server.ready();
const base = `${origin}/v3`;
const pid = server.child.pid!;
const statusText = () => fs.readFileSync(`/proc/${pid}/status`, 'utf8');
const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
const status = (name: string) => field(statusText(), name);
/**
 * The server's resident memory split as the kernel counts it: anonymous (heap, buffers: only
 * the process can give it back) and file-backed or shared (the store files mapped by SQLite's
 * mmap_size: clean page-cache pages the kernel may drop at any time and read again). Each
 * connection that maps the store maps it anew, and RSS counts a page once per mapping: three
 * exports reading the same links count those pages three times. PSS (smaps_rollup) counts
 * each page once, split among its mappings, and its Pss_Dirty is what no reclaim can take.
 */
interface Rss {
  total: number;
  anon: number;
  file: number;
  /** From smaps_rollup, read at each new peak of the total: proportional set size, its file-backed part and its dirty part. */
  pss?: { all: number; file: number; dirty: number };
}
const rssNow = (): Rss => {
  const text = statusText();
  return { total: field(text, 'VmRSS'), anon: field(text, 'RssAnon'), file: field(text, 'RssFile') + field(text, 'RssShmem') };
};
const pssNow = () => {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return { all: field(text, 'Pss'), file: field(text, 'Pss_File') + field(text, 'Pss_Shmem'), dirty: field(text, 'Pss_Dirty') };
};
/** Peaks over the whole run, sampled every 200 ms: the largest total (with its split) and the largest anonymous part. */
const peaks = { total: rssNow(), anon: 0 };
const sampleRss = () => {
  const now = rssNow();
  if (now.total > peaks.total.total) peaks.total = { ...now, pss: pssNow() };
  peaks.anon = Math.max(peaks.anon, now.anon);
  return now;
};
const rssSampler = setInterval(sampleRss, 200);
/** A process's CPU seconds so far (user + system, /proc ticks of 1/100 s); 0 once it has gone. */
const cpuOf = (p: number | undefined) => {
  try {
    const fields = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};
const serverCpu = () => cpuOf(pid);
/** The server's event-loop delay since the last scrape (prom-client resets it at each), in ms. */
const eventLoopDelay = async () => {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const value = (name: string) => Number(new RegExp(`^quarry_nodejs_eventloop_lag_${name}_seconds (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  return { p99: value('p99'), max: value('max') };
};

const call = async (key: string, url: string, init: RequestInit = {}) => {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${url}`, {
      ...init,
      headers: { 'x-access-token': key, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(120_000),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    // No answer within two minutes, or the connection failed: counted with the time it took.
    return { status: 0, ms: performance.now() - started };
  }
};
const PAID = '/keyword-tool/related-keywords?kw=trail%20running&location_id=2840';
for (const [url, init] of [[PAID, {}]] as const) {
  const first = await call(bystander.key, url, init);
  if (first.status !== 200) throw new Error(`${url} answered ${first.status}`);
}

type Kind = 'free call' | 'free write' | 'paid call';
interface Phase {
  name: string;
  samples: Record<Kind, number[]>;
  failures: string[];
  peakRss: number;
  peakAnon: number;
  flood?: Record<string, number>;
  cpu: number;
  floodCpu?: number;
  seconds: number;
  load: string;
  loopDelay: { p99: number; max: number };
}

/** The bystander's rounds, paced; the server's RSS sampled meanwhile. */
async function measure(name: string): Promise<Phase> {
  const samples: Record<Kind, number[]> = { 'free call': [], 'free write': [], 'paid call': [] };
  const failures: string[] = [];
  const first = sampleRss();
  let peakRss = first.total;
  let peakAnon = first.anon;
  const sampler = setInterval(() => {
    const now = sampleRss();
    peakRss = Math.max(peakRss, now.total);
    peakAnon = Math.max(peakAnon, now.anon);
  }, 200);
  await eventLoopDelay();
  const cpu0 = serverCpu();
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < PHASE_SECONDS * 1000; i++) {
    const round = performance.now();
    const answers: [Kind, { status: number; ms: number }][] = [
      ['free call', await call(bystander.key, '/keyword-tool/limits')],
      ['free write', await call(bystander.key, `/keyword-tool/lists/${renamed}`, { method: 'PATCH', body: JSON.stringify({ name: `renamed ${i}` }) })],
      ['paid call', await call(bystander.key, PAID)],
    ];
    for (const [kind, a] of answers) {
      samples[kind].push(a.ms);
      if (a.status >= 300) failures.push(`${kind} ${a.status}`);
    }
    await sleep(Math.max(0, ROUND_MS - (performance.now() - round)));
  }
  clearInterval(sampler);
  const cpu = serverCpu() - cpu0;
  const seconds = (performance.now() - t0) / 1000;
  return { name, samples, failures, peakRss, peakAnon, cpu, seconds, load: load(), loopDelay: await eventLoopDelay() };
}

function startFlood(phase: FloodPlan['phase']) {
  const plan: FloodPlan = { base, key: flooder.key, phase, idsFile, listId, trackingId: tracked.tracking.id, exportTarget: top.domain, exportLimit: 200_000 };
  // With an IPC channel: the flood ends with this process, however it ends.
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/fairness/flood.ts'), JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const ended = new Promise<Record<string, number>>((resolve) =>
    child.once('close', () => resolve(JSON.parse(out.trim().split('\n').pop() || '{}') as Record<string, number>)),
  );
  const spent = new Promise<void>((resolve) => child.stdout!.on('data', () => out.startsWith('spent') && resolve()));
  return { spent, cpu: () => cpuOf(child.pid), stop: () => (child.kill('SIGTERM'), ended) };
}

async function floodPhase(name: string, phase: FloodPlan['phase']): Promise<Phase> {
  const flood = startFlood(phase);
  await sleep(WARMUP_MS);
  const floodCpu0 = flood.cpu();
  const measured = await measure(name);
  measured.floodCpu = flood.cpu() - floodCpu0;
  measured.flood = await flood.stop();
  return measured;
}

console.log(
  `fairness: world ${path.basename(worldFile)}, flooder stores ${(STORED_LISTS * LIST_IDS).toLocaleString('en-US')} ids, export target ${top.domain} ` +
    `(${top.links.toLocaleString('en-US')} links); ${PHASE_SECONDS} s per phase; ${os.cpus().length} cores, load ${load()}`,
);
const phases = [await measure('idle')];
phases.push(await floodPhase('phase 1: lists, bulk reads, exports', 'writes-and-bulk'));
// Exports of phase 1 still running finish before phase 2 (they are not part of it).
await sleep(WARMUP_MS);
phases.push(await floodPhase('phase 2: suggest and stats', 'suggest-and-stats'));

// What a refused list creation costs: measured from the moment the flooder's budget is spent.
const refusals = startFlood('refusals');
await refusals.spent;
const cpuBefore = serverCpu();
const refusalT0 = performance.now();
await sleep(5_000);
const refusedCpu = serverCpu() - cpuBefore;
const refusalAnswers = await refusals.stop();
const refusalSeconds = (performance.now() - refusalT0) / 1000;
const peak = status('VmHWM');
clearInterval(rssSampler);
sampleRss();
await server.stop();
fs.rmSync(dir, { recursive: true, force: true });

const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0);
const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
const idle = phases[0];
// The goal is on anonymous memory: mapped store pages are page cache the kernel reclaims under
// pressure (docs/decisions.md, "The memory goal of bench:fairness").
const memoryMet = peaks.anon <= MEMORY_GOAL_BYTES;
// Each goal its own verdict: a missed memory goal says nothing of the latencies.
let p99Met = true;
for (const p of phases) {
  console.log(
    `\n${p.name}: ${p.samples['free call'].length} rounds (load ${p.load}; server CPU ${(p.cpu / p.seconds).toFixed(2)} cores over ${p.seconds.toFixed(0)} s` +
      `${p.floodCpu === undefined ? '' : `, flooding client ${(p.floodCpu / p.seconds).toFixed(2)} cores`}; peak RSS ${mib(p.peakRss)} MiB, anonymous ${mib(p.peakAnon)} MiB)`,
  );
  console.log(`  server event-loop delay p99 ${fmt(p.loopDelay.p99)}, max ${fmt(p.loopDelay.max)}`);
  if (p.flood) console.log(`  flooder's answers: ${JSON.stringify(p.flood)}`);
  if (p.failures.length > 0) console.log(`  bystander non-2xx: ${p.failures.slice(0, 10).join(', ')}${p.failures.length > 10 ? ' …' : ''}`);
  for (const kind of ['free call', 'free write', 'paid call'] as const) {
    const p50 = percentile(p.samples[kind], 50);
    const p99 = percentile(p.samples[kind], 99);
    const goal = kind === 'free write' ? '' : p99 <= P99_GOAL_MS ? ' (goal met)' : ' (goal MISSED)';
    if (kind !== 'free write' && p99 > P99_GOAL_MS) p99Met = false;
    console.log(
      `  ${kind.padEnd(10)} p50 ${fmt(p50).padStart(8)} (×${(p50 / percentile(idle.samples[kind], 50)).toFixed(1)} idle)  ` +
        `p99 ${fmt(p99).padStart(8)} (×${(p99 / percentile(idle.samples[kind], 99)).toFixed(1)} idle)${goal}`,
    );
  }
}
const answered = Object.values(refusalAnswers).reduce((a, b) => a + b, 0);
console.log(
  `\nrefused list creations (10,000 ids each, 4 loops, budget spent): ${JSON.stringify(refusalAnswers)} in ${refusalSeconds.toFixed(1)} s; ` +
    `server CPU ${refusedCpu.toFixed(2)} s = ${((refusedCpu / Math.max(1, answered)) * 1e6).toFixed(0)} µs per answer`,
);
console.log(
  `server resident memory: peak ${mib(peak)} MiB in all (the largest sample ${mib(peaks.total.total)} MiB: ` +
    `${mib(peaks.total.anon)} MiB anonymous + ${mib(peaks.total.file)} MiB file-backed/shared, the store's mapped pages; ` +
    `PSS ${mib(peaks.total.pss?.all ?? 0)} MiB, of which file-backed ${mib(peaks.total.pss?.file ?? 0)} MiB, dirty ${mib(peaks.total.pss?.dirty ?? 0)} MiB)`,
);
console.log(
  `peak anonymous memory ${mib(peaks.anon)} MiB (goal ≤ ${mib(MEMORY_GOAL_BYTES)} MiB: ${memoryMet ? 'met' : 'MISSED'}); ` +
    `goal p99 ≤ ${P99_GOAL_MS} ms for free and paid calls in every phase: ${p99Met ? 'met' : 'MISSED'}`,
);
