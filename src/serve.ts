/** `quarry serve`: the long-running service. */
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { closeContext, createContext, DEMO_KEY_FILE, ensureDemoAccount } from './service.js';
import { ensureWorld, isWorldReady, researchStoreFile } from './engine/index.js';
import { systemClock } from './lib/clock.js';
import { progressBars } from './lib/progress.js';
import { startEmbeddedWorker } from './jobs/workerCommand.js';
import { jobHandlers } from './workers.js';
import { startRankScheduler } from './rank/rankService.js';
import path from 'node:path';
import { acquireServeLock, securePermissions } from './store/dataDir.js';

/** How often expired cache entries, burst events and lookups are swept. */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

export async function serve(config: Config): Promise<void> {
  // One server per SQLite data directory (see acquireServeLock); refused before any work.
  const lock = acquireServeLock(config.dataDir);
  securePermissions(config.dataDir);
  // The research engine needs a world: on the first start, build the sandbox web before
  // the service reports ready.
  if (!isWorldReady(researchStoreFile(config.dataDir))) {
    process.stderr.write(`Building the sandbox web (size ${config.worldSize}, seed ${config.worldSeed}) — first start only…\n`);
    const started = Date.now();
    const progress = progressBars();
    try {
      await ensureWorld({ dataDir: config.dataDir, size: config.worldSize, seed: config.worldSeed, clock: systemClock, onProgress: progress.listener });
    } finally {
      progress.stop();
    }
    process.stderr.write(`Sandbox web ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  // Opening the world reads its pages, text index and the default market's rank index:
  // seconds on `small`, said as it happens rather than in silence.
  const loading = Date.now();
  process.stderr.write(`Loading the research engine from ${researchStoreFile(config.dataDir)}…\n`);
  const opening = progressBars();
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    ctx = await createContext(config, { onProgress: opening.listener });
  } finally {
    opening.stop();
  }
  process.stderr.write(`Research engine loaded in ${((Date.now() - loading) / 1000).toFixed(1)} s\n`);
  // Requests admitted by a server that died before answering: their charges, burst slots and
  // cooldowns are given back (this server holds the data directory's lock: none is live).
  const abandoned = ctx.policy.store.releaseInFlight();
  if (abandoned > 0) process.stderr.write(`Released ${abandoned} charge(s) of requests that a previous run never answered\n`);
  const demoKey = await ensureDemoAccount(ctx);
  const app = await buildApp(ctx, { logger: { level: config.logLevel } });

  const sweep = setInterval(() => ctx.policy.store.sweep(ctx.clock.now()), SWEEP_EVERY_MS);
  sweep.unref();
  // The embedded worker runs backlink exports; `quarry worker` can run more of them elsewhere.
  const worker = startEmbeddedWorker(ctx, { handlers: jobHandlers(ctx), queue: ctx.jobs, logger: app.log });
  // Daily rank checks (catching up days missed while down) and due email reports.
  const rankScheduler = startRankScheduler(ctx, { logger: app.log });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    clearInterval(sweep);
    await rankScheduler.stop();
    await worker.stop();
    await app.close();
    await closeContext(ctx);
    lock.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  const base = `${config.publicUrl}/v3`;
  const keyFile = path.join(config.dataDir, DEMO_KEY_FILE);
  // With QUARRY_PORT=0 the system picks the port; the public URL cannot know it, so say it.
  const bound = app.server.address();
  const listening =
    bound !== null && typeof bound === 'object' ? `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : String(bound);
  const lines = [
    '',
    `Quarry is serving the Research API v3 at ${base}`,
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
