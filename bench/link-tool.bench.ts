/**
 * The link tool through the API on the biggest world in `.bench-data/`:
 *
 * 1. GET /v3/link-tool/links latency: 500-link pages of the root domain with the most
 *    backlinks (≥ 1,000,000 on the `small` world), through the whole app (auth, access
 *    policy, engine, JSON); first pages and pages spread over the list; target p50 ≤ 50 ms.
 * 2. Export throughput: an unfiltered export of that domain, created through the API
 *    (suggest, POST /exports) and run by a separate worker process (`startEmbeddedWorker`
 *    with the real handlers of src/workers.ts over the same state store and the context
 *    `quarry worker` opens, `createWorkerContext`: the engine without its search half), in rows/s (target ≥ 200,000), with the worker's peak RSS sampled every 50 ms
 *    from /proc (anonymous and mapped-file parts: the export's reader maps the store file) and its
 *    VmHWM at the end. In the same worker process, after the export: the
 *    baseline, a plain better-sqlite3 scan of the same links selecting only the link
 *    columns in list order (no pages, no CSV), and the export's rows per CPU-second
 *    against the baseline's.
 *
 * Falls back to the tiny test world (and says so) when no `small`/`large` world is there.
 *
 *   npx tsx bench/link-tool.bench.ts [samples]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import BetterSqlite from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { FakeClock, unixSeconds } from '../src/lib/clock.js';
import { closeContext, createContext, createWorkerContext } from '../src/service.js';
import { startEmbeddedWorker } from '../src/jobs/embeddedWorker.js';
import { jobHandlers } from '../src/workers.js';
import { EXPORT_JOB_KIND } from '../src/jobs/exportJobs.js';
import type { JobHandler } from '../src/jobs/worker.js';

const AS_OF = Date.UTC(2026, 10, 22, 12);
/** Issue 26: a backlink export writes at least this many rows per second. */
const EXPORT_GOAL_ROWS_PER_S = 200_000;

function worldFile(): { file: string; label: string } {
  for (const size of ['large', 'small']) {
    const file = path.resolve('.bench-data', `world-${size}-s1.db`);
    if (fs.existsSync(file)) return { file, label: size };
  }
  const tiny = fs.readdirSync(path.resolve('.test-data')).find((f) => /^world-tiny-s1-v\d+\.db$/.test(f));
  if (!tiny) throw new Error('no world: build one with bench/engine-world.bench.ts or run the tests once');
  return { file: path.resolve('.test-data', tiny), label: 'tiny (no small/large world in .bench-data/)' };
}

function biggestRootDomain(file: string): { domain: string; links: number } {
  const db = new BetterSqlite(file, { readonly: true });
  try {
    const row = db
      .prepare(
        'SELECT r.domain, m.total_non_unique AS links FROM entity_metrics m JOIN root_domains r ON r.id = m.entity_id WHERE m.level = 2 ORDER BY m.total_non_unique DESC LIMIT 1',
      )
      .get() as { domain: string; links: number };
    return row;
  } finally {
    db.close();
  }
}

const config = (dataDir: string) => loadConfig({ QUARRY_GATEWAY_RPS: '0', QUARRY_DATA_DIR: dataDir, QUARRY_PUBLIC_URL: 'http://quarry.bench' });

function kib(field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile', pid: number | 'self'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The worker process: runs jobs of the shared state store until the given export is done. */
/** The baseline: the target's links, link columns only, strongest first, read and dropped; rows and CPU seconds. */
function plainLinksScan(researchFile: string, domain: string): { rows: number; cpuSeconds: number } {
  const db = new BetterSqlite(researchFile, { readonly: true });
  try {
    const cpu = process.cpuUsage();
    let rows = 0;
    const links = db
      .prepare(
        `SELECT l.id, l.source_root_id, l.source_page_id, l.target_page_id, l.type, l.anchor, l.alt, l.first_seen, l.last_seen, l.deleted, l.reason_lost, l.nofollow, l.strength
           FROM links l WHERE l.target_root_id = (SELECT id FROM root_domains WHERE domain = ?) AND l.internal = 0 ORDER BY l.score DESC, l.id`,
      )
      .raw()
      .iterate(domain);
    for (const _link of links) rows++;
    const used = process.cpuUsage(cpu);
    return { rows, cpuSeconds: (used.user + used.system) / 1e6 };
  } finally {
    db.close();
  }
}

async function workerMain(dataDir: string, researchFile: string, jobId: string, nowMs: number, domain: string): Promise<void> {
  // As `quarry worker` opens it: the research engine without its search half.
  const ctx = await createWorkerContext(config(dataDir), { clock: new FakeClock(nowMs), researchFile });
  const handlers = jobHandlers(ctx);
  const real = handlers[EXPORT_JOB_KIND] as JobHandler;
  let runMs = 0;
  let cpuMs = 0;
  let ran: () => void = () => {};
  const runDone = new Promise<void>((resolve) => (ran = resolve));
  handlers[EXPORT_JOB_KIND] = {
    ...real,
    async run(jobCtx) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      try {
        return await real.run(jobCtx);
      } finally {
        runMs = performance.now() - started;
        const used = process.cpuUsage(cpu);
        cpuMs = (used.user + used.system) / 1000;
        ran();
      }
    },
  };
  const readyRss = kib('VmRSS', 'self');
  const readyAnon = kib('RssAnon', 'self');
  const running = startEmbeddedWorker(ctx, { handlers, queue: ctx.jobs, pollIntervalMs: 20, concurrency: 1 });
  // The CPU figure is the process's: the wait below must not poll the job while the export
  // runs (every 20 ms over a run of 30 s at high load added more than a CPU-second).
  await runDone;
  for (;;) {
    const job = await ctx.jobs.byId(jobId);
    if (job && (job.state === 'completed' || job.state === 'failed')) {
      await running.stop();
      const result = job.result as { rows: number; bytes: number } | null;
      const hwmKb = kib('VmHWM', 'self');
      const endAnonKb = kib('RssAnon', 'self');
      const endFileKb = kib('RssFile', 'self');
      const baseline = plainLinksScan(researchFile, domain);
      process.stdout.write(
        `${JSON.stringify({ state: job.state, error: job.error, rows: result?.rows ?? 0, bytes: result?.bytes ?? 0, runMs, cpuMs, readyRssKb: readyRss, readyAnonKb: readyAnon, hwmKb, endAnonKb, endFileKb, baseline })}\n`,
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await closeContext(ctx);
}

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 40);
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} CPUs`,
  );
  const { file, label } = worldFile();
  const target = biggestRootDomain(file);
  console.log(`world: ${label} (${path.relative(process.cwd(), file)}); biggest root domain ${target.domain}: ${target.links.toLocaleString()} backlinks`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-link-bench-'));
  const clock = new FakeClock(AS_OF);
  const ctx = await createContext(config(dataDir), { clock, researchFile: file });
  const app = await buildApp(ctx, {});
  await app.ready();
  try {
    const account = await ctx.accounts.create('bench@example.test', 'custom', unixSeconds(clock.now()));
    const { key } = await ctx.accounts.createKey(account.id, unixSeconds(clock.now()));
    const headers = { 'x-access-token': key };
    const pages = Math.ceil(target.links / 500);

    // 1. Backlink pages through the API. Each request is a new page (no cache hit) and 11 s
    // of fake time apart (no burst refusal); the pool is big enough for all of them.
    const run = async (name: string, pageOf: (i: number) => number, extra = '') => {
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        clock.advance(11_000);
        const page = pageOf(i);
        const t0 = performance.now();
        const res = await app.inject({
          method: 'GET',
          url: `/v3/link-tool/links?url=${target.domain}&source=0&page=${page}&links_per_domain=0${extra}`,
          headers,
        });
        times.push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`page ${page}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        const n = (res.json() as { links: unknown[] }).links.length;
        if (n !== Math.min(500, target.links - page * 500)) throw new Error(`page ${page}: ${n} links`);
      }
      console.log(
        `GET /links ${name}: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${samples} pages of 500 (target p50 ≤ 50 ms)`,
      );
    };
    // Warm-up: the first requests compile schemas and fill SQLite's page cache.
    for (let i = 0; i < 3; i++) {
      clock.advance(11_000);
      await app.inject({ method: 'GET', url: `/v3/link-tool/links?url=${target.domain}&source=0&page=${1000 + i}&links_per_domain=0`, headers });
    }
    await run('first pages (0…)', (i) => i);
    {
      // The same pages straight from the engine: what the API adds on top.
      const resolved = ctx.engine.links.resolve(target.domain)!;
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const t0 = performance.now();
        ctx.engine.links.backlinksOf(resolved, { source: 0, linksPerDomain: 0 }, { offset: i * 500, limit: 500 });
        times.push(performance.now() - t0);
      }
      console.log(`engine only, same pages: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`);
    }
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    await run(`random pages of ${pages}`, () => Math.floor(random() * pages));

    // 2. The export, created through the API, run by a worker process.
    clock.advance(11_000);
    const suggest = await app.inject({ method: 'POST', url: '/v3/link-tool/exports/suggest', headers, payload: { url: target.domain } });
    if (suggest.statusCode !== 200) throw new Error(`suggest: ${suggest.statusCode} ${suggest.body}`);
    clock.advance(11_000);
    const created = await app.inject({ method: 'POST', url: '/v3/link-tool/exports', headers, payload: { url: target.domain } });
    if (created.statusCode !== 200) throw new Error(`export: ${created.statusCode} ${created.body}`);
    const jobId = (created.json() as { _id: string })._id;
    const self = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--worker', dataDir, file, jobId, String(clock.now()), target.domain], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let peakKb = 0;
    let peakAnonKb = 0;
    const sampler = setInterval(() => {
      peakKb = Math.max(peakKb, kib('VmRSS', child.pid!));
      peakAnonKb = Math.max(peakAnonKb, kib('RssAnon', child.pid!));
    }, 50);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearInterval(sampler);
    if (code !== 0) throw new Error(`worker exited with ${code}`);
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      state: string;
      error: string | null;
      rows: number;
      bytes: number;
      runMs: number;
      cpuMs: number;
      readyRssKb: number;
      readyAnonKb: number;
      hwmKb: number;
      endAnonKb: number;
      endFileKb: number;
      baseline: { rows: number; cpuSeconds: number };
    };
    if (r.state !== 'completed') throw new Error(`export ${r.state}: ${r.error}`);
    const rowsPerS = r.rows / (r.runMs / 1000);
    const exportPerCpu = r.rows / (r.cpuMs / 1000);
    const baselinePerCpu = r.baseline.rows / r.baseline.cpuSeconds;
    console.log(
      `export of ${target.domain}: ${r.rows.toLocaleString()} rows, ${(r.bytes / 1024 / 1024).toFixed(0)} MiB CSV in ${(r.runMs / 1000).toFixed(2)} s, ${(r.cpuMs / 1000).toFixed(2)} s of worker CPU`,
    );
    console.log(
      `goal ≥ ${EXPORT_GOAL_ROWS_PER_S.toLocaleString()} rows/s: ${Math.round(rowsPerS).toLocaleString()} rows/s wall (ratio ${(rowsPerS / EXPORT_GOAL_ROWS_PER_S).toFixed(2)}), ${Math.round(exportPerCpu).toLocaleString()} rows per CPU-second (ratio ${(exportPerCpu / EXPORT_GOAL_ROWS_PER_S).toFixed(2)})`,
    );
    console.log(
      `baseline, plain better-sqlite3 scan (default pragmas) of the same ${r.baseline.rows.toLocaleString()} links (link columns only, list order): ${r.baseline.cpuSeconds.toFixed(2)} CPU-s → ${Math.round(baselinePerCpu).toLocaleString()} rows per CPU-second; export/baseline ${(exportPerCpu / baselinePerCpu).toFixed(2)} by CPU`,
    );
    // RssFile is the store file's pages the export's reader maps (the OS page cache, shared and
    // reclaimable); RssAnon is the worker's own memory.
    console.log(
      `worker process RSS: ${mib(r.readyRssKb)} when ready (anonymous ${mib(r.readyAnonKb)}), peak sampled ${mib(peakKb)} (anonymous ${mib(peakAnonKb)}), VmHWM ${mib(r.hwmKb)}; at the end anonymous ${mib(r.endAnonKb)}, mapped file ${mib(r.endFileKb)} (before the baseline ran)`,
    );
  } finally {
    await app.close();
    await closeContext(ctx);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--worker') {
  await workerMain(process.argv[3], process.argv[4], process.argv[5], Number(process.argv[6]), process.argv[7]);
} else {
  await main();
}
