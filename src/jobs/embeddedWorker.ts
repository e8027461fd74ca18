/**
 * A worker running in a process: the Worker over the durable queue, plus the periodic
 * export sweep (60-day expiry, leftover temporary files). `quarry worker` runs it alone
 * (cli/workerCommand.ts: scale mode, or a second machine on the same state store);
 * `quarry serve` embeds it (the default single-process setup).
 */
import { type Clock, HOUR } from '../lib/clock.js';
import type { StateStore } from '../store/database.js';
import { ExportPages } from '../store/exportPages.js';
import { openExportFiles, sweepExports } from './exportJobs.js';
import type { JobQueue } from './jobQueue.js';
import { openJobQueue } from './openJobQueue.js';
import { type JobHandler, Worker, type WorkerOptions } from './worker.js';

/** The handler of every job kind, built from a running context (the lead wires the tools' handlers). */
export type JobHandlers = Record<string, JobHandler>;

export interface WorkerRuntimeOptions extends WorkerOptions {
  handlers: JobHandlers;
  /** The queue to work on; by default one over the context's state store and clock. */
  queue?: JobQueue;
  /** Interval of the export sweep (real time; expiry itself is decided by the clock). Default 1 h. */
  sweepEveryMs?: number;
}

/**
 * What a worker needs of the running service (a QuarryContext has it all), written out here
 * so that jobs/ does not import the context, which sits above it.
 */
export interface WorkerHost {
  state: StateStore;
  clock: Clock;
  config: { dataDir: string };
  metrics?: WorkerOptions['metrics'];
}

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
