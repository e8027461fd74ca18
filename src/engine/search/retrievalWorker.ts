/**
 * A rank-index build's BM25 retrievals (bm25Retriever.ts) in a worker thread of their own,
 * over a copy of the text index: a world build's ranking (rankWorker.ts) hands it the last
 * half of the market's keywords and retrieves the first half itself meanwhile. Retrieval is
 * most of ranking a keyword, and a first start ranks the default market in the worker while
 * the building thread writes and indexes the links; once those are done, the ranking alone
 * was what the start waited for, on one core of two (issue 26).
 *
 * Each answer is what `OrganicRanker.retrieve` gives for the query in the ranking's own
 * thread (the same code over the same index), so the rank index and the stored candidates
 * are the same whichever thread retrieved them.
 *
 * @example
 * const retrievals = await retrieveInWorker(index.toParts(), queries, RANK_DEPTH, SHORT_RANKING_CANDIDATES);
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { moduleWorker } from '../../lib/moduleWorker.js';
import { Bm25Index, type Bm25Parts } from './bm25Index.js';
import { Bm25Retriever, type Retrieval, type RetrievalQuery } from './bm25Retriever.js';

interface RetrievalJob {
  parts: Bm25Parts;
  queries: readonly RetrievalQuery[];
  limit: number;
  candidates: number;
}

type Message = { type: 'done'; retrievals: Retrieval[] } | { type: 'error'; message: string };

/** The queries' retrievals over the index's parts, in this thread (what the worker runs). */
export function retrieveAll(job: RetrievalJob): Retrieval[] {
  const retriever = new Bm25Retriever(Bm25Index.fromParts(job.parts));
  return job.queries.map((query) => retriever.retrieve(query, job.limit, job.candidates));
}

/**
 * The queries' retrievals over the index's parts (copied to the worker), computed in a
 * worker thread; rejects when the worker cannot run or fails.
 */
export function retrieveInWorker(parts: Bm25Parts, queries: readonly RetrievalQuery[], limit: number, candidates: number): Promise<Retrieval[]> {
  return new Promise<Retrieval[]>((resolve, reject) => {
    const worker = moduleWorker(import.meta.url, { retrievalJob: { parts, queries, limit, candidates } satisfies RetrievalJob });
    let settled = false;
    worker.on('message', (m: Message) => {
      settled = true;
      if (m.type === 'done') resolve(m.retrievals);
      else reject(new Error(m.message));
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the retrieval worker exited with ${code}`));
    });
  });
}

/** The distinct buffers under the retrievals' arrays (handed over, not copied). */
function buffersOf(retrievals: readonly Retrieval[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const r of retrievals)
    for (const scored of r.fallback ? [r.found, r.fallback] : [r.found])
      for (const a of [scored.docs, scored.scores, scored.coverage]) if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
  return [...buffers];
}

const data = workerData as { retrievalJob?: RetrievalJob } | undefined;
if (!isMainThread && parentPort && data?.retrievalJob !== undefined) {
  const port = parentPort;
  try {
    const retrievals = retrieveAll(data.retrievalJob);
    port.postMessage({ type: 'done', retrievals } satisfies Message, buffersOf(retrievals));
  } catch (error) {
    port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Message);
  }
}
