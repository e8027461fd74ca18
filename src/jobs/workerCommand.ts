/**
 * Where workers run: `quarry worker`, a separate process (scale mode, or a second
 * machine on the same state store), and the worker embedded in `quarry serve` (the
 * default single-process setup). Both run the same Worker over the same durable queue,
 * plus the periodic export sweep (60-day expiry, leftover temporary files).
 */
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import type { QuarryContext } from '../context.js';
import { HOUR } from '../lib/clock.js';
import { closeStateContext, createWorkerContext, type WorkerContext } from '../service.js';
import { BACKGROUND_BUSY_TIMEOUT_MS } from '../store/database.js';
import { ExportPages } from '../store/exportPages.js';
import { openExportFiles, sweepExports } from './exportJobs.js';
import type { JobQueue } from './jobQueue.js';
import { openJobQueue } from './openJobQueue.js';
import { startMetricsServer } from '../metrics/metricsServer.js';
import { type JobHandler, Worker, type WorkerLogger, type WorkerOptions } from './worker.js';

/** The handler of every job kind, built from a running context (the lead wires the tools' handlers). */
export type JobHandlers = Record<string, JobHandler>;
/**
 * The handlers of `quarry worker`, made from its context: the research engine without the
 * search half (service.ts `createWorkerContext`), which no job reads.
 */
export type JobHandlersFactory = (ctx: WorkerContext, queue: JobQueue) => JobHandlers | Promise<JobHandlers>;

export interface WorkerRuntimeOptions extends WorkerOptions {
  handlers: JobHandlers;
  /** The queue to work on; by default one over the context's state store and clock. */
  queue?: JobQueue;
  /** Interval of the export sweep (real time; expiry itself is decided by the clock). Default 1 h. */
  sweepEveryMs?: number;
}

/** What a worker needs of the running service. */
export type WorkerHost = Pick<QuarryContext, 'state' | 'clock' | 'config'> & Partial<Pick<QuarryContext, 'metrics'>>;

export interface RunningWorker {
  worker: Worker;
  queue: JobQueue;
  /** Stops claiming, finishes or releases running jobs, stops the sweep. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a worker inside the current process (`quarry serve`). Call `stop()` before
 * closing the state store.
 */
export function startEmbeddedWorker(ctx: WorkerHost, options: WorkerRuntimeOptions): RunningWorker {
  const queue = options.queue ?? openJobQueue(ctx.state, ctx.clock);
  const worker = new Worker(queue, { metrics: ctx.metrics, ...options });
  for (const [kind, handler] of Object.entries(options.handlers)) worker.register(kind, handler);
  const log = options.logger;
  const files = openExportFiles(ctx.state, ctx.config.dataDir);
  const pages = new ExportPages(ctx.state.db);
  const sweep = async () => {
    try {
      const { expired, tempsRemoved, failedRemoved } = await sweepExports(queue, files, pages);
      if (expired + tempsRemoved + failedRemoved > 0) log?.info({ expired, tempsRemoved, failedRemoved }, 'export sweep');
    } catch (err) {
      log?.error({ err }, 'export sweep failed');
    }
  };
  const sweepTimer = setInterval(() => void sweep(), options.sweepEveryMs ?? HOUR);
  sweepTimer.unref();
  void sweep();
  worker.start();
  return {
    worker,
    queue,
    async stop(graceMs?: number) {
      clearInterval(sweepTimer);
      await worker.stop(graceMs);
    },
  };
}

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
