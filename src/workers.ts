/**
 * The background work of a running Quarry, in one place: the job handlers every worker
 * runs (embedded in `quarry serve`, or `quarry worker` as its own process).
 */
import type { QuarryContext } from './context.js';
import { EXPORT_JOB_KIND } from './jobs/exportJobs.js';
import type { JobHandlers } from './jobs/workerCommand.js';
import type { JobHandler } from './jobs/worker.js';
import { exportHandler } from './tools/link/exports.js';

export function jobHandlers(ctx: QuarryContext): JobHandlers {
  return { [EXPORT_JOB_KIND]: onOneGeneration(ctx, exportHandler(ctx)) };
}

/** A job reads one generation of the research data from start to end, like a request (engine/live/liveResearch.ts). */
function onOneGeneration<P, R>(ctx: QuarryContext, handler: JobHandler<P, R>): JobHandler<P, R> {
  return { ...handler, run: (job) => ctx.research.live.use(() => handler.run(job)) };
}
