/**
 * The cost of Quarry's edge on the hottest path: a paid request answered from the request
 * cache, through gateway hook, router, auth (key hash lookup), validation and the policy's
 * cache lookup, over a real loopback socket. Compared with a bare Fastify app that returns
 * the same bytes with the same headers; target: edge ≥ 0.60 × bare.
 *
 * Run: `npm run bench:edge` (env: BENCH_CONNECTIONS, BENCH_SECONDS, BENCH_WARMUP_SECONDS).
 * The load generator runs in a worker thread so it does not share the servers' event loop.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { createContext } from '../src/service.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const TARGET_RATIO = 0.6;
const PATH = '/v3/keyword-tool/trends?kw=bench';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function run(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: CONNECTIONS, duration: seconds, workers: 1 }, (err, result) => {
      if (err) return reject(err);
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors });
    });
  });
}

function line(name: string, f: Figures): string {
  return `${name.padEnd(34)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   non-2xx ${f.non2xx}  errors ${f.errors}`;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-edge-'));
  const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0', QUARRY_PORT: '0', QUARRY_LOG_LEVEL: 'silent' });
  // File-backed state store, as in production (WAL SQLite), not the tests' in-memory one.
  const ctx = await createContext(config);
  const account = await ctx.accounts.create('bench@quarry.local', 'premium', Math.floor(Date.now() / 1000));
  const { key } = await ctx.accounts.createKey(account.id, Math.floor(Date.now() / 1000));
  const app = await buildApp(ctx, { logger: false });
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

  console.log(`edge benchmark: ${CONNECTIONS} connections, ${SECONDS} s per run after ${WARMUP_SECONDS} s warm-up, body ${hitBody.length} bytes`);
  console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}  (${os.cpus().length} cpus)`);

  await run(bareUrl + PATH, headers, WARMUP_SECONDS);
  const bareFigures = await run(bareUrl + PATH, headers, SECONDS);
  await run(edgeUrl + PATH, headers, WARMUP_SECONDS);
  const edgeFigures = await run(edgeUrl + PATH, headers, SECONDS);

  const ratio = edgeFigures.rps / bareFigures.rps;
  console.log(line('bare Fastify, same bytes', bareFigures));
  console.log(line('Quarry edge, paid cache hit', edgeFigures));
  console.log(`ratio edge / bare: ${ratio.toFixed(2)}  (target ≥ ${TARGET_RATIO.toFixed(2)}: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'})`);
  console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  const usage = ctx.policy.store.poolState(account.id, 'trends', 'daily', 500, Date.now());
  if (usage.remaining !== 499) throw new Error(`cache hits were charged: trends remaining ${usage.remaining}`);
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
