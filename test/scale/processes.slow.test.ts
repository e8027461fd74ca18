/**
 * The scale mode with real processes on the real backends (issue 13): two API processes
 * (`quarry serve --roles api`) and one `quarry worker`, sharing one PostgreSQL database (its
 * own, random) and one Redis (its own key prefix), called over real sockets. The limits,
 * the single flight, the cache invalidation and the gateway hold across both API processes
 * as inside one; kill -9 of an API process or of the worker loses no acknowledged write and
 * charges once; `quarry backup` under write load restores to a working service; of two
 * schedulers, one runs the rounds.
 *
 * Clients reach the API processes as through a load balancer (QUARRY_TRUST_PROXY): each
 * request carries an X-Forwarded-For address of its own, so that the gateway limit (4 per
 * second per address, as in the contract) stays out of the way of the other tests; the
 * gateway test sends from one address. The waits are for the children; the only rule on the
 * real clock is the gateway's second, counted from what the client saw.
 *
 * Under `npm run test:scale` only (it is listed there by directory): skipped otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { systemClock, unixSeconds } from '../../src/lib/clock.js';
import { ExportState, exportState } from '../../src/jobs/exportJobs.js';
import type { JobQueue } from '../../src/jobs/jobQueue.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { closeStateContext, openStateContext, type StateContext } from '../../src/service.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { freePort, Processes, until, type QuarryProcess } from '../support/processes.js';
import { TEST_REDIS_URL, testRedis, testRedisPrefix } from '../support/redis.js';
import { copyTinyWorld } from '../support/world.js';
import { METRICS_HEADERS, TEST_METRICS_TOKEN } from '../support/app.js';

type Database = Awaited<ReturnType<typeof createTestDatabase>>;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json(): any;
  sentAt: number;
  answeredAt: number;
}

/** The tiny world's target with the most backlinks: its export takes long enough to be killed in. */
const EXPORT_TARGET = 'openpedia.org';

describe(
  'scale mode: two API processes and a worker on one PostgreSQL and one Redis',
  { skip: !scaleMode && 'scale mode only (npm run test:scale)', timeout: 30 * 60_000 },
  () => {
    const processes = new Processes();
    const databases: Database[] = [];
    const dirs: string[] = [];
    let database: Database;
    let prefix: string;
    let dataDir: string;
    let env: Record<string, string>;
    let ctx: StateContext;
    let jobs: JobQueue;
    const api: { process: QuarryProcess; origin: string; port: number }[] = [];
    let worker: QuarryProcess;

    const tempDir = (name: string) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quarry-scale-${name}-`));
      dirs.push(dir);
      return dir;
    };
    const startApi = async (port: number, extra: Record<string, string> = {}) => {
      const p = processes.start(['serve', '--roles', 'api'], { env: { ...env, QUARRY_PORT: String(port), ...extra } });
      return { process: p, origin: await p.ready(), port };
    };
    // At info level the worker says when it has started.
    const startWorker = () => processes.start(['worker', '--concurrency', '1', '--poll-interval', '20'], { env: { ...env, QUARRY_LOG_LEVEL: 'info' } });

    before(async () => {
      database = await createTestDatabase();
      databases.push(database);
      prefix = testRedisPrefix();
      dataDir = tempDir('data');
      // One data directory for every process (the research store, the export files): the
      // processes of one host. The state is on PostgreSQL and Redis.
      await copyTinyWorld(1, dataDir);
      env = {
        QUARRY_METRICS_TOKEN: TEST_METRICS_TOKEN,
        QUARRY_DATABASE_URL: database.url,
        QUARRY_REDIS_URL: TEST_REDIS_URL,
        QUARRY_REDIS_PREFIX: prefix,
        QUARRY_DATA_DIR: dataDir,
        QUARRY_WORLD_SIZE: 'tiny',
        QUARRY_HOST: '127.0.0.1',
        QUARRY_TRUST_PROXY: '1',
        QUARRY_GATEWAY_RPS: '4',
        QUARRY_FREE_WRITES_PER_MINUTE: '0',
        // 200 concurrent requests of one account: above the default cap of requests in flight.
        QUARRY_REQUESTS_IN_FLIGHT: '1000',
      };
      // The first process migrates the database; the others start on a migrated one.
      api.push(await startApi(await freePort()));
      worker = startWorker();
      api.push(await startApi(await freePort()));
      await worker.waitFor(/worker started/, 'the worker to start');
      ctx = await openStateContext(loadConfig(env));
      jobs = openJobQueue(ctx.state, systemClock);
    });
    after(async () => {
      await processes.killAll();
      if (ctx) await closeStateContext(ctx);
      const redis = await testRedis(prefix);
      await redis.dropKeys();
      await redis.close();
      for (const d of databases) await d.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    });

    let address = 0;
    /** A client address of its own (what the load balancer puts in X-Forwarded-For). */
    const nextAddress = () => {
      address++;
      return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
    };
    const call = async (origin: string, key: string, method: string, url: string, body?: unknown, from = nextAddress()): Promise<Answer> => {
      const sentAt = Date.now();
      const res = await fetch(`${origin}/v3${url}`, {
        method,
        headers: { 'x-access-token': key, 'x-forwarded-for': from, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text), sentAt, answeredAt: Date.now() };
    };
    const newAccount = async (name: string) => {
      const now = unixSeconds(Date.now());
      const account = await ctx.accounts.create(`${name}@example.test`, 'premium', now);
      return { id: account.id, key: (await ctx.accounts.createKey(account.id, now)).key };
    };
    /** Read through the second API process, which lives throughout. */
    const remaining = async (key: string, pool: string): Promise<number> =>
      (await call(api[1].origin, key, 'GET', '/keyword-tool/limits')).json().resources[pool].remaining;
    const limitOf = async (key: string, pool: string): Promise<number> =>
      (await call(api[1].origin, key, 'GET', '/keyword-tool/limits')).json().resources[pool].limit;
    /** The sum of a counter over both API processes' /metrics. */
    const metric = async (line: RegExp): Promise<number> => {
      let sum = 0;
      for (const { origin } of api) {
        // An address of its own: the gateway limit covers /metrics too, and reads from one address
        // around a fast test could meet it (a 429 page has no counters, so the sum fell).
        const res = await fetch(`${origin}/metrics`, { headers: { 'x-forwarded-for': nextAddress(), ...METRICS_HEADERS } });
        assert.equal(res.status, 200, `${origin}/metrics`);
        const text = await res.text();
        for (const l of text.split('\n')) if (line.test(l)) sum += Number(l.split(' ').pop());
      }
      return sum;
    };

    /**
     * List writes through the given processes, `lanes` at once, until stopped: the ids of
     * those acknowledged (201). A process `mayDie` says is dead may stop answering; any other
     * failure stops the load and is thrown by stop() (and by waitFor meanwhile).
     */
    const writeLoad = (key: string, origins: readonly string[], lanes: number, mayDie: (origin: string) => boolean = () => false) => {
      const acknowledged: string[] = [];
      let stopped = false;
      let failure: unknown;
      const lane = async (n: number) => {
        const origin = origins[n % origins.length];
        for (let i = 0; !stopped; i++) {
          const res = await call(origin, key, 'POST', '/keyword-tool/lists', { name: `lane ${n} list ${i}`, keyword_ids: [`k${n}-${i}`] }).catch(
            (err: Error) => err,
          );
          if (res instanceof Error) {
            if (mayDie(origin)) return;
            throw new Error(`lane ${n}: no answer from a live process: ${res.message}`);
          }
          if (res.status !== 201) throw new Error(`lane ${n}: ${res.status} ${res.text}`);
          acknowledged.push(res.json()._id);
        }
      };
      const running = Array.from({ length: lanes }, (_, n) =>
        lane(n).catch((err: unknown) => {
          failure ??= err;
          stopped = true;
        }),
      );
      return {
        acknowledged,
        /** Until `count` more writes than now have been acknowledged. */
        async more(count: number) {
          const target = acknowledged.length + count;
          await until(
            `${count} more acknowledged writes`,
            () => {
              if (failure) throw failure;
              return acknowledged.length >= target ? true : undefined;
            },
            60_000,
            20,
          );
        },
        async stop() {
          stopped = true;
          await Promise.all(running);
          if (failure) throw failure;
        },
      };
    };

    test('200 concurrent distinct requests to one pool from one account, over both processes, admit exactly the burst of 3', async () => {
      const { key } = await newAccount('distinct');
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => call(api[i % 2].origin, key, 'GET', `/keyword-tool/trends?kw=${encodeURIComponent(`distinct ${i}`)}`)),
      );
      const seconds = (Date.now() - started) / 1000;
      const admitted = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      assert.equal(admitted.length, 3, `admitted ${admitted.length} in ${seconds} s (the burst window is 30 s)`);
      assert.equal(
        refused.length,
        197,
        answers
          .filter((a) => a.status !== 200 && a.status !== 429)
          .map((a) => `${a.status} ${a.text.slice(0, 100)}`)
          .join('\n'),
      );
      assert.ok(refused.every((a) => a.json().error.type === 'RateLimit' && a.json().error.retry_after === 30));
      // Both processes admitted and refused: the limit is the account's, not each process's.
      assert.equal(await remaining(key, 'trends'), (await limitOf(key, 'trends')) - 3);
      console.log(`# 200 distinct requests over 2 API processes: 3 admitted, 197 refused in ${seconds.toFixed(1)} s`);
    });

    test('200 concurrent identical requests over both processes execute once and charge once', async () => {
      const { key } = await newAccount('identical');
      const admissionsBefore = await metric(/^quarry_admissions_total\{pool="trends"\}/);
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(api[i % 2].origin, key, 'GET', '/keyword-tool/trends?kw=one%20flight')));
      assert.deepEqual(
        [...new Set(answers.map((a) => a.status))],
        [200],
        answers
          .filter((a) => a.status !== 200)
          .slice(0, 3)
          .map((a) => a.text)
          .join('\n'),
      );
      assert.equal(new Set(answers.map((a) => a.text)).size, 1, 'one answer');
      assert.equal(answers.filter((a) => a.headers.get('x-cache') !== 'HIT').length, 1, 'executed once: every other answer came from the cache');
      assert.equal(await remaining(key, 'trends'), (await limitOf(key, 'trends')) - 1, 'charged once');
      assert.equal((await metric(/^quarry_admissions_total\{pool="trends"\}/)) - admissionsBefore, 1, 'one admission over both processes');
    });

    test('a SERP reset through one process makes the other execute the next lookup', async () => {
      const { key } = await newAccount('reset');
      const [a, b] = api;
      const lookup = '/serp-tool/serps?kw=tent&location_id=2840';
      const first = await call(a.origin, key, 'GET', lookup);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('x-cache'), null);
      // The other process answers it from the cache, and keeps it in its memory mirror.
      for (let i = 0; i < 2; i++) assert.equal((await call(b.origin, key, 'GET', lookup)).headers.get('x-cache'), 'HIT');
      const reset = await call(a.origin, key, 'GET', '/serp-tool/serps/reset?kw=tent&location_id=2840');
      assert.equal(reset.status, 200, reset.text);
      const after = await call(b.origin, key, 'GET', lookup);
      assert.equal(after.status, 200, after.text);
      assert.equal(after.headers.get('x-cache'), null, 'executed, not served from the other process’s mirror');
      assert.equal((await call(a.origin, key, 'GET', lookup)).headers.get('x-cache'), 'HIT');
      assert.equal(await remaining(key, 'serps'), (await limitOf(key, 'serps')) - 3, 'lookup, reset, lookup');
    });

    test('the gateway admits 4 requests per second per client address in total across both processes', async () => {
      const { key } = await newAccount('gateway');
      const from = '203.0.113.7';
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => call(api[i % 2].origin, key, 'GET', '/shared/locations/2840', undefined, from)));
      const admitted = answers.filter((a) => a.status === 200).sort((x, y) => x.sentAt - y.sentAt);
      const refused = answers.filter((a) => a.status === 429);
      assert.equal(admitted.length + refused.length, answers.length);
      assert.ok(
        refused.every((a) => (a.headers.get('content-type') ?? '').startsWith('text/html')),
        'the gateway’s HTML refusal',
      );
      const span = Math.max(...answers.map((a) => a.answeredAt)) - Math.min(...answers.map((a) => a.sentAt));
      // Each admission happened between its request's sending and its answer: five whose
      // requests were all sent and answered within one second were admitted in one second.
      for (let i = 0; i + 4 < admitted.length; i++) {
        const five = admitted.slice(i, i + 5);
        const within = Math.max(...five.map((a) => a.answeredAt)) - five[0].sentAt;
        assert.ok(within >= 1000, `5 admissions within ${within} ms (${admitted.length} admitted of ${answers.length} in ${span} ms)`);
      }
      assert.ok(admitted.length >= 4, `${admitted.length} admitted`);
      if (span < 1000) assert.equal(admitted.length, 4);
      console.log(`# gateway: ${admitted.length} of ${answers.length} requests from one address admitted over ${span} ms`);
      // Another address is not held back by this one's.
      assert.equal((await call(api[1].origin, key, 'GET', '/shared/locations/2840')).status, 200);
    });

    test('kill -9 of an API process mid-request: no acknowledged write lost, the request retried through the other charged once', async () => {
      const { key } = await newAccount('killapi');
      const [a, b] = api;
      assert.equal((await call(a.origin, key, 'POST', '/link-tool/exports/suggest', { url: EXPORT_TARGET })).status, 200);
      const linksBefore = await remaining(key, 'links');
      const exportBody = { url: EXPORT_TARGET, limit: 5000 };
      // How long the export creation takes through A on this machine now, so that the kill
      // lands inside it (an account of its own: the same request would be a cache hit).
      const probe = await newAccount('killapi-probe');
      assert.equal((await call(a.origin, probe.key, 'POST', '/link-tool/exports/suggest', { url: EXPORT_TARGET })).status, 200);
      const probed = await call(a.origin, probe.key, 'POST', '/link-tool/exports', exportBody);
      assert.equal(probed.status, 200, probed.text);
      const exportMs = probed.answeredAt - probed.sentAt;

      // List writes through both processes, four lanes each, until A dies and B has gone on a while.
      let aDead = false;
      const load = writeLoad(key, [a.origin, b.origin], 8, (origin) => origin === a.origin && aDead);
      const { acknowledged } = load;
      try {
        await load.more(40);
        // A paid request that creates a job, in flight on A when it is killed.
        const first = call(a.origin, key, 'POST', '/link-tool/exports', exportBody).catch((err: Error) => err);
        await sleep(exportMs * (0.2 + Math.random() * 0.5));
        aDead = true;
        assert.equal((await a.process.kill()).signal, 'SIGKILL');
        const answered = await first;
        await load.more(40);
        await load.stop();

        // Every acknowledged write is there, read through the process that lived.
        const lists = (await call(b.origin, key, 'GET', '/keyword-tool/lists')).json() as { _id: string }[];
        const stored = new Set(lists.map((l) => l._id));
        assert.deepEqual(
          acknowledged.filter((id) => !stored.has(id)),
          [],
          `of ${acknowledged.length} acknowledged`,
        );

        let jobId: string;
        let how: string;
        if (!(answered instanceof Error) && answered.status === 200) {
          jobId = answered.json()._id;
          how = `answered before the kill (it took ${exportMs} ms before)`;
        } else {
          // The client retries the same request through the other process.
          const retry = await call(b.origin, key, 'POST', '/link-tool/exports', exportBody);
          assert.equal(retry.status, 200, retry.text);
          jobId = retry.json()._id;
          how = `killed mid-request, retried${retry.headers.get('x-cache') === 'HIT' ? ' (answered from the cache: A had committed it)' : ''}`;
        }
        // What A had reserved and never settled is released once its liveness mark runs out (30 s).
        await until(
          'the dead process’s reservation to be released',
          async () => ((await remaining(key, 'links')) === linksBefore - exportBody.limit ? true : undefined),
          120_000,
          1_000,
        ).catch(async (err: Error) => assert.fail(`${err.message}: links remaining ${await remaining(key, 'links')}, before ${linksBefore} (${how})`));
        const exportsListed = (await call(b.origin, key, 'GET', '/link-tool/exports')).json() as { _id: string }[];
        assert.deepEqual(
          exportsListed.map((j) => j._id),
          [jobId],
          `one job, the one answered (${how})`,
        );
        console.log(`# kill -9 of an API process: ${acknowledged.length} acknowledged writes kept; export ${how}`);
      } finally {
        await load.stop().catch(() => undefined);
        // A again, on its port, for the tests after this one.
        api[0] = await startApi(a.port);
      }
    });

    test('kill -9 of the worker mid-export: the restarted worker finishes it, charged once', async () => {
      const { key } = await newAccount('killworker');
      const [a, b] = api;
      assert.equal((await call(a.origin, key, 'POST', '/link-tool/exports/suggest', { url: EXPORT_TARGET })).status, 200);
      const linksBefore = await remaining(key, 'links');
      const created = await call(b.origin, key, 'POST', '/link-tool/exports', { url: EXPORT_TARGET });
      assert.equal(created.status, 200, created.text);
      const { _id: jobId, cost } = created.json() as { _id: string; cost: number };
      // The worker takes it at once; it is killed while it writes the file.
      await until(
        'the worker to write the export',
        async () => {
          const job = (await jobs.byId(jobId))!;
          if (job.state === 'completed' || job.state === 'failed') throw new Error(`the export ended (${job.state}) before the worker was killed`);
          return job.state === 'running' && exportState(job) === ExportState.LinksCollected ? true : undefined;
        },
        120_000,
        5,
      );
      assert.equal((await worker.kill()).signal, 'SIGKILL');
      const killed = (await jobs.byId(jobId))!;
      assert.equal(killed.state, 'running', 'killed mid-export: the dead worker still holds the lease');
      assert.equal(killed.attempts, 1);
      // Its lease would run out 30 s after its last heartbeat; end it now instead.
      await sql`UPDATE jobs SET lease_expires_ms = ${Date.now()} WHERE id = ${jobId}`.execute(ctx.state.db);

      worker = startWorker();
      const done = await until(
        'the restarted worker to finish the export',
        async () => {
          const job = (await jobs.byId(jobId))!;
          return job.state === 'running' || job.state === 'queued' ? undefined : job;
        },
        180_000,
        100,
      );
      assert.equal(done.state, 'completed', done.error ?? '');
      assert.equal(done.attempts, 2);
      assert.equal(await remaining(key, 'links'), linksBefore - cost, 'charged once, not refunded');
      const listed = ((await call(a.origin, key, 'GET', '/link-tool/exports')).json() as { _id: string; state: number; downloadURL?: string }[]).find(
        (j) => j._id === jobId,
      )!;
      assert.equal(listed.state, ExportState.Done);
      const download = await fetch(listed.downloadURL!, { headers: { 'x-forwarded-for': nextAddress() } });
      assert.equal(download.status, 200);
      const records = parse(await download.text(), { columns: true }) as Record<string, string>[];
      assert.equal(records.length, cost, 'every backlink, as charged');
      assert.equal(new Set(records.map((r) => r._id)).size, records.length, 'no row written twice');
    });

    test('of two schedulers on one PostgreSQL, one runs the rounds; the other takes over when it dies', async () => {
      const schedulers = [processes.start(['scheduler'], { env }), processes.start(['scheduler'], { env })];
      const role = /Rank scheduler: (this process runs|another process runs)/;
      const roles = await Promise.all(schedulers.map((s) => s.waitFor(role, 'the scheduler to say whether it runs the rounds')));
      const leaders = roles.map((m) => m[1] === 'this process runs');
      assert.deepEqual([...leaders].sort(), [false, true], schedulers.map((s) => s.output()).join('\n---\n'));
      const leader = schedulers[leaders.indexOf(true)];
      const standby = schedulers[leaders.indexOf(false)];
      assert.equal((await leader.kill()).signal, 'SIGKILL');
      await standby.waitFor(/this process runs the rank checks/, 'the standby to take over', 60_000);
      assert.equal((await standby.stop()).code, 0, standby.output());
    });

    test('`quarry backup` under write load restores to a working service with every write acknowledged before it', async () => {
      const { key } = await newAccount('backup');
      const load = writeLoad(key, [api[0].origin, api[1].origin], 4);
      const { acknowledged } = load;
      let before: string[];
      let backup: QuarryProcess;
      let backedUp: Awaited<ReturnType<QuarryProcess['finished']>>;
      let duringBackup: number;
      const target = path.join(tempDir('backup'), 'copy');
      try {
        await load.more(40);
        before = [...acknowledged];
        backup = processes.start(['backup', target], { env });
        backedUp = await backup.finished();
        duringBackup = acknowledged.length - before.length;
      } finally {
        await load.stop();
      }
      assert.equal(backedUp.code, 0, backup.output());
      assert.ok(duringBackup > 0, 'writes went on while the backup ran');
      assert.ok(fs.existsSync(path.join(target, 'state.pgdump')), fs.readdirSync(target).join(', '));

      // The documented restore: the dump into a new database, the copy as the data directory.
      const restored = await createTestDatabase();
      databases.push(restored);
      execFileSync('pg_restore', ['--no-owner', '--dbname', restored.url, path.join(target, 'state.pgdump')]);
      const restoredEnv = { QUARRY_DATABASE_URL: restored.url, QUARRY_REDIS_PREFIX: testRedisPrefix(), QUARRY_DATA_DIR: target };
      const service = await startApi(await freePort(), restoredEnv);
      const lists = (await call(service.origin, key, 'GET', '/keyword-tool/lists')).json() as { _id: string }[];
      const stored = new Set(lists.map((l) => l._id));
      assert.deepEqual(
        before.filter((id) => !stored.has(id)),
        [],
        `of ${before.length} acknowledged before the backup`,
      );
      const write = await call(service.origin, key, 'POST', '/keyword-tool/lists', { name: 'after the restore', keyword_ids: [] });
      assert.equal(write.status, 201, write.text);
      assert.equal((await call(service.origin, key, 'GET', '/serp-tool/serps?kw=tent&location_id=2840')).status, 200);
      console.log(`# backup under load: ${before.length} writes before, ${duringBackup} during; restored ${lists.length} lists`);
      await service.process.stop();
      const redis = await testRedis(restoredEnv.QUARRY_REDIS_PREFIX);
      await redis.dropKeys();
      await redis.close();
    });
  },
);
