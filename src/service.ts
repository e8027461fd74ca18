/**
 * Assembles a running Quarry from its configuration: stores, plans, accounts, policy,
 * locations. The HTTP app, the CLI and the tests all build on this one function.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Accounts } from './accounts/accounts.js';
import type { Config } from './config.js';
import type { QuarryContext } from './context.js';
import { type Clock, systemClock, unixSeconds } from './lib/clock.js';
import { loadLocations } from './locations/registry.js';
import { AccessPolicy } from './policy/accessPolicy.js';
import { loadPlans, type Plan } from './policy/plans.js';
import { SqlitePolicyStore } from './policy/sqlitePolicyStore.js';
import { RedisPolicyStore } from './policy/redis/redisPolicyStore.js';
import { RedisFlights } from './policy/redis/redisFlights.js';
import { openRedis, type RedisHandle } from './lib/redis.js';
import { openConfiguredStateStore, sqliteOf, type StateStore } from './store/database.js';
import { durableStateOf } from './policy/durableStateOf.js';
import { researchStoreFile } from './engine/index.js';
import { LiveResearch, type LoadedSet } from './engine/live/liveResearch.js';
import { openEngineSet, type EngineSet } from './engine/live/engineSet.js';
import { openResearchSet } from './engine/live/researchSet.js';
import { fetchMissingGeneration, ResearchReloads } from './engine/live/researchReloads.js';
import { liveResearchFile } from './engine/live/generation.js';
import { sharedGenerations } from './engine/live/snapshots.js';
import type { JobQueue } from './jobs/jobQueue.js';
import { openJobQueue } from './jobs/openJobQueue.js';
import { loadSigningSecret, UrlSigner } from './lib/signedUrl.js';
import { fairUse, RequestsInFlight, type ExportJobsView, type FairUse } from './policy/fairUse.js';
import { redisFairUse } from './policy/redis/redisFairUse.js';
import { EXPORT_JOB_KIND } from './jobs/exportJobs.js';
import type { ProgressListener } from './lib/progress.js';
import { SqlSessionStore } from './sessions/sqlSessionStore.js';
import { WebSessions } from './sessions/webSessions.js';
import { ProcessMetrics } from './metrics/processMetrics.js';

export interface ServiceOptions {
  clock?: Clock;
  /** Keep the state store in memory (tests). */
  inMemory?: boolean;
  /** The research store file; default `<data dir>/research.db`. */
  researchFile?: string;
  /** Stages of opening the research engine (the start-up display of `quarry serve`). */
  onProgress?: ProgressListener;
  /** The state store's busy timeout: long in processes that answer no client (store/database.ts). */
  busyTimeoutMs?: number;
}

/** The part of the service that holds accounts and their usage (all the operator CLI needs). */
export type StateContext = Pick<QuarryContext, 'config' | 'clock' | 'state' | 'accounts' | 'policy' | 'plans' | 'redis'>;

export async function openStateContext(config: Config, options: ServiceOptions = {}): Promise<StateContext> {
  const clock = options.clock ?? systemClock;
  const plans = loadPlans(config.plansFile);
  // Scale mode: the state store on PostgreSQL, shared by every process (the config makes sure Redis is set too).
  const state: StateStore = await openConfiguredStateStore(config, options);
  // Scale mode: the policy's hot state and its single-flight on Redis, shared by every process,
  // and the announcements that keep every process's remembered keys true.
  const redis = config.redisUrl ? await closingOnFailure(openRedis(config.redisUrl, config.redisPrefix), () => state.close()) : null;
  const accounts = new Accounts(state, () => Object.keys(plans), redis, clock);
  const policy = openAccessPolicy(state, redis, plans, clock);
  return { config, clock, state, accounts, policy, plans, redis };
}

/**
 * The access policy of one process over the state store: its counters in the SQLite file, or
 * (scale mode) on Redis with the durable half on the state store and single-flight shared by
 * every process. Each call is a policy of its own, as a new process would have.
 */
export function openAccessPolicy(state: StateStore, redis: RedisHandle | null, plans: Record<string, Plan>, clock: Clock): AccessPolicy {
  return redis
    ? new AccessPolicy(new RedisPolicyStore(redis, durableStateOf(state)), plans, clock, new RedisFlights(redis))
    : new AccessPolicy(new SqlitePolicyStore(sqliteOf(state)), plans, clock);
}

/** Everything the HTTP service needs: the state context plus locations and the research engine. */
export async function createContext(config: Config, options: ServiceOptions = {}): Promise<QuarryContext> {
  const base = await openStateContext(config, options);
  const locations = loadLocations();
  const open = (file: string, onProgress?: ProgressListener) =>
    openResearchSet(file, { clock: base.clock, sources: config.sources, state: base.state.db, locations, onProgress });
  const { live, research } = await closingOnFailure(openLiveResearch(config, base, options, open), () => closeStateContext(base));
  // The engine, search and sources every route and job reads: views of the live set (liveResearch.ts).
  const engine = live.view((set) => set.engine);
  const search = live.view((set) => set.search);
  const sources = live.view((set) => set.sources);
  const jobs = openJobQueue(base.state, base.clock);
  const signer = new UrlSigner(loadSigningSecret(config), config.publicUrl);
  const sessions = new WebSessions(new SqlSessionStore(base.state.db), base.accounts, base.clock, config.sessionTtlHours * 3600);
  const metrics = watchedMetrics(base, live, research);
  metrics.watchPurchaseWaits(() => sources.answers.waitingLookups);
  return { ...base, locations, engine, search, sources, research, jobs, signer, fairUse: fairUseOf(config, base, jobs), sessions, metrics };
}

/**
 * What a `quarry worker` process runs jobs with: the state context, the queue, its metrics and
 * the research engine alone (engine/live/engineSet.ts). A backlink export reads links and
 * pages; the search half the API loads (page texts, keyword catalogue, rank indexes) would be
 * most of the worker's memory before its first row and is never opened here.
 */
export type WorkerContext = StateContext & Pick<QuarryContext, 'engine' | 'jobs' | 'metrics'> & { research: ResearchReloads<EngineSet> };

export async function createWorkerContext(config: Config, options: ServiceOptions = {}): Promise<WorkerContext> {
  const base = await openStateContext(config, options);
  const { live, research } = await closingOnFailure(
    openLiveResearch(config, base, options, (file) => openEngineSet(file, { clock: base.clock })),
    () => closeStateContext(base),
  );
  const engine = live.view((set) => set.engine);
  const jobs = openJobQueue(base.state, base.clock);
  return { ...base, engine, research, jobs, metrics: watchedMetrics(base, live, research) };
}

/**
 * The live research data of a process and what reloads it, over sets `open` makes of a store
 * file. Scale mode: generations published to PostgreSQL, announced on Redis (engine/live/snapshots.ts).
 */
async function openLiveResearch<S extends LoadedSet>(
  config: Config,
  base: StateContext,
  options: ServiceOptions,
  open: (file: string, onProgress?: ProgressListener) => Promise<S>,
): Promise<{ live: LiveResearch<S>; research: ResearchReloads<S> }> {
  const shared = base.state.dialect === 'postgres' && base.redis ? sharedGenerations(base.state.pool, base.redis) : null;
  const baseFile = options.researchFile ?? researchStoreFile(config.dataDir);
  if (shared) await fetchMissingGeneration(baseFile, shared);
  const live = new LiveResearch<S>(await open(liveResearchFile(baseFile), options.onProgress));
  return { live, research: new ResearchReloads(live, { baseFile, open, shared }) };
}

function watchedMetrics<S extends LoadedSet>(base: StateContext, live: LiveResearch<S>, research: ResearchReloads<S>): ProcessMetrics {
  const metrics = new ProcessMetrics(base.state);
  metrics.watchResearch({ generation: () => live.current.generation, reloads: () => research.reloads, draining: () => live.draining });
  return metrics;
}

/** Per-account fair use: in this process, or on the scale mode's Redis, shared by every process. */
function fairUseOf(config: Config, base: StateContext, jobs: JobQueue): FairUse {
  const exports: ExportJobsView = { liveIds: (accountId) => jobs.liveIds(accountId, EXPORT_JOB_KIND), settledIds: (ids) => jobs.settledIds(ids) };
  const shared = base.redis
    ? redisFairUse(base.redis, base.policy, config.freeWritesPerMinute, base.clock, exports)
    : fairUse(config.freeWritesPerMinute, base.clock, exports);
  return { ...shared, requests: new RequestsInFlight(config.requestsInFlight) };
}

/**
 * `opening`'s value; when it fails, `close` (what was opened before it) runs first and the
 * failure is thrown as it was. A start that fails partway must not leave a pool, a Redis
 * connection or a store open: their handles would keep the process (a CLI, a test runner)
 * from exiting.
 */
async function closingOnFailure<T>(opening: Promise<T>, close: () => Promise<void>): Promise<T> {
  try {
    return await opening;
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

/** Closes what createContext (or createWorkerContext) opened. */
export async function closeContext(ctx: StateContext & { research: { stop(): Promise<void>; live: { close(): Promise<void> } } }): Promise<void> {
  await ctx.research.stop();
  await ctx.research.live.close();
  await closeStateContext(ctx);
}

/** Closes what openStateContext opened. */
export async function closeStateContext(ctx: StateContext): Promise<void> {
  await ctx.policy.close();
  await ctx.accounts.close();
  await ctx.redis?.close();
  await ctx.state.close();
}

export const DEMO_EMAIL = 'demo@quarry.local';
export const DEMO_KEY_FILE = 'demo-key.txt';

/**
 * On the first start with an empty state store, creates the demo account (plan premium)
 * and its key, written to <data dir>/demo-key.txt with mode 0600. Returns the key when it
 * was created now (it is shown once), otherwise null.
 */
export async function ensureDemoAccount(ctx: StateContext): Promise<string | null> {
  if ((await ctx.accounts.count()) > 0) return null;
  const now = unixSeconds(ctx.clock.now());
  const account = await ctx.accounts.create(DEMO_EMAIL, 'premium', now);
  const { key } = await ctx.accounts.createKey(account.id, now, 'demo');
  fs.mkdirSync(ctx.config.dataDir, { recursive: true });
  const file = path.join(ctx.config.dataDir, DEMO_KEY_FILE);
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return key;
}
