/**
 * The background work of a running Quarry, in one place: the job handlers every worker
 * runs (embedded in `quarry serve`, or `quarry worker` as its own process).
 */
import type { QuarryContext } from './context.js';
import { EXPORT_JOB_KIND } from './jobs/exportJobs.js';
import type { JobHandlers } from './jobs/workerCommand.js';
import { exportHandler } from './tools/link/exports.js';

export function jobHandlers(ctx: QuarryContext): JobHandlers {
  return { [EXPORT_JOB_KIND]: exportHandler(ctx) };
}
