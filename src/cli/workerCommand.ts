/**
 * `quarry worker`: a worker in a process of its own (scale mode, or a second machine on the
 * same state store), over the worker context (service.ts). The worker itself, shared with
 * the one `quarry serve` embeds, is jobs/embeddedWorker.ts.
 */
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { closeStateContext, createWorkerContext, type WorkerContext } from '../service.js';
import { BACKGROUND_BUSY_TIMEOUT_MS } from '../store/database.js';
import { type JobHandlers, startEmbeddedWorker } from '../jobs/embeddedWorker.js';
import type { JobQueue } from '../jobs/jobQueue.js';
import { openJobQueue } from '../jobs/openJobQueue.js';
import type { WorkerLogger } from '../jobs/worker.js';
import { startMetricsServer } from '../metrics/metricsServer.js';

/**
 * The handlers of `quarry worker`, made from its context: the research engine without the
 * search half (service.ts `createWorkerContext`), which no job reads.
 */
export type JobHandlersFactory = (ctx: WorkerContext, queue: JobQueue) => JobHandlers | Promise<JobHandlers>;

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/**
 * `quarry worker`: runs jobs until SIGTERM or SIGINT, then stops claiming, lets running
 * jobs finish within the grace period and gives back the leases of the rest.
 */
export function workerCommand(handlers: JobHandlersFactory): Command {
  return new Command('worker')
    .description('run background jobs (backlink exports, rank crawls, email reports) from the state store')
    .option('--concurrency <n>', 'jobs run at once', positiveInt, 2)
    .option('--poll-interval <ms>', 'wait between polls when idle', positiveInt, 1000)
    .option('--grace <ms>', 'on SIGTERM, how long running jobs may take before their leases are released', positiveInt, 10_000)
    .action(async (opts: { concurrency: number; pollInterval: number; grace: number }) => {
      const config = loadConfig();
      const logger = pino({ level: config.logLevel, name: 'quarry-worker' });
      const ctx = await createWorkerContext(config, { busyTimeoutMs: BACKGROUND_BUSY_TIMEOUT_MS });
      // This process's own metrics (its job durations), for Prometheus to scrape beside the others'.
      const metricsServer = config.metricsPort === null ? null : await startMetricsServer(ctx.metrics, config.metricsPort, config.host, config.metricsToken);
      if (metricsServer) logger.info({ port: metricsServer.port }, 'metrics on /metrics');
      const queue = openJobQueue(ctx.state, ctx.clock);
      const running = startEmbeddedWorker(ctx, {
        handlers: await handlers(ctx, queue),
        queue,
        concurrency: opts.concurrency,
        pollIntervalMs: opts.pollInterval,
        shutdownGraceMs: opts.grace,
        logger: logger as WorkerLogger,
      });
      logger.info({ worker: running.worker.id, kinds: running.worker.kinds, concurrency: opts.concurrency }, 'worker started');
      // New research generations are loaded as they come, like the API's (engine/live/).
      ctx.research.start(logger);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const shutdown = (signal: string) => {
          if (stopping) return;
          stopping = true;
          logger.info({ signal }, 'worker stopping');
          // Past the grace and the drain deadline the process ends whatever still waits (a
          // store that does not answer); leases it held run out and other workers take the jobs.
          setTimeout(() => {
            logger.error({ signal }, 'the worker did not stop within its grace and drain deadline; exiting');
            process.exit(1);
          }, opts.grace + config.drainTimeoutMs).unref();
          void running
            .stop()
            .then(() => ctx.research.stop())
            .then(() => metricsServer?.close())
            .then(() => closeStateContext(ctx))
            .then(resolve);
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
      });
      logger.info('worker stopped');
    });
}
