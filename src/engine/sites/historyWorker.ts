/**
 * The root domains' monthly histories (siteHistory.ts) computed in a worker thread, as the
 * JSON texts `root_history` stores, while the thread that started it writes the world's
 * keywords, sites and links. The histories need the link graph and today's root metrics
 * only, and nothing the build writes needs them until its end: on a first start they are
 * seconds of JavaScript that no longer wait their turn behind SQLite (issue 26).
 *
 * The graph is copied to the worker (structured clone of its typed arrays: tens of MiB on
 * `small`), not transferred: the building thread still writes the links from it.
 *
 * @example
 * const histories = historiesInWorker({ g, rootCf, rootTf, rootPda, topRank });
 * writeLinks();
 * writeRootHistories(raw, await histories);
 */
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { LinkGraphInput } from '../links/linkGraphInput.js';
import { computeRootHistories } from './siteHistory.js';

export interface HistoryJob {
  g: LinkGraphInput;
  rootCf: Uint8Array;
  rootTf: Uint8Array;
  rootPda: Uint8Array;
  topRank: Int32Array;
}

type Message = { type: 'done'; texts: string[] } | { type: 'error'; message: string };

/** The histories' JSON texts by root index (what `writeRootHistories` stores). */
export function historyTexts(job: HistoryJob): string[] {
  return computeRootHistories(job.g, job.rootCf, job.rootTf, job.rootPda, job.topRank).map((h) => JSON.stringify(h));
}

/**
 * Computes `historyTexts(job)` in a worker thread; when the worker cannot run or fails, in
 * this thread at the time of the call's answer (the same texts either way).
 */
export async function historiesInWorker(job: HistoryJob): Promise<string[]> {
  try {
    return await runWorker(job);
  } catch {
    return historyTexts(job);
  }
}

/** The worker alone, without the fallback (tests: the worker runs and answers the same texts). */
export function runWorker(job: HistoryJob): Promise<string[]> {
  // Under tsx (tests, benches) this module is TypeScript: the worker registers tsx's loader first.
  const worker = fileURLToPath(import.meta.url).endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(import.meta.url)}))`,
        { eval: true, workerData: { historyJob: job } },
      )
    : new Worker(fileURLToPath(import.meta.url), { workerData: { historyJob: job } });
  return new Promise<string[]>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: Message) => {
      settled = true;
      if (m.type === 'done') resolve(m.texts);
      else reject(new Error(m.message));
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the history worker exited with ${code}`));
    });
  });
}

const data = workerData as { historyJob?: HistoryJob } | undefined;
if (!isMainThread && parentPort && data?.historyJob !== undefined) {
  const port = parentPort;
  try {
    port.postMessage({ type: 'done', texts: historyTexts(data.historyJob) } satisfies Message);
  } catch (error) {
    port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Message);
  }
}
