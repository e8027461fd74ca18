/**
 * Scale mode against the embedded mode, in one run, on real `quarry serve --roles api`
 * processes over real sockets:
 * - cache-hit throughput (a paid lookup answered from the request cache) of one embedded
 *   process (SQLite), of one scale-mode process (PostgreSQL + Redis) and of two scale-mode
 *   processes sharing one database and one Redis prefix, with the ratio two / one;
 * - admission latency p50/p99: paid lookups that miss the cache (each one admitted, executed,
 *   cached and charged), and refused ones (the pool is empty: the admission decision alone).
 *
 * The scale processes get a PostgreSQL database of their own (random name, dropped at the
 * end) on QUARRY_TEST_DATABASE_URL and a Redis key prefix of their own on
 * QUARRY_TEST_REDIS_URL (defaults: the local servers). Each process has its own data
 * directory with a copy of the tiny test world.
 *
 * Run: `npm run bench:scale` (env: BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_SLICE_SECONDS,
 * BENCH_WARMUP_SECONDS, BENCH_LATENCY_SAMPLES). Throughput slices alternate between the three
 * set-ups (a shared machine's load changes from second to second). Besides req/s the bench
 * prints the API processes' CPU time per request (from each one's /metrics), which other
 * people's load disturbs far less, and the Redis server's CPU per request (INFO cpu; the whole
 * server, so other users of it count too) and, when the server runs on this machine, the
 * PostgreSQL processes' CPU per request (/proc; all its databases, other users too).
 *
 * Target (issue 26): on a 2-core machine two processes cannot show scaling, so the goal is the
 * CPU a cache hit costs: scale mode's (API + PostgreSQL + Redis) ≤ 1.5 × the embedded mode's.
 * Last, a key is revoked with `quarry keys revoke` and the bench prints how long after the
 * command returned the other scale process refuses it (goal: within one second).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { POOLS } from '../src/policy/pools.js';
import { runQuarry } from '../test/support/cli.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../test/support/postgres.js';
import type { RedisHandle } from '../src/lib/redis.js';
import { TEST_REDIS_URL, testRedis } from '../test/support/redis.js';
import { startServe, type ServeProcess } from '../test/support/serveProcess.js';
import { METRICS_HEADERS, TEST_METRICS_TOKEN } from '../test/support/app.js';
import { percentile } from './benchSupport.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const HIT_PATH = '/v3/keyword-tool/trends?kw=bench';
/** Scale mode's CPU per cache hit (API + PostgreSQL + Redis) at most this many times the embedded mode's. */
const CPU_TARGET = 1.5;
/** A revoked key is refused by every process within this long. */
const REVOKE_TARGET_MS = 1_000;

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Throughput {
  rps: number;
  total: number;
  non2xx: number;
  errors: number;
  /** API processes' CPU time (user + system) per answered request, µs. */
  cpuUs: number;
  /** The Redis server's CPU time per answered request, µs (the whole server: other users of it count too). */
  redisUs: number;
  /** The local PostgreSQL server's processes' CPU time per answered request, µs (null when not local). */
  postgresUs: number | null;
}

/**
 * CPU seconds of the processes named `postgres` on this machine (/proc, Linux; clock ticks of
 * 1/100 s): the local server's backends, all databases. Null when there are none to read.
 */
function postgresCpuSeconds(): number | null {
  if (!fs.existsSync('/proc')) return null;
  let ticks = 0;
  let found = false;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      found = true;
    } catch {
      // The process ended meanwhile.
    }
  }
  return found ? ticks / 100 : null;
}

/** The Redis server's CPU seconds so far (INFO cpu: user + system). */
async function redisCpuSeconds(redis: RedisHandle): Promise<number> {
  const info = await redis.client.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** The process CPU seconds a server reports on its /metrics (prom-client's default metric). */
async function cpuSeconds(server: ServeProcess): Promise<number> {
  const text = await (await fetch(`${server.origin}/metrics`, { headers: METRICS_HEADERS })).text();
  const line = text.split('\n').find((l) => l.startsWith('quarry_process_cpu_seconds_total '));
  if (!line) throw new Error(`${server.origin}/metrics has no quarry_process_cpu_seconds_total`);
  return Number(line.split(' ')[1]);
}

/**
 * One autocannon run from a child process (the load generator shares neither the servers'
 * event loops nor their CPU account). Several servers: autocannon spreads its connections
 * over the URLs, so one load generator drives one or two processes alike.
 */
async function hammer(servers: ServeProcess[], key: string, seconds: number, redis: RedisHandle): Promise<Throughput> {
  const script = `
    const autocannon = require('autocannon');
    const opts = JSON.parse(process.argv[1]);
    autocannon(opts, (err, r) => {
      if (err) { console.error(err); process.exit(1); }
      process.stdout.write(JSON.stringify({ rps: r.requests.average, total: r.requests.total, non2xx: r.non2xx, errors: r.errors }));
    });`;
  const urls = servers.map((s) => s.origin + HIT_PATH);
  const cpuBefore = await Promise.all(servers.map(cpuSeconds));
  const redisBefore = await redisCpuSeconds(redis);
  const postgresBefore = postgresCpuSeconds();
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        script,
        JSON.stringify({ url: urls.length === 1 ? urls[0] : urls, headers: { 'x-access-token': key }, connections: CONNECTIONS, duration: seconds }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`autocannon exited with ${code}`))));
  });
  const cpuAfter = await Promise.all(servers.map(cpuSeconds));
  const redisCpu = (await redisCpuSeconds(redis)) - redisBefore;
  const postgresAfter = postgresCpuSeconds();
  const postgresCpu = postgresBefore === null || postgresAfter === null ? null : postgresAfter - postgresBefore;
  const r = JSON.parse(out) as Omit<Throughput, 'cpuUs' | 'redisUs' | 'postgresUs'>;
  const cpu = cpuAfter.reduce((sum, after, i) => sum + after - cpuBefore[i], 0);
  return {
    ...r,
    cpuUs: (cpu * 1e6) / Math.max(1, r.total),
    redisUs: (redisCpu * 1e6) / Math.max(1, r.total),
    postgresUs: postgresCpu === null ? null : (postgresCpu * 1e6) / Math.max(1, r.total),
  };
}

/** A key of a new account on `plan`, created by the CLI on the server's state store. */
function createKey(server: ServeProcess, plan: string, email: string): string {
  const res = runQuarry(['accounts', 'create', '--email', email, '--plan', plan], server.env);
  const key = /api key (\S+)/.exec(res.stdout)?.[1];
  if (res.code !== 0 || !key) throw new Error(`accounts create failed (${res.code}): ${res.stdout}${res.stderr}`);
  return key;
}

async function get(server: ServeProcess, url: string, key: string): Promise<{ status: number; cache: string | null; ms: number }> {
  const started = performance.now();
  const res = await fetch(server.origin + url, { headers: { 'x-access-token': key } });
  await res.arrayBuffer();
  return { status: res.status, cache: res.headers.get('x-cache'), ms: performance.now() - started };
}

const median = (values: number[]) => percentile(values, 50);
const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-scale-'));
  // `bench`: pools and burst far beyond what the run uses, so every miss is admitted;
  // `bench-empty`: empty pools, so every lookup is refused by the admission decision.
  const plansFile = path.join(work, 'plans.json');
  const pools = (size: number) => Object.fromEntries(POOLS.map((pool) => [pool, size]));
  fs.writeFileSync(plansFile, JSON.stringify({ bench: { pools: pools(10_000_000), reqsPerShortPeriod: 10_000_000 }, 'bench-empty': { pools: pools(0) } }));
  const common = {
    QUARRY_METRICS_TOKEN: TEST_METRICS_TOKEN,
    QUARRY_GATEWAY_RPS: '0',
    QUARRY_LOG_LEVEL: 'warn',
    QUARRY_PLANS_FILE: plansFile,
    QUARRY_FREE_WRITES_PER_MINUTE: '0',
  };

  const database = await createTestDatabase();
  const redis = await testRedis(`quarry-bench:${process.pid}:${Date.now().toString(36)}:`);
  const scaleEnv = { ...common, QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: redis.prefix };
  const servers: ServeProcess[] = [];
  try {
    console.log(`scale benchmark: load average at start ${loadavg()} (${os.cpus().length} cpus)`);
    console.log(`  PostgreSQL ${new URL(TEST_DATABASE_URL).host} database ${database.name}, Redis ${new URL(TEST_REDIS_URL).host} prefix ${redis.prefix}`);
    const args = ['--roles', 'api'];
    const embedded = await startServe(common, { args });
    servers.push(embedded);
    // One after the other: the first runs the PostgreSQL migrations.
    const scaleA = await startServe(scaleEnv, { args });
    servers.push(scaleA);
    const scaleB = await startServe(scaleEnv, { args });
    servers.push(scaleB);

    const embeddedKey = createKey(embedded, 'bench', 'bench@quarry.local');
    const embeddedEmpty = createKey(embedded, 'bench-empty', 'empty@quarry.local');
    const scaleKey = createKey(scaleA, 'bench', 'bench@quarry.local');
    const scaleEmpty = createKey(scaleA, 'bench-empty', 'empty@quarry.local');

    // Prime the cache; the second answer (from the other scale process too) must be a hit.
    for (const [server, key] of [
      [embedded, embeddedKey],
      [scaleA, scaleKey],
    ] as const) {
      const first = await get(server, HIT_PATH, key);
      if (first.status !== 200) throw new Error(`priming ${server.origin}: ${first.status}`);
    }
    for (const [server, key] of [
      [embedded, embeddedKey],
      [scaleA, scaleKey],
      [scaleB, scaleKey],
    ] as const) {
      const hit = await get(server, HIT_PATH, key);
      if (hit.status !== 200 || hit.cache !== 'HIT') throw new Error(`${server.origin}: the lookup was not a cache hit (${hit.status} ${hit.cache})`);
    }

    // --- cache-hit throughput -------------------------------------------------------------
    const setups = [
      { name: 'embedded, 1 process (SQLite)', servers: [embedded], key: embeddedKey },
      { name: 'scale, 1 API process', servers: [scaleA], key: scaleKey },
      { name: 'scale, 2 API processes', servers: [scaleA, scaleB], key: scaleKey },
    ];
    for (const setup of setups) await hammer(setup.servers, setup.key, WARMUP_SECONDS, redis);
    const slices = setups.map(() => [] as Throughput[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, setup] of setups.entries()) slices[i].push(await hammer(setup.servers, setup.key, SLICE_SECONDS, redis));
    }
    console.log(
      `\ncache-hit throughput: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SLICE_SECONDS} s per set-up (load average now ${loadavg()})`,
    );
    for (const [i, setup] of setups.entries()) {
      const s = slices[i];
      const rps = s.reduce((sum, f) => sum + f.rps, 0) / s.length;
      const bad = s.reduce((sum, f) => sum + f.non2xx + f.errors, 0);
      console.log(
        `  ${setup.name.padEnd(30)} ${fmt(rps, 0).padStart(7)} req/s   API CPU ${fmt(median(s.map((f) => f.cpuUs))).padStart(6)} µs/req   ` +
          `Redis CPU ${fmt(median(s.map((f) => f.redisUs))).padStart(5)} µs/req   ` +
          `PostgreSQL CPU ${s[0].postgresUs === null ? '  n/a' : fmt(median(s.map((f) => f.postgresUs!))).padStart(5)} µs/req   non-2xx+errors ${bad}`,
      );
      if (bad > 0) throw new Error(`${setup.name}: ${bad} answers were not 2xx`);
    }
    // CPU per hit, everything the mode spends: its API processes, and on scale PostgreSQL and Redis too.
    const cpuPerHit = (f: Throughput, scale: boolean) => f.cpuUs + (scale ? (f.postgresUs ?? 0) + f.redisUs : 0);
    const cpuRatios = slices[1].map((f, r) => cpuPerHit(f, true) / cpuPerHit(slices[0][r], false));
    const cpuRatio = median(cpuRatios);
    console.log(
      `  CPU per hit, scale 1 process (API + PostgreSQL + Redis) / embedded: ${fmt(cpuRatio, 2)} (per round ${cpuRatios.map((x) => fmt(x, 2)).join(' ')})` +
        `  (target ≤ ${fmt(CPU_TARGET, 2)}: ${cpuRatio <= CPU_TARGET ? 'met' : 'MISSED'})${slices[1][0].postgresUs === null ? ' [PostgreSQL not local: its CPU not counted]' : ''}`,
    );
    const perRound = (a: number, b: number) => slices[a].map((f, r) => f.rps / slices[b][r].rps);
    const twoOverOne = perRound(2, 1);
    const scaleOverEmbedded = perRound(1, 0);
    console.log(`  ratio scale 2 processes / 1 process: ${fmt(median(twoOverOne), 2)} (per round ${twoOverOne.map((x) => fmt(x, 2)).join(' ')})`);
    console.log(`  ratio scale 1 process / embedded:    ${fmt(median(scaleOverEmbedded), 2)} (per round ${scaleOverEmbedded.map((x) => fmt(x, 2)).join(' ')})`);

    // --- admission latency ----------------------------------------------------------------
    // One request at a time, interleaved between the modes so both see the same load; the
    // scale mode's requests alternate between its two processes.
    const lat = { embeddedAdmit: [] as number[], scaleAdmit: [] as number[], embeddedRefuse: [] as number[], scaleRefuse: [] as number[] };
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const scaleServer = i % 2 === 0 ? scaleA : scaleB;
      const miss = `/v3/keyword-tool/trends?kw=bench%20miss%20${i}`;
      const steps = [
        [embedded, miss, embeddedKey, 200, lat.embeddedAdmit],
        [scaleServer, miss, scaleKey, 200, lat.scaleAdmit],
        [embedded, HIT_PATH, embeddedEmpty, 0, lat.embeddedRefuse],
        [scaleServer, HIT_PATH, scaleEmpty, 0, lat.scaleRefuse],
      ] as const;
      for (const [server, url, key, status, into] of steps) {
        const res = await get(server, url, key);
        if (status === 200 ? res.status !== 200 || res.cache === 'HIT' : res.status !== 402 && res.status !== 429)
          throw new Error(`${server.origin}${url}: unexpected ${res.status} ${res.cache}`);
        into.push(res.ms);
      }
    }
    console.log(`\nadmission latency: ${LATENCY_SAMPLES} sequential requests each (load average now ${loadavg()})`);
    const row = (name: string, samples: number[]) =>
      console.log(`  ${name.padEnd(46)} p50 ${fmt(percentile(samples, 50), 2).padStart(6)} ms   p99 ${fmt(percentile(samples, 99), 2).padStart(6)} ms`);
    row('embedded, admitted (miss: admit, run, cache)', lat.embeddedAdmit);
    row('scale, admitted (miss: admit, run, cache)', lat.scaleAdmit);
    row('embedded, refused (empty pool)', lat.embeddedRefuse);
    row('scale, refused (empty pool)', lat.scaleRefuse);
    const ratio = (a: number[], b: number[], p: number) => fmt(percentile(a, p) / percentile(b, p), 2);
    console.log(
      `  ratio scale / embedded: admitted p50 ${ratio(lat.scaleAdmit, lat.embeddedAdmit, 50)} p99 ${ratio(lat.scaleAdmit, lat.embeddedAdmit, 99)}; ` +
        `refused p50 ${ratio(lat.scaleRefuse, lat.embeddedRefuse, 50)} p99 ${ratio(lat.scaleRefuse, lat.embeddedRefuse, 99)}`,
    );

    // --- revocation ------------------------------------------------------------------------
    // Both scale processes remember the key; the CLI revokes it; how long after the command
    // returned does the other process refuse it? (Asked every 5 ms; a bench, not a test.)
    for (const server of [scaleA, scaleB]) {
      if ((await get(server, HIT_PATH, scaleKey)).status !== 200) throw new Error(`${server.origin}: the key was not accepted before revocation`);
    }
    const revoked = runQuarry(['keys', 'revoke', scaleKey], scaleA.env);
    if (revoked.code !== 0) throw new Error(`keys revoke failed (${revoked.code}): ${revoked.stdout}${revoked.stderr}`);
    const revokedAt = performance.now();
    let refusedAfter = Number.POSITIVE_INFINITY;
    while (performance.now() - revokedAt < 10 * REVOKE_TARGET_MS) {
      const res = await get(scaleB, HIT_PATH, scaleKey);
      if (res.status === 401) {
        refusedAfter = performance.now() - revokedAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    console.log(
      `\nrevocation: the other scale process refused the key ${fmt(refusedAfter, 0)} ms after \`quarry keys revoke\` returned` +
        `  (target ≤ ${REVOKE_TARGET_MS} ms: ${refusedAfter <= REVOKE_TARGET_MS ? 'met' : 'MISSED'})`,
    );
    console.log(`\nload average at end ${loadavg()}`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await redis.dropKeys();
    await redis.close();
    await database.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
