/**
 * A world build's link metrics computed in a worker thread: first the metrics the build
 * writes (linkMetrics.ts), then the root domains' monthly histories (siteHistory.ts) as the
 * JSON texts `root_history` stores. Meanwhile the thread that started it writes the world's
 * keywords and sites (the metrics are needed from the metrics and links onwards) and then
 * its links (the histories only at the end). On a first start that is PageRank, TrustRank,
 * the counters and the histories no longer waiting their turn behind SQLite (issue 26).
 *
 * The graph is copied to the worker (structured clone of its typed arrays: tens of MiB on
 * `small`), not transferred: the building thread writes the links from it. The metrics come
 * back transferred. A worker that cannot start or fails is replaced by the same computation
 * in the calling thread, so the result is the same either way.
 *
 * @example
 * const computed = linkMetricsInWorker(g);
 * writeKeywordsAndSites();
 * const metrics = await computed.metrics;
 * writeLinks(metrics);
 * writeRootHistories(raw, await computed.histories);
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { moduleWorker } from '../../lib/moduleWorker.js';
import type { LinkGraphInput } from './linkGraphInput.js';
import { computeLinkMetricsWithoutHistories, type LinkMetricsWithoutHistories } from './linkMetrics.js';
import { computeRootHistories } from '../sites/siteHistory.js';

type Message = { type: 'metrics'; metrics: LinkMetricsWithoutHistories } | { type: 'histories'; texts: string[] } | { type: 'error'; message: string };

export interface ComputedLinkMetrics {
  metrics: Promise<LinkMetricsWithoutHistories>;
  /** The histories' JSON texts by root index (what `writeRootHistories` stores). */
  histories: Promise<string[]>;
}

/** What the histories read of the metrics: today's root figures (the history ends at them). */
type RootFigures = Pick<LinkMetricsWithoutHistories['roots'], 'citationFlow' | 'trustFlow' | 'authority' | 'topRank'>;

/** The histories' JSON texts from the graph and its root figures. */
export function historyTexts(g: LinkGraphInput, roots: RootFigures): string[] {
  return computeRootHistories(g, roots.citationFlow, roots.trustFlow, roots.authority, roots.topRank).map((h) => JSON.stringify(h));
}

/** Both halves in the calling thread (the fallback, and the reference the worker must equal). */
export function computeInThread(g: LinkGraphInput): { metrics: LinkMetricsWithoutHistories; histories: string[] } {
  const metrics = computeLinkMetricsWithoutHistories(g);
  return { metrics, histories: historyTexts(g, metrics.roots) };
}

/**
 * Computes the metrics and then the histories of `g` in a worker thread. When the worker
 * cannot run or fails, what it did not answer is computed in this thread, at the time of the
 * first wait for it.
 */
export function linkMetricsInWorker(g: LinkGraphInput): ComputedLinkMetrics {
  const worker = runWorker(g);
  const metrics = worker.metrics.catch(() => computeLinkMetricsWithoutHistories(g));
  const histories = worker.histories.catch(async () => historyTexts(g, (await metrics).roots));
  return { metrics, histories };
}

/** The worker alone, without the fallback (tests: the worker runs and answers the same). */
export function runWorker(g: LinkGraphInput): ComputedLinkMetrics {
  let settleMetrics!: { resolve: (m: LinkMetricsWithoutHistories) => void; reject: (e: Error) => void };
  let settleHistories!: { resolve: (t: string[]) => void; reject: (e: Error) => void };
  const metrics = new Promise<LinkMetricsWithoutHistories>((resolve, reject) => (settleMetrics = { resolve, reject }));
  const histories = new Promise<string[]>((resolve, reject) => (settleHistories = { resolve, reject }));
  // Whichever the caller does not wait for yet must not count as an unhandled rejection.
  metrics.catch(() => undefined);
  histories.catch(() => undefined);
  const fail = (error: Error) => {
    settleMetrics.reject(error);
    settleHistories.reject(error);
  };
  let worker;
  try {
    worker = moduleWorker(import.meta.url, { linkMetricsJob: g });
  } catch (error) {
    fail(error instanceof Error ? error : new Error(String(error)));
    return { metrics, histories };
  }
  worker.on('message', (m: Message) => {
    if (m.type === 'metrics') settleMetrics.resolve(m.metrics);
    else if (m.type === 'histories') settleHistories.resolve(m.texts);
    else fail(new Error(m.message));
  });
  worker.on('error', fail);
  // Settled promises ignore a later reject: this only ends the waits the worker left open.
  worker.on('exit', (code) => fail(new Error(`the link metrics worker exited with ${code}`)));
  return { metrics, histories };
}

/** The buffers to hand over with the metrics: all of theirs but those the histories still read (and the graph's). */
function transferable(g: LinkGraphInput, metrics: LinkMetricsWithoutHistories): ArrayBuffer[] {
  const keep = new Set<ArrayBufferLike>();
  for (const value of Object.values(g)) if (ArrayBuffer.isView(value)) keep.add(value.buffer);
  const { roots } = metrics;
  for (const a of [roots.citationFlow, roots.trustFlow, roots.authority, roots.topRank]) keep.add(a.buffer);
  const buffers = new Set<ArrayBuffer>();
  const visit = (value: unknown): void => {
    if (ArrayBuffer.isView(value)) {
      if (value.buffer instanceof ArrayBuffer && !keep.has(value.buffer)) buffers.add(value.buffer);
    } else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  };
  visit(metrics);
  return [...buffers];
}

const data = workerData as { linkMetricsJob?: LinkGraphInput } | undefined;
if (!isMainThread && parentPort && data?.linkMetricsJob !== undefined) {
  const port = parentPort;
  const g = data.linkMetricsJob;
  try {
    const metrics = computeLinkMetricsWithoutHistories(g);
    // What the histories read stays here (copied with the message); the rest is handed over.
    const { citationFlow, trustFlow, authority, topRank } = metrics.roots;
    port.postMessage({ type: 'metrics', metrics } satisfies Message, transferable(g, metrics));
    port.postMessage({ type: 'histories', texts: historyTexts(g, { citationFlow, trustFlow, authority, topRank }) } satisfies Message);
  } catch (error) {
    port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Message);
  }
}
