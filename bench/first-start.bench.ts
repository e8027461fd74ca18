/**
 * A first start as a newcomer makes it: `quarry serve` (the built dist/main.js) on an empty
 * data directory, timed from spawn until `GET /healthz` answers 200 — the sandbox web built,
 * the engine opened, the search corpus and the default market's rank index loaded, the demo
 * account created. Peak memory is the process's VmHWM (kernel high-water mark of its RSS),
 * plus the highest RSS sampled every 100 ms. Targets (issue "Research engine"): ≤ 120 s wall
 * and ≤ 3 GiB peak on this 2-core machine for the `small` world.
 *
 * Then asks for competitor keywords in a market whose rank index is not built yet (Germany),
 * which the engine computes on demand, and prints how long that first request took.
 *
 * Run: `npm run build && npx tsx bench/first-start.bench.ts [small|tiny] [seed]`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const size = process.argv[2] ?? 'small';
const seed = process.argv[3] ?? '1';
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

async function run(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-first-start-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} CPUs; world ${size}, seed ${seed}`,
  );
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
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.stdout.resume();
  let peakKib = 0;
  const sampler = setInterval(() => (peakKib = Math.max(peakKib, statusKib(child.pid!, 'VmRSS'))), 100);
  try {
    await waitForHealth(base, child);
    const seconds = (performance.now() - started) / 1000;
    const hwm = statusKib(child.pid!, 'VmHWM');
    peakKib = Math.max(peakKib, statusKib(child.pid!, 'VmRSS'));
    const mib = (k: number) => `${(k / 1024).toFixed(0)} MiB`;
    console.log(`ready (GET /healthz 200) ${seconds.toFixed(1)} s after spawn (target ≤ 120 s)`);
    console.log(`peak memory: VmHWM ${mib(hwm)}, highest sampled RSS ${mib(peakKib)} (target ≤ 3072 MiB)`);

    const key = fs.readFileSync(path.join(dataDir, 'demo-key.txt'), 'utf8').trim();
    // The README's first research call, made as soon as the service is ready.
    const r0 = performance.now();
    const related = await fetch(`${base}/v3/keyword-tool/related-keywords?kw=running%20shoes&location_id=2840`, { headers: { 'x-access-token': key } });
    await related.arrayBuffer();
    console.log(`first related-keywords request (2840) right after ready: ${related.status} in ${((performance.now() - r0) / 1000).toFixed(1)} s`);
    const t0 = performance.now();
    const res = await fetch(`${base}/v3/keyword-tool/competitor-keywords?url=openpedia.org&location_id=2276`, { headers: { 'x-access-token': key } });
    await res.arrayBuffer();
    console.log(`first request for a market not built yet (2276): ${res.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    console.log(`peak memory after it: VmHWM ${mib(statusKib(child.pid!, 'VmHWM'))}`);
  } catch (err) {
    console.error(stderr);
    throw err;
  } finally {
    clearInterval(sampler);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await run();
