/**
 * The background work of a running Quarry, in one place: the job handlers every worker
 * runs (embedded in `quarry serve`, or `quarry worker` as its own process).
 */
import type { QuarryContext } from './context.js';
import type { LiveResearch, LoadedSet } from './engine/live/liveResearch.js';
import { EXPORT_JOB_KIND } from './jobs/exportJobs.js';
import type { JobHandlers } from './jobs/embeddedWorker.js';
import type { JobHandler } from './jobs/worker.js';
import { exportHandler, type ExportHandlerOptions } from './tools/link/exports.js';

/**
 * What the job handlers read: the research engine (not its search half: `quarry worker` never
 * opens it, see service.ts `createWorkerContext`), the state store and the policy.
 */
export type JobHost = Pick<QuarryContext, 'engine' | 'config' | 'policy' | 'clock' | 'state'> & {
  research: { live: Pick<LiveResearch<LoadedSet>, 'use'> };
};

/** `exports`: the export handler's options (tests: smaller provider pages, more progress reports). */
export function jobHandlers(ctx: JobHost, exports: ExportHandlerOptions = {}): JobHandlers {
  return { [EXPORT_JOB_KIND]: onOneGeneration(ctx, exportHandler(ctx, exports)) };
}

/** A job reads one generation of the research data from start to end, like a request (engine/live/liveResearch.ts). */
function onOneGeneration<P, R>(ctx: JobHost, handler: JobHandler<P, R>): JobHandler<P, R> {
  return { ...handler, run: (job) => ctx.research.live.use(() => handler.run(job)) };
}
