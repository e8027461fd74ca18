/**
 * A worker thread running one of this program's own modules (the world build's workers:
 * engine/links/metricsWorker.ts, engine/search/rankWorker.ts).
 *
 * @example
 * const worker = moduleWorker(import.meta.url, { job });
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Starts `moduleUrl` (pass the module's own `import.meta.url`) in a worker thread with `workerData`. */
export function moduleWorker(moduleUrl: string, workerData: unknown): Worker {
  // Under tsx (tests, benches) the module is TypeScript: the worker registers tsx's loader first.
  return fileURLToPath(moduleUrl).endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(moduleUrl)}))`,
        {
          eval: true,
          workerData,
        },
      )
    : new Worker(fileURLToPath(moduleUrl), { workerData });
}
