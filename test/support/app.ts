/**
 * Builds a Quarry app for tests: in-memory state store, fake clock, no gateway limit
 * unless asked, and helpers to create accounts with keys.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import type { QuarryContext } from '../../src/context.js';
import { FakeClock, unixSeconds } from '../../src/lib/clock.js';
import type { ClientClass } from '../../src/policy/plans.js';
import { closeContext, createContext } from '../../src/service.js';
import fs from 'node:fs';
import path from 'node:path';
import { copyTinyWorld, emptyWorldFile } from './world.js';
import { TEST_REDIS_URL, testRedisPrefix } from './redis.js';
import { createTestDatabase } from './postgres.js';
import { DEFAULT_SERP_LOCATION } from '../../src/engine/search/searchEngine.js';

export interface TestApp {
  app: FastifyInstance;
  ctx: QuarryContext;
  clock: FakeClock;
  /** Creates an account on a plan and returns its id and a fresh API key. */
  account(plan?: string, email?: string): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: FakeClock;
  clientClassOf?: (req: FastifyRequest) => ClientClass;
  extraRoutes?: (app: FastifyInstance) => Promise<void> | void;
  /** Where the built dashboard is (default dist/web). */
  webDir?: string;
  /**
   * A data directory whose state store (state.db) this app opens instead of an in-memory
   * one: two apps given one directory stand for two processes on one data directory.
   */
  dataDir?: string;
  /**
   * A state store that outlives the app (sharedTestState): two apps given one stand for two
   * processes on one state store, or one app and its restart. Its SQLite file in its data
   * directory; under npm run test:scale its PostgreSQL database (dropped by its close, not the app's).
   */
  state?: SharedTestState;
  /**
   * 'none': the research store of QUARRY_WORLD_SIZE=none (empty: no sandbox web), created for
   * this app; default the tiny sandbox world.
   */
  world?: 'tiny' | 'none';
}

let counter = 0;

/** A state store for several apps in turn or side by side (TestAppOptions.state). */
export interface SharedTestState {
  dataDir: string;
  /** Under npm run test:scale: the PostgreSQL database every app given this state opens. */
  databaseUrl: string | null;
  close(): Promise<void>;
}

/** A data directory, and under npm run test:scale a PostgreSQL database, for apps to share; close() removes both. */
export async function sharedTestState(): Promise<SharedTestState> {
  fs.mkdirSync(path.resolve('.test-data'), { recursive: true });
  const dataDir = fs.mkdtempSync(path.resolve('.test-data', 'state-'));
  const database = process.env.QUARRY_TEST_SCALE === '1' ? await createTestDatabase() : null;
  return {
    dataDir,
    databaseUrl: database?.url ?? null,
    async close() {
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The bearer token of a test app's GET /metrics (QUARRY_METRICS_TOKEN). */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789';
/** The headers a scraper of a test app's (or a test server's) /metrics sends. */
export const METRICS_HEADERS = { authorization: `Bearer ${TEST_METRICS_TOKEN}` };

/** A test app's /metrics text, scraped as Prometheus would, with the bearer token. */
export async function scrapeMetrics(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: METRICS_HEADERS });
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}: ${res.body}`);
  return res.body;
}

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const clock = options.clock ?? new FakeClock();
  // npm run test:scale: every app puts the policy's hot state on the test Redis, under a prefix
  // of its own, and its state store on the test PostgreSQL, in a database of its own.
  const scale = process.env.QUARRY_TEST_SCALE === '1';
  const redisPrefix = scale ? testRedisPrefix() : null;
  // A shared state's database is dropped by the state, not by the app.
  const database = options.state?.databaseUrl
    ? { url: options.state.databaseUrl, drop: async () => undefined }
    : scale && !options.state
      ? await createTestDatabase()
      : null;
  const config: Config = loadConfig({
    ...(redisPrefix ? { QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: redisPrefix } : {}),
    ...(database ? { QUARRY_DATABASE_URL: database.url } : {}),
    QUARRY_GATEWAY_RPS: '0',
    QUARRY_DATA_DIR: `.test-data/app-${process.pid}`,
    QUARRY_PUBLIC_URL: 'http://quarry.test',
    // The fake clock stands still: tests of other rules would run out of free-write budget.
    QUARRY_FREE_WRITES_PER_MINUTE: '0',
    QUARRY_METRICS_TOKEN: TEST_METRICS_TOKEN,
    ...(options.dataDir ? { QUARRY_DATA_DIR: options.dataDir } : {}),
    ...(options.state ? { QUARRY_DATA_DIR: options.state.dataDir } : {}),
    ...(options.world === 'none' ? { QUARRY_WORLD_SIZE: 'none' } : {}),
    ...options.env,
  });
  // Each app works on its own copy of the shared tiny world: the engine records issued
  // keyword ids and difficulty in it.
  const researchFile = options.world === 'none' ? await emptyWorldFile() : await copyTinyWorld();
  const ctx = await createContext(config, { clock, inMemory: options.dataDir === undefined && options.state === undefined, researchFile });
  // The default market's rank index warms up in the background; related keywords answer
  // without SERP overlap until it is ready, so tests wait for it to see one answer each time.
  await ctx.search.rankIndex(DEFAULT_SERP_LOCATION);
  const app = await buildApp(ctx, { clientClassOf: options.clientClassOf, extraRoutes: options.extraRoutes, webDir: options.webDir });
  await app.ready();
  let closed = false;
  return {
    app,
    ctx,
    clock,
    async account(plan = 'premium', email?: string) {
      const now = unixSeconds(clock.now());
      const account = await ctx.accounts.create(email ?? `user${++counter}-${process.pid}@example.test`, plan, now);
      const { key } = await ctx.accounts.createKey(account.id, now);
      return { id: account.id, key };
    },
    async close() {
      // A suite's after() may close an app its last test closed already.
      if (closed) return;
      closed = true;
      if (ctx.redis) {
        const keys = await ctx.redis.client.keys(`${ctx.redis.prefix}*`);
        if (keys.length > 0) await ctx.redis.client.del(...keys);
      }
      await app.close();
      await closeContext(ctx);
      await database?.drop();
      fs.rmSync(path.dirname(researchFile), { recursive: true, force: true });
    },
  };
}

/** The contract's error object, checked loosely: type and message strings. */
export function isErrorBody(body: unknown): boolean {
  const e = (body as { error?: { type?: unknown; message?: unknown } })?.error;
  return typeof e === 'object' && e !== null && typeof e.type === 'string' && typeof e.message === 'string';
}
