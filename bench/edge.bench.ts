/**
 * The cost of Quarry's edge on the hottest path: a paid request answered from the request
 * cache, through router, auth (a remembered key), the fair-use door, validation, the policy's
 * cache lookup, /metrics counting and the request log line (as served: at info, to /dev/null
 * here), over a real loopback socket (the gateway limit is off: one address sends everything). Compared with a bare Fastify app that returns
 * the same bytes with the same headers; target (issue 26): edge ≥ 0.90 × bare by requests/s,
 * and printed beside it the same ratio by server CPU time per request (bare µs / edge µs).
 *
 * Run: `npm run bench:edge` (env: BENCH_CONNECTIONS, BENCH_SECONDS per server, BENCH_SLICE_SECONDS,
 * BENCH_WARMUP_SECONDS, BENCH_EDGE_LOG=0 for an edge without its request log).
 * The load generator runs in a child process; besides req/s the bench prints the servers' CPU
 * time per request, which other people's load on the machine disturbs far less.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { gatheredLogDestination } from '../src/http/logDestination.js';
import { createContext } from '../src/service.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const TARGET_RATIO = 0.9;
const PATH = '/v3/keyword-tool/trends?kw=bench';

interface Figures {
  rps: number;
  /** Server CPU time (user + system) per answered request, in µs. */
  cpuUs: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * One autocannon run from a child process, so that the load generator shares neither the
 * servers' event loop nor their CPU-time account: process.cpuUsage() here is then the
 * servers' own work, which is the robust figure on a machine other people are using.
 */
function run(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  const script = `
    const autocannon = require('autocannon');
    const opts = JSON.parse(process.argv[1]);
    autocannon(opts, (err, r) => {
      if (err) { console.error(err); process.exit(1); }
      process.stdout.write(JSON.stringify({ rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors }));
    });`;
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, JSON.stringify({ url, headers, connections: CONNECTIONS, duration: seconds })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const used = process.cpuUsage(cpu);
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out);
      resolve({
        rps: r.rps,
        cpuUs: (used.user + used.system) / Math.max(1, r.total),
        p50: r.p50,
        p99: r.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    });
  });
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function combine(slices: Figures[]): Figures {
  return {
    rps: slices.reduce((sum, f) => sum + f.rps, 0) / slices.length,
    cpuUs: median(slices.map((f) => f.cpuUs)),
    p50: median(slices.map((f) => f.p50)),
    p99: median(slices.map((f) => f.p99)),
    non2xx: slices.reduce((sum, f) => sum + f.non2xx, 0),
    errors: slices.reduce((sum, f) => sum + f.errors, 0),
  };
}

function line(name: string, f: Figures): string {
  return `${name.padEnd(30)} ${f.rps.toFixed(0).padStart(7)} req/s   server CPU ${f.cpuUs.toFixed(1).padStart(5)} µs/req   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   non-2xx ${f.non2xx}  errors ${f.errors}`;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-edge-'));
  const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0', QUARRY_PORT: '0' });
  // File-backed state store, as in production (WAL SQLite), not the tests' in-memory one.
  const ctx = await createContext(config);
  const account = await ctx.accounts.create('bench@quarry.local', 'premium', Math.floor(Date.now() / 1000));
  const { key } = await ctx.accounts.createKey(account.id, Math.floor(Date.now() / 1000));
  // As served (serve.ts: the request log at the configured level, info by default, on stdout
  // its lines gathered into larger writes), written to /dev/null here: the edge's cost
  // includes its log line. BENCH_EDGE_LOG=0 measures it without.
  const logged = process.env.BENCH_EDGE_LOG !== '0';
  const logger = logged ? { level: config.logLevel, stream: gatheredLogDestination('/dev/null') } : false;
  const app = await buildApp(ctx, { logger });
  const edgeUrl = await app.listen({ port: 0, host: '127.0.0.1' });

  const headers = { 'x-access-token': key };
  const first = await fetch(edgeUrl + PATH, { headers });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`priming failed: ${first.status} ${body}`);
  const hit = await fetch(edgeUrl + PATH, { headers });
  const hitBody = await hit.text();
  if (hit.headers.get('x-cache') !== 'HIT' || hitBody !== body) throw new Error('the second request was not a cache hit');
  const contentType = hit.headers.get('content-type')!;

  // The same bytes, the same content type and cache header, nothing else.
  const bare = Fastify({ logger: false });
  bare.get('/v3/keyword-tool/trends', async (_req, reply) => reply.header('content-type', contentType).header('x-cache', 'HIT').send(hitBody));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

  console.log(
    `edge benchmark: ${CONNECTIONS} connections, ${SECONDS} s per server after ${WARMUP_SECONDS} s warm-up each, body ${hitBody.length} bytes, edge request log ${logged ? `at ${config.logLevel} to /dev/null` : 'off'}`,
  );
  console.log(
    `load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}  (${os.cpus().length} cpus)`,
  );

  await run(bareUrl + PATH, headers, WARMUP_SECONDS);
  await run(edgeUrl + PATH, headers, WARMUP_SECONDS);
  // Short alternating slices rather than one long run each: on a shared machine the load
  // changes from second to second, and alternating exposes both servers to the same load.
  const rounds = Math.max(1, Math.round(SECONDS / SLICE_SECONDS));
  const bareSlices: Figures[] = [];
  const edgeSlices: Figures[] = [];
  for (let r = 0; r < rounds; r++) {
    bareSlices.push(await run(bareUrl + PATH, headers, SLICE_SECONDS));
    edgeSlices.push(await run(edgeUrl + PATH, headers, SLICE_SECONDS));
  }
  const bareFigures = combine(bareSlices);
  const edgeFigures = combine(edgeSlices);
  const ratios = edgeSlices.map((e, i) => e.rps / bareSlices[i].rps);
  const ratio = median(ratios);

  console.log(`${rounds} alternating rounds of ${SLICE_SECONDS} s per server (req/s: mean over slices; CPU time and latency: median of slices)`);
  console.log(line('bare Fastify, same bytes', bareFigures));
  console.log(line('Quarry edge, paid cache hit', edgeFigures));
  console.log(`ratio per round: ${ratios.map((x) => x.toFixed(2)).join(' ')}`);
  // Less sensitive to other processes than req/s: how much server CPU each request takes.
  const cpuRatios = edgeSlices.map((e, i) => bareSlices[i].cpuUs / e.cpuUs);
  const cpuRatio = median(cpuRatios);
  const verdict = (r: number) => `(target ≥ ${TARGET_RATIO.toFixed(2)}: ${r >= TARGET_RATIO ? 'met' : 'MISSED'})`;
  console.log(`CPU ratio per round: ${cpuRatios.map((x) => x.toFixed(2)).join(' ')}`);
  console.log(
    `ratio by CPU per request, bare / edge (median of rounds): ${cpuRatio.toFixed(2)}  ${verdict(cpuRatio)}  [${bareFigures.cpuUs.toFixed(1)} / ${edgeFigures.cpuUs.toFixed(1)} µs]`,
  );
  console.log(`ratio by requests/s, edge / bare (median of rounds): ${ratio.toFixed(2)}  ${verdict(ratio)}`);
  console.log(
    `load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

  const usage = (await ctx.policy.poolStates(account)).trends;
  if (usage.limit - usage.remaining !== 1) throw new Error(`cache hits were charged: trends used ${usage.limit - usage.remaining}`);
  if (edgeFigures.non2xx > 0 || edgeFigures.errors > 0) throw new Error('the edge answered errors during the run');

  await bare.close();
  await app.close();
  await ctx.state.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
