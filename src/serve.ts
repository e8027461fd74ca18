/**
 * `quarry serve`: the long-running service, with any of its roles (src/roles.ts). The API
 * role owns the data directory (one per SQLite data directory), the scheduler role takes
 * its own lock (one scheduler), the worker role runs beside any number of others.
 */
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { gatheredLogDestination } from './http/logDestination.js';
import { closeContext, createContext, DEMO_KEY_FILE, ensureDemoAccount } from './service.js';
import { API_BUSY_TIMEOUT_MS, BACKGROUND_BUSY_TIMEOUT_MS } from './store/database.js';
import { ensureWorld, isWorldReady, researchStoreFile, worldOrigin } from './engine/index.js';
import { liveResearchFile } from './engine/live/generation.js';
import { fetchPublishedResearch, publishFirstGeneration } from './engine/live/startup.js';
import { systemClock } from './lib/clock.js';
import { boundHeapGrowth } from './lib/heapGrowth.js';
import { progressBars } from './lib/progress.js';
import { startEmbeddedWorker } from './jobs/embeddedWorker.js';
import { jobHandlers } from './workers.js';
import { startRankScheduler } from './rank/rankService.js';
import { answerServices } from './answers/answerService.js';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { acquireSchedulerLock, acquireServeLock, securePermissions, type ServeLock } from './store/dataDir.js';
import { ConfigError } from './config.js';
import { ALL_ROLES, type Role } from './roles.js';
import { startMetricsServer } from './metrics/metricsServer.js';
import { AdvisoryLock, ADVISORY_LOCKS } from './store/advisoryLock.js';

/** How often expired cache entries, burst events and lookups are swept. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** Scale mode: how often an API process releases the reservations of processes that died (their liveness mark lasts 30 s). */
const RELEASE_ABANDONED_EVERY_MS = 10_000;

export async function serve(config: Config, roles: ReadonlySet<Role> = ALL_ROLES): Promise<void> {
  const api = roles.has('api');
  // Refused before any work: a second API process on the data directory (see
  // acquireServeLock), a second scheduler.
  // In the scale mode neither applies: the API processes share Redis's single-flight and
  // cache invalidation, and the schedulers elect one of them on PostgreSQL (below).
  const scale = config.databaseUrl !== null;
  const locks: ServeLock[] = [];
  if (api && !scale) locks.push(await acquireServeLock(config.dataDir));
  if (roles.has('scheduler') && !scale) locks.push(await acquireSchedulerLock(config.dataDir));
  securePermissions(config.dataDir);
  // Scale mode: a research generation published by another host is fetched, not built again.
  if (config.databaseUrl) {
    process.stderr.write('Looking for a research generation published to PostgreSQL…\n');
    await fetchPublishedResearch(config, researchStoreFile(config.dataDir), { info: (_, msg) => process.stderr.write(`${msg}\n`), error: () => undefined });
  }
  if (!isWorldReady(liveResearchFile(researchStoreFile(config.dataDir)))) {
    // Only the API role builds the world: two processes building one file would clash, and
    // a worker or scheduler alone has nothing to do before the service has been set up.
    if (!api)
      throw new ConfigError(
        `the research store in ${config.dataDir} is not built yet: start \`quarry serve\` (with the api role) once, or run \`quarry world build\``,
      );
    // The research engine needs a world: on the first start, build the sandbox web before
    // the service reports ready.
    process.stderr.write(
      config.worldSize === 'none'
        ? 'Creating an empty research store (QUARRY_WORLD_SIZE=none: no sandbox web; providers and imports fill it)…\n'
        : `Building the sandbox web (size ${config.worldSize}, seed ${config.worldSeed}) — first start only…\n`,
    );
    const started = Date.now();
    const progress = progressBars();
    try {
      await ensureWorld({ dataDir: config.dataDir, size: config.worldSize, seed: config.worldSeed, clock: systemClock, onProgress: progress.listener });
    } finally {
      progress.stop();
    }
    process.stderr.write(`${config.worldSize === 'none' ? 'Research store' : 'Sandbox web'} ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } else if (config.worldSize === 'none') refuseSandboxUnderNone(config.dataDir);
  // Opening the world reads its pages, text index and the default market's rank index:
  // seconds on `small`, said as it happens rather than in silence.
  const loading = Date.now();
  process.stderr.write(`Loading the research engine from ${liveResearchFile(researchStoreFile(config.dataDir))}…\n`);
  const opening = progressBars();
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    // Without the API role nothing waits on this process's answers: it may wait long for the lock.
    ctx = await createContext(config, { onProgress: opening.listener, busyTimeoutMs: api ? API_BUSY_TIMEOUT_MS : BACKGROUND_BUSY_TIMEOUT_MS });
  } finally {
    opening.stop();
  }
  process.stderr.write(`Research engine loaded in ${((Date.now() - loading) / 1000).toFixed(1)} s\n`);
  // A long-running process: from here on its heap is collected before it grows far past what
  // is alive. Not before: the first start's build and the engine's open allocate in bulk, and
  // collecting their large live heaps more often could slow the start (its bench figures were
  // taken without the flag).
  boundHeapGrowth();
  if (api) {
    // Scale mode: the deployment's first API process shares its research store with the others.
    const published = await publishFirstGeneration(ctx.state, ctx.redis, ctx.research.live);
    if (published !== null) process.stderr.write(`Published the research store to PostgreSQL as generation ${published}\n`);
  }
  const logger = pino({ level: config.logLevel, name: 'quarry' });
  let app: FastifyInstance | undefined;
  let demoKey: string | null = null;
  let sweep: NodeJS.Timeout | undefined;
  let releaser: NodeJS.Timeout | undefined;
  if (api) {
    // Requests admitted by a server that died before answering: their charges, burst slots and
    // cooldowns are given back (embedded: this server holds the data directory's lock, none is
    // live; scale mode: only those of processes whose liveness mark on Redis ran out).
    const abandoned = await ctx.policy.releaseInFlight();
    if (abandoned > 0) process.stderr.write(`Released ${abandoned} charge(s) of requests that a previous run never answered\n`);
    if (scale) {
      // Another API process that dies is not restarted to release what it held (it may never
      // be): every live one looks for dead processes' reservations now and then.
      releaser = setInterval(() => {
        ctx.policy
          .releaseInFlight()
          .then((n) => n > 0 && log.warn({ released: n }, 'released the charges of requests a dead process never answered'))
          .catch((err: unknown) => log.error({ err }, 'releasing abandoned charges failed'));
      }, RELEASE_ABANDONED_EVERY_MS);
      releaser.unref();
    }
    demoKey = await ensureDemoAccount(ctx);
    // The log on stdout, its lines gathered into larger writes (logDestination.ts).
    app = await buildApp(ctx, { logger: { level: config.logLevel, stream: gatheredLogDestination(1) } });
    sweep = setInterval(() => {
      ctx.policy.sweep().catch((err: unknown) => log.error({ err }, 'policy sweep failed'));
      ctx.sessions.sweep().catch((err: unknown) => log.error({ err }, 'session sweep failed'));
    }, SWEEP_EVERY_MS);
    sweep.unref();
  }
  const log = app?.log ?? logger;
  // An import (here or, in scale mode, on another host) raises the research generation: this
  // process loads the new data beside the old and swaps it in, no restart (engine/live/).
  ctx.research.start(log);
  // The embedded worker runs backlink exports; `quarry worker` can run more of them elsewhere.
  const worker = roles.has('worker') ? startEmbeddedWorker(ctx, { handlers: jobHandlers(ctx), queue: ctx.jobs, logger: log }) : undefined;
  // Daily rank checks (catching up days missed while down) and due email reports, then the
  // answer tool's daily checks and reports.
  // In the scale mode any number of processes may have this role: the one holding a
  // PostgreSQL advisory lock runs the rounds, the others stand by to take over.
  const rankScheduler = roles.has('scheduler')
    ? startRankScheduler(ctx, {
        logger: log,
        leadership: ctx.state.dialect === 'postgres' ? new AdvisoryLock(ctx.state.pool, ADVISORY_LOCKS.rankScheduler) : undefined,
        rounds: [answerServices(ctx).scheduled],
        onLeading: (leading) =>
          process.stderr.write(
            leading
              ? 'Rank scheduler: this process runs the rank checks and e-mail reports (it holds the lease on PostgreSQL)\n'
              : 'Rank scheduler: another process runs the rank checks and e-mail reports; this one stands by\n',
          ),
      })
    : undefined;
  // QUARRY_METRICS_PORT: this process's own metrics (its requests, jobs, rank checks, e-mails)
  // on a port of their own, whatever its roles; the API port answers them only with the bearer token.
  const metricsServer = config.metricsPort !== null ? await startMetricsServer(ctx.metrics, config.metricsPort, config.host, config.metricsToken) : undefined;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal, drainTimeoutMs: config.drainTimeoutMs }, 'shutting down');
    // The drain deadline: whatever still waits then (a request stuck on a store, a round that
    // does not stop), the process ends. Its locks are the operating system's and PostgreSQL's,
    // dropped with the process; reservations left in flight are released by the next start.
    setTimeout(() => {
      log.error({ signal, drainTimeoutMs: config.drainTimeoutMs }, 'shutdown did not finish within the drain deadline; exiting');
      process.exit(1);
    }, config.drainTimeoutMs).unref();
    clearInterval(sweep);
    clearInterval(releaser);
    await rankScheduler?.stop();
    await worker?.stop();
    await app?.close();
    await metricsServer?.close();
    await closeContext(ctx);
    for (const lock of locks) lock.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const running = [...roles].join(', ');
  if (!app) {
    // The worker's and the scheduler's timers do not hold the process open (they are unref'd
    // so that tests and `serve` can close); without a listening socket, this does until a signal.
    setInterval(() => undefined, 2 ** 30);
    const metricsAt = metricsServer ? `; metrics at http://${config.host}:${metricsServer.port}/metrics` : '';
    process.stdout.write(`Quarry is running (${running}) on ${config.dataDir}${metricsAt}\n`);
    return;
  }
  await app.listen({ port: config.port, host: config.host });
  const base = `${config.publicUrl}/v3`;
  const keyFile = path.join(config.dataDir, DEMO_KEY_FILE);
  // With QUARRY_PORT=0 the system picks the port; the public URL cannot know it, so say it.
  const bound = app.server.address();
  const listening =
    bound !== null && typeof bound === 'object' ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : String(bound);
  const lines = [
    '',
    `Quarry is serving the Research API v3 at ${base} (roles: ${running})`,
    `  listening on ${listening}`,
    `  reference: ${config.publicUrl}/docs   openapi: ${base}/openapi.json`,
    // The key itself goes to the file only: this stream is the log, which others may read.
    demoKey ? `  demo account created; its API key is in ${keyFile} (mode 0600)` : `  demo API key: see ${keyFile} (if the demo account was created here)`,
    '  try:',
    `    curl -H "x-access-token: $(cat ${keyFile})" ${base}/keyword-tool/limits`,
    `    curl -H "x-access-token: $(cat ${keyFile})" "${base}/shared/locations/2840"`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * QUARRY_WORLD_SIZE=none promises answers from providers and imports only: a data directory
 * that already holds the sandbox web (built by an earlier start) would mix its invented
 * keywords and links into them, so the service refuses to start on it and says what to do.
 */
function refuseSandboxUnderNone(dataDir: string): void {
  const origin = worldOrigin(liveResearchFile(researchStoreFile(dataDir)));
  if (origin === 'sandbox') {
    throw new ConfigError(
      `QUARRY_WORLD_SIZE=none, but the research store in ${dataDir} holds the sandbox web: use a new data directory (or delete research.db there) to start without it`,
    );
  }
}
