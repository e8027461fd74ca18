/**
 * A first start as a newcomer makes it: `quarry serve` (the built dist/main.js) on an empty
 * data directory, timed from spawn until `GET /healthz` answers 200 — the sandbox web built
 * with its text index and the default market (2840) ranked, the engine opened, the demo
 * account created. Peak memory is the process's VmHWM (kernel high-water mark of its RSS),
 * plus the highest RSS sampled every 100 ms. Targets (issues 17 and 26): ready ≤ 60 s and peak
 * ≤ 1.5 GiB on this 2-core machine for the `small` world; restart ≤ 5 s (each line says
 * "met" or "FAIL", with wall and CPU seconds; a failed one makes the bench exit 1); the first backlink
 * export on the fresh world within 10 % of the second's rows/s.
 *
 * Then, on the running service: the README's first related-keywords call (and how many of
 * its rows lack a difficulty), competitor keywords in a market not ranked yet (Germany),
 * two backlink exports of the biggest root domain (200,000 rows each, through the API and
 * the embedded worker: created → completed, from the job's own timestamps), and a restart
 * (SIGTERM, spawn again on the same data directory, until `/healthz` answers 200), with
 * what the restart printed.
 *
 * Run: `npm run build && npx tsx bench/first-start.bench.ts [small|tiny] [seed]`.
 *
 * Restarts only (`npm run bench:restart`, or `… first-start.bench.ts small 1 --restart-only DIR`):
 * DIR keeps its built world between runs (it is built by a first start when it has none, and
 * not deleted); the bench then restarts `quarry serve` on it RESTART_RUNS times and prints each
 * restart's wall and CPU seconds, their medians and the verdict on the median.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import BetterSqlite from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const size = process.argv[2] ?? 'small';
const seed = process.argv[3] ?? '1';
const restartOnlyAt = process.argv.indexOf('--restart-only');
/** The kept data directory of the restart-only mode (see above). */
const restartOnlyDir = restartOnlyAt >= 0 ? path.resolve(process.argv[restartOnlyAt + 1] ?? '.bench-data/restart') : null;
/** Restarts timed in the restart-only mode. */
const RESTART_RUNS = 5;
const main = path.resolve('dist/main.js');
if (!fs.existsSync(main)) throw new Error('dist/main.js is missing: run `npm run build` first');

function statusKib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) the process has used, its threads included (/proc/PID/stat utime + stime). */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    // After "(comm) ": state is field 3, utime field 14, stime field 15 (proc(5)); clock ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Seconds the process's main thread (where the start's work runs) has run and has waited for a
 * CPU while runnable (/proc/PID/schedstat: time on CPU, time on the run queue, in ns;
 * sched-stats.rst). On a loaded machine the wait is where a start's wall time goes beyond its
 * CPU time.
 */
function schedSeconds(pid: number): { ran: number; waited: number } {
  try {
    const [onCpu, onQueue] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { ran: onCpu / 1e9, waited: onQueue / 1e9 };
  } catch {
    return { ran: 0, waited: 0 };
  }
}

async function waitForHealth(base: string, child: { exitCode: number | null }): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quarry serve exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Started {
  child: ChildProcessWithoutNullStreams;
  seconds: number;
  /** CPU seconds of the process when it answered /healthz. */
  cpu: number;
  /** Seconds its main thread had been runnable but waiting for a CPU. */
  waited: number;
  peakKib: number;
  stderr: () => string;
}

/** Spawns `quarry serve` on the data directory and waits until it answers /healthz. */
async function startServe(dataDir: string, port: number): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, [main, 'serve'], {
    env: {
      ...process.env,
      QUARRY_DATA_DIR: dataDir,
      QUARRY_PORT: String(port),
      QUARRY_WORLD_SIZE: size,
      QUARRY_WORLD_SEED: seed,
      QUARRY_GATEWAY_RPS: '0',
      QUARRY_LOG_LEVEL: 'silent',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  let peakKib = 0;
  const sampler = setInterval(() => (peakKib = Math.max(peakKib, statusKib(child.pid!, 'VmRSS'))), 100);
  try {
    await waitForHealth(`http://127.0.0.1:${port}`, child);
  } catch (err) {
    console.error(stderr.slice(-4000));
    throw err;
  } finally {
    clearInterval(sampler);
  }
  peakKib = Math.max(peakKib, statusKib(child.pid!, 'VmRSS'));
  return {
    child,
    seconds: (performance.now() - started) / 1000,
    cpu: cpuSeconds(child.pid!),
    waited: schedSeconds(child.pid!).waited,
    peakKib,
    stderr: () => stderr,
  };
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** A request that waits out a burst refusal (429 with retry_after) and tries again. */
async function call(url: string, key: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const res = await fetch(url, { ...init, headers: { 'x-access-token': key, 'content-type': 'application/json', ...(init.headers ?? {}) } });
    if (res.status !== 429) return res;
    const retry = Number(((await res.json()) as { retry_after?: number }).retry_after ?? 1);
    await new Promise((r) => setTimeout(r, Math.max(1, retry) * 1000 + 100));
  }
}

/** Root domain with the most backlinks. */
function biggestRootDomain(file: string): string {
  const db = new BetterSqlite(file, { readonly: true });
  try {
    return db
      .prepare('SELECT r.domain FROM entity_metrics m JOIN root_domains r ON r.id = m.entity_id WHERE m.level = 2 ORDER BY m.total_non_unique DESC LIMIT 1')
      .pluck()
      .get() as string;
  } finally {
    db.close();
  }
}

/**
 * Creates a backlink export of `domain` (at most `limit` rows) and waits for it: rows, the
 * job's own whole seconds, the wall time seen here (from the create request to the first
 * poll that sees it completed, every 200 ms) and the service's CPU seconds meanwhile.
 */
async function exportRun(
  base: string,
  key: string,
  domain: string,
  limit: number,
  pid: number,
): Promise<{ rows: number; seconds: number; wall: number; cpu: number }> {
  const wall0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  const suggest = await call(`${base}/v3/link-tool/exports/suggest`, key, { method: 'POST', body: JSON.stringify({ url: domain }) });
  if (suggest.status !== 200) throw new Error(`suggest: ${suggest.status} ${await suggest.text()}`);
  const created = await call(`${base}/v3/link-tool/exports`, key, { method: 'POST', body: JSON.stringify({ url: domain, limit }) });
  if (created.status !== 200) throw new Error(`export: ${created.status} ${await created.text()}`);
  const id = ((await created.json()) as { _id: string })._id;
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const list = (await (await call(`${base}/v3/link-tool/exports`, key)).json()) as {
      _id: string;
      state: string;
      backLinks: number;
      createdAt: number;
      completedAt: number | null;
      error: unknown;
    }[];
    const job = list.find((j) => j._id === id);
    if (!job) throw new Error(`export ${id} is not listed`);
    if (job.state === 'failed' || job.error) throw new Error(`export ${id}: ${JSON.stringify(job.error)}`);
    if (job.completedAt !== null && job.completedAt !== undefined)
      return {
        rows: job.backLinks,
        seconds: Math.max(1, job.completedAt - job.createdAt),
        wall: (performance.now() - wall0) / 1000,
        cpu: cpuSeconds(pid) - cpu0,
      };
  }
}

/** Issue 26's targets: the small world's first start and a restart, spawn to /healthz 200. */
const FIRST_START_TARGET_S = 60;
const RESTART_TARGET_S = 5;

/**
 * "met" or "FAIL" by wall time (the bench then exits 1). On a shared machine the wall time
 * includes the neighbours' load; the CPU seconds beside it say whether the process itself fits.
 */
function verdict(started: Started, targetS: number): string {
  if (started.seconds <= targetS) return 'met';
  process.exitCode = 1;
  return `FAIL (${(started.seconds / targetS).toFixed(2)}× the target; ${started.cpu <= targetS ? 'its CPU seconds are within it' : 'its CPU seconds alone exceed it'})`;
}

async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-first-start-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(`load average ${load()} on ${os.cpus().length} CPUs; world ${size}, seed ${seed}`);
  const mib = (k: number) => `${(k / 1024).toFixed(0)} MiB`;
  let serving: Started | undefined;
  try {
    serving = await startServe(dataDir, port);
    const hwm = statusKib(serving.child.pid!, 'VmHWM');
    console.log(
      `first start: ready (GET /healthz 200) ${serving.seconds.toFixed(1)} s after spawn, ${serving.cpu.toFixed(1)} CPU-s (target ≤ ${FIRST_START_TARGET_S} s): ${verdict(serving, FIRST_START_TARGET_S)}; load average now ${load()}; it printed:`,
    );
    for (const line of serving.stderr().trimEnd().split('\n')) console.log(`  | ${line}`);
    console.log(`peak memory: VmHWM ${mib(hwm)}, highest sampled RSS ${mib(serving.peakKib)} (target ≤ 1536 MiB)`);

    const key = fs.readFileSync(path.join(dataDir, 'demo-key.txt'), 'utf8').trim();
    // The README's first research call, made as soon as the service is ready.
    const r0 = performance.now();
    const related = await call(`${base}/v3/keyword-tool/related-keywords?kw=running%20shoes&location_id=2840`, key);
    const rows = ((await related.json()) as { keywords?: { seo: number | null }[] }).keywords ?? [];
    console.log(
      `first related-keywords request (2840) right after ready: ${related.status} in ${((performance.now() - r0) / 1000).toFixed(1)} s, ` +
        `${rows.length} rows, ${rows.filter((k) => k.seo === null).length} without difficulty`,
    );
    const t0 = performance.now();
    const res = await call(`${base}/v3/keyword-tool/competitor-keywords?url=openpedia.org&location_id=2276`, key);
    await res.arrayBuffer();
    console.log(`first request for a market not ranked yet (2276): ${res.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const domain = biggestRootDomain(path.join(dataDir, 'research.db'));
    const pid = serving.child.pid!;
    const first = await exportRun(base, key, domain, 200_000, pid);
    const second = await exportRun(base, key, domain, 199_999, pid);
    const rate = (r: { rows: number }, seconds: number) => r.rows / seconds;
    console.log(
      `backlink exports of ${domain} (created → completed, whole seconds): first ${first.rows.toLocaleString()} rows in ${first.seconds} s → ` +
        `${Math.round(rate(first, first.seconds)).toLocaleString()} rows/s; second ${second.rows.toLocaleString()} rows in ${second.seconds} s → ` +
        `${Math.round(rate(second, second.seconds)).toLocaleString()} rows/s; first/second ${(rate(first, first.seconds) / rate(second, second.seconds)).toFixed(2)} (target ≥ 0.90)`,
    );
    console.log(
      `  measured here: first ${first.wall.toFixed(1)} s wall, ${first.cpu.toFixed(1)} CPU-s → ${Math.round(rate(first, first.cpu)).toLocaleString()} rows per CPU-s; ` +
        `second ${second.wall.toFixed(1)} s wall, ${second.cpu.toFixed(1)} CPU-s → ${Math.round(rate(second, second.cpu)).toLocaleString()} rows per CPU-s; ` +
        `first/second by CPU ${(rate(first, first.cpu) / rate(second, second.cpu)).toFixed(2)}, by wall ${(rate(first, first.wall) / rate(second, second.wall)).toFixed(2)}; load average ${load()}`,
    );
    console.log(`peak memory after them: VmHWM ${mib(statusKib(serving.child.pid!, 'VmHWM'))}`);
    await stop(serving.child);

    console.log(`load average ${load()} before the restart`);
    serving = await startServe(dataDir, port);
    console.log(
      `restart: ready ${serving.seconds.toFixed(1)} s after spawn, ${serving.cpu.toFixed(1)} CPU-s, ${serving.waited.toFixed(1)} s the main thread waited for a CPU (target ≤ ${RESTART_TARGET_S} s): ${verdict(serving, RESTART_TARGET_S)}; it printed:`,
    );
    for (const line of serving.stderr().trimEnd().split('\n')) console.log(`  | ${line}`);
    await stop(serving.child);
    serving = undefined;

    // `world info --hash` on the same data directory: wall, CPU and peak memory from GNU time.
    console.log(`load average ${load()} before world info --hash`);
    const h0 = performance.now();
    const info = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, main, 'world', 'info', '--hash'], {
      env: { ...process.env, QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    const [, user, system, maxKib] = (info.stderr.match(/TIME ([\d.]+) ([\d.]+) (\d+)/) ?? []).map(Number);
    const hashLine = info.stdout.split('\n').find((l) => /hash/i.test(l)) ?? info.stdout.trim().split('\n').at(-1);
    console.log(
      `world info --hash: ${((performance.now() - h0) / 1000).toFixed(1)} s wall, ${(user + system).toFixed(1)} CPU-s, peak ${mib(maxKib)} (exit ${info.status}): ${hashLine}`,
    );
  } finally {
    if (serving) await stop(serving.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Restarts on a kept data directory, built first when it has no world (see the header). */
async function restartOnly(dataDir: string): Promise<void> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  console.log(`load average ${load()} on ${os.cpus().length} CPUs; world ${size}, seed ${seed}; restarts on ${dataDir}`);
  if (!fs.existsSync(path.join(dataDir, 'demo-key.txt'))) {
    fs.mkdirSync(dataDir, { recursive: true });
    const first = await startServe(dataDir, port);
    console.log(`first start (to build the kept world): ${first.seconds.toFixed(1)} s, ${first.cpu.toFixed(1)} CPU-s`);
    await stop(first.child);
  }
  const runs: Started[] = [];
  for (let i = 0; i < RESTART_RUNS; i++) {
    const started = await startServe(dataDir, port);
    await stop(started.child);
    runs.push(started);
    console.log(
      `restart ${i + 1}: ready ${started.seconds.toFixed(2)} s after spawn, ${started.cpu.toFixed(2)} CPU-s, ${started.waited.toFixed(2)} s the main thread waited for a CPU; load average ${load()}`,
    );
    if (i === 0) for (const line of started.stderr().trimEnd().split('\n')) console.log(`  | ${line}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mid: Started = { ...runs[0], seconds: median(runs.map((r) => r.seconds)), cpu: median(runs.map((r) => r.cpu)) };
  console.log(
    `restart median of ${RESTART_RUNS}: ${mid.seconds.toFixed(2)} s wall, ${mid.cpu.toFixed(2)} CPU-s (target ≤ ${RESTART_TARGET_S} s): ${verdict(mid, RESTART_TARGET_S)}; load average ${load()}`,
  );
}

if (restartOnlyDir) await restartOnly(restartOnlyDir);
else await run();
