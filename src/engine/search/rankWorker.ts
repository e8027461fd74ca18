/**
 * Ranks a market of a research store in a worker thread, over a read-only connection, while
 * the thread that started it keeps writing the store (a world build writes and indexes its
 * links meanwhile, without a WAL: the reads here are short and take turns with its commits
 * under SQLite's file locks, and see what was committed). Ranking is most of a
 * first start's JavaScript and writing the links most of its SQLite work: on two cores they
 * take turns no more.
 *
 * The worker writes nothing: what the engine would store (the text index, the rank
 * candidates and the rank index) is handed back, and `rankInWorker`'s caller stores it on
 * its own connection once its own writes are done.
 *
 * @example
 * const ranking = rankInWorker({ file, market: 2840, asOf }); // after the pages and metrics are committed
 * writeLinks();
 * (await ranking.result).saveTo(new SearchStore(raw));
 */
import BetterSqlite from 'better-sqlite3';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { moduleWorker } from '../../lib/moduleWorker.js';
import { loadLocations } from '../../locations/registry.js';
import type { Bm25Parts } from './bm25Index.js';
import { loadSearchCorpus } from './loadSearchCorpus.js';
import type { StoredCandidates } from './rankCandidates.js';
import { SearchEngine } from './searchEngine.js';
import { SearchStore, type RankBuild } from './searchStore.js';

interface RankJob {
  file: string;
  market: number;
  /** The build date (ms): the ranking's date. */
  asOf: number;
}

/** What the worker would have stored. */
export interface RankedMarket {
  text: { fingerprint: string; parts: Bm25Parts }[];
  candidates: { fingerprint: string; rows: StoredCandidates[] }[];
  rankIndexes: { build: RankBuild; keywordIds: Int32Array; positions: Uint8Array; pageIds: Int32Array }[];
}

type Message = { type: 'progress'; stage: string; done: number; total: number } | { type: 'done'; ranked: RankedMarket } | { type: 'error'; message: string };

/** A SearchStore whose writes are kept for the thread that owns the store (reads go to the read-only connection). */
class CollectingStore extends SearchStore {
  readonly ranked: RankedMarket = { text: [], candidates: [], rankIndexes: [] };

  override recordKeywordRefs(): void {}
  override saveTextIndex(fingerprint: string, parts: Bm25Parts): void {
    this.ranked.text.push({ fingerprint, parts });
  }
  /** A fresh build has none stored (and the stored ones' clean-up would write). */
  override rankCandidates(): StoredCandidates[] {
    return [];
  }
  override saveRankCandidates(fingerprint: string, rows: readonly StoredCandidates[]): void {
    this.ranked.candidates.push({ fingerprint, rows: [...rows] });
  }
  override saveRankIndex(build: RankBuild, keywordIds: Int32Array, positions: Uint8Array, pageIds: Int32Array): void {
    this.ranked.rankIndexes.push({ build, keywordIds, positions, pageIds });
  }
}

/** Stores what a worker ranked (on the connection that may write). */
export function saveRanked(store: SearchStore, ranked: RankedMarket): void {
  for (const t of ranked.text) store.saveTextIndex(t.fingerprint, t.parts);
  for (const c of ranked.candidates) store.saveRankCandidates(c.fingerprint, c.rows);
  for (const r of ranked.rankIndexes) store.saveRankIndex(r.build, r.keywordIds, r.positions, r.pageIds);
}

/** The distinct buffers under the typed arrays of a result (to transfer). */
function buffersOf(ranked: RankedMarket): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  const add = (a: ArrayBufferView) => {
    if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
  };
  for (const t of ranked.text) for (const a of [t.parts.offsets, t.parts.postingDocs, t.parts.postingTf, t.parts.docLength]) add(a);
  for (const c of ranked.candidates) for (const row of c.rows) add(row.docs);
  for (const r of ranked.rankIndexes) for (const a of [r.keywordIds, r.positions, r.pageIds]) add(a);
  return [...buffers];
}

/** How long a read of the ranking waits for the build's lock before the ranking is given up (the build then ranks itself). */
const WORKER_BUSY_TIMEOUT_MS = 600_000;
/** Pages a read of the worker takes (a few MB of text): the build's commits wait for at most one such read. */
const PAGES_PER_READ = 2_000;

async function runJob(job: RankJob, progress: (stage: string, done: number, total: number) => void): Promise<RankedMarket> {
  const raw = new BetterSqlite(job.file, { readonly: true, fileMustExist: true });
  try {
    // The build writes the file meanwhile without a WAL (buildWorld.ts): a read waits while a
    // commit is written, or while an index of the links is built once its pages overflow the
    // cache (its lock is then held to its end: tens of seconds on a loaded machine).
    raw.pragma(`busy_timeout = ${WORKER_BUSY_TIMEOUT_MS}`);
    const store = new CollectingStore(raw);
    const { corpus, index, textFingerprint } = loadSearchCorpus(raw, store, progress, { pagesPerRead: PAGES_PER_READ });
    progress('keyword catalogue', 0, 1);
    const search = new SearchEngine({ corpus, index, textFingerprint, clock: { now: () => job.asOf }, locations: loadLocations(), store });
    const stage = `rank market ${job.market}`;
    progress(stage, 0, 1);
    await search.requireRankIndex(job.market, (done, total) => progress(stage, done, total));
    return store.ranked;
  } finally {
    raw.close();
  }
}

/**
 * Starts ranking `market` of the store in a worker thread; `onProgress` hears the worker's
 * stages while the calling thread's event loop runs (not while it is busy in SQLite).
 */
export function rankInWorker(job: RankJob, onProgress: (stage: string, done: number, total: number) => void = () => {}): Promise<RankedMarket> {
  const worker = moduleWorker(import.meta.url, job);
  return new Promise<RankedMarket>((resolve, reject) => {
    let settled = false;
    worker.on('message', (m: Message) => {
      if (m.type === 'progress') onProgress(m.stage, m.done, m.total);
      else if (m.type === 'done') {
        settled = true;
        resolve(m.ranked);
      } else {
        settled = true;
        reject(new Error(m.message));
      }
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the ranking worker exited with ${code}`));
    });
  });
}

if (!isMainThread && parentPort && (workerData as Partial<RankJob> | undefined)?.file !== undefined) {
  const port = parentPort;
  runJob(workerData as RankJob, (stage, done, total) => port.postMessage({ type: 'progress', stage, done, total } satisfies Message))
    // Handed over, not copied: the main thread holds the generated world meanwhile, and a
    // copy of the text index beside the worker's own would raise the build's peak memory.
    .then((ranked) => port.postMessage({ type: 'done', ranked } satisfies Message, buffersOf(ranked)))
    .catch((error: unknown) =>
      port.postMessage({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Message),
    );
}
