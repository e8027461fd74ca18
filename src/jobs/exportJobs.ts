/**
 * Backlink export jobs on the durable queue. The API's `state` names the last finished
 * stage, as the reference does (reference-notes.md):
 *
 *   100 queued / collecting → 200 links collected (rows being written) → 600 done
 *
 * The reference's 300 (metrics merged), 400 (rows sorted) and 500 (file stored) pass inside
 * the one streaming write (rows come sorted, with their metrics, and the file is renamed into
 * place as the job completes), so they are never seen. There is no failed or expired code: a
 * failed job keeps the stage it reached and tells why in `error` (its charge refunded); an
 * expired one stays 600 and loses its `downloadURL`.
 *
 * The charge is made once, by the API, when the export is created (it is part of the
 * paid request). A worker never charges. A job that fails for good is refunded through
 * the link tool's `refund` callback, which runs inside the transaction that moves the
 * job to `failed`, so the refund happens exactly once. Retries (a worker that died, a
 * transient error) re-run the job from the start; the file is written under a temporary
 * name and renamed, so a re-run after kill -9 still leaves exactly one file.
 * A completed export is downloadable for 60 days; the sweep then removes the file and
 * moves the job to `expired`.
 */
import path from 'node:path';
import { DAY, unixSeconds } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import type { UrlSigner } from '../lib/signedUrl.js';
import type { StateStore } from '../store/database.js';
import type { ExportPages } from '../store/exportPages.js';
import { type CsvColumn, type CsvRowsOptions, diskExportFiles, type ExportFiles } from './exportFiles.js';
import { postgresExportFiles } from './postgresExportFiles.js';
import type { Job, JobQueue } from './jobQueue.js';
import type { JobContext, JobHandler } from './worker.js';

export const EXPORT_JOB_KIND = 'backlink-export';

export const ExportState = {
  /** Queued, or collecting the matching links. */
  Queued: 100,
  /** Links collected: the rows are being written. */
  LinksCollected: 200,
  MetricsMerged: 300,
  RowsSorted: 400,
  FileStored: 500,
  Done: 600,
} as const;
export type ExportStateCode = (typeof ExportState)[keyof typeof ExportState];

/** How long a completed export (its file and its `downloadURL`) stays available. */
export const EXPORT_RETENTION_MS = 60 * DAY;

export const EXPORT_STAGE_COLLECTING = 'collecting';
export const EXPORT_STAGE_WRITING = 'writing';

/** What a finished export job records as its result. */
export interface ExportResult {
  fileName: string;
  rows: number;
  bytes: number;
}

/** The exports directory under the data directory. */
export function exportsDir(dataDir: string): string {
  return path.join(dataDir, 'exports');
}

/**
 * Where the exports of this state store live: files in `<dataDir>/exports` in the embedded
 * mode, chunks in PostgreSQL in the scale mode (any API process serves what any worker wrote).
 */
export function openExportFiles(state: StateStore, dataDir: string): ExportFiles {
  return state.dialect === 'postgres' ? postgresExportFiles(state.db) : diskExportFiles(exportsDir(dataDir));
}

export function exportFileName(jobId: string): string {
  return `${jobId}.csv`;
}

/** The API's numeric `state` of an export job: the last stage it finished (a failed job: the one it had reached). */
export function exportState(job: Job): ExportStateCode {
  switch (job.state) {
    case 'queued':
      return ExportState.Queued;
    case 'running':
    case 'failed':
      return job.stage === EXPORT_STAGE_WRITING ? ExportState.LinksCollected : ExportState.Queued;
    case 'completed':
    case 'expired':
      return ExportState.Done;
  }
}

/** When a completed export expires (ms), or null while it is not completed. */
export function exportExpiresMs(job: Job): number | null {
  return job.state === 'completed' && job.completedMs !== null ? job.completedMs + EXPORT_RETENTION_MS : null;
}

export function downloadPath(jobId: string): string {
  return `/downloads/${jobId}`;
}

/**
 * The export's signed `downloadURL`: present only while completed and not past its 60
 * days. The URL expires with the export, and signing is deterministic, so every listing
 * shows the same URL.
 */
export function exportDownloadUrl(job: Job, signer: UrlSigner, nowMs: number): string | undefined {
  const expiresMs = exportExpiresMs(job);
  if (expiresMs === null || nowMs >= expiresMs) return undefined;
  return signer.sign(downloadPath(job.id), Math.ceil(expiresMs / 1000));
}

/** The job-machinery fields of the API's export job object (the link tool adds request, stats, cost). */
export interface ExportJobStatus {
  state: ExportStateCode;
  /** Why the export failed; empty unless it failed. */
  error: string;
  createdAt: number;
  /** Unix seconds; null until completed or failed. */
  completedAt: number | null;
  /** Rows written so far, and the rows expected once collecting is done. */
  progress: { done: number; total: number | null };
  /** Only while downloadable (completed, less than 60 days ago). */
  downloadURL?: string;
}

/**
 * How an export job looks to its owner right now.
 *
 * @example
 * const status = exportJobStatus(job, signer, clock.now()); // { state: 300, progress: { done: 5000, total: 12000 }, ... }
 */
export function exportJobStatus(job: Job, signer: UrlSigner, nowMs: number): ExportJobStatus {
  const state = exportState(job);
  const status: ExportJobStatus = {
    state,
    error: job.state === 'failed' ? (job.error ?? 'export failed') : '',
    createdAt: unixSeconds(job.createdMs),
    completedAt: job.completedMs === null ? null : unixSeconds(job.completedMs),
    progress: job.progress,
  };
  const downloadURL = exportDownloadUrl(job, signer, nowMs);
  if (downloadURL !== undefined) status.downloadURL = downloadURL;
  return status;
}

/** The rows of one export, found during the `collecting` stage. */
export interface ExportRows {
  /** How many rows will be written (progress total). */
  total: number;
  rows: CsvRowsOptions['rows'];
}

export interface ExportJobHandlerOptions<P> {
  /** Where the CSV goes (openExportFiles). */
  files: ExportFiles;
  columns: ReadonlyArray<CsvColumn>;
  /** Finds the rows of an export (the link tool: its backlinks with the job's filter and limit). */
  collect(payload: P, ctx: JobContext<P>): Promise<ExportRows> | ExportRows;
  /**
   * Returns the export's charge. Runs inside the transaction that fails the job for good,
   * on the state store's connection (see FailureHook), so it commits with the failure, exactly once.
   */
  refund(job: Job<P>): unknown;
  /** Rows between progress updates. Default 10,000. */
  progressEvery?: number;
  /** After the file is written, before the job completes: drops what `collect` kept for it (a real export's stored pages). */
  written?(job: Job<P>): Promise<void>;
}

/** The worker's handler for backlink exports. */
export function exportJobHandler<P>(options: ExportJobHandlerOptions<P>): JobHandler<P, ExportResult> {
  return {
    async run(ctx) {
      await ctx.stage(EXPORT_STAGE_COLLECTING);
      const { total, rows } = await options.collect(ctx.job.payload, ctx);
      ctx.signal.throwIfAborted();
      await ctx.stage(EXPORT_STAGE_WRITING);
      await ctx.progress(0, total);
      const written = await options.files.write({
        fileName: exportFileName(ctx.job.id),
        attemptTag: `${ctx.job.attempts}-${newId().slice(0, 8)}`,
        columns: options.columns,
        rows,
        signal: ctx.signal,
        progressEvery: options.progressEvery,
        onProgress: (done) => ctx.progress(done, Math.max(total, done)),
      });
      await options.written?.(ctx.job);
      return { fileName: written.fileName, rows: written.rows, bytes: written.bytes };
    },
    // The refund commits with the failure; the export's files (a copy a killed attempt left,
    // a file finished by an attempt whose completion was lost) go once it has committed.
    onFailure: (job) => {
      const refunded = options.refund(job as Job<P>);
      const removed = removeExportOf(options.files, job.id);
      return refunded instanceof Promise ? Promise.all([refunded, removed]) : removed;
    },
  };
}

/** Removes whatever is stored of a job's export, finished or temporary; answers the copies removed. */
async function removeExportOf(files: ExportFiles, jobId: string): Promise<number> {
  const fileName = exportFileName(jobId);
  const finished = (await files.remove(fileName)) ? 1 : 0;
  return finished + (await files.removeTemps(fileName));
}

/**
 * Expires exports completed 60 days ago or more: removes each file, then marks the job
 * `expired`. The file goes first so that a crash in between leaves a completed job
 * without a file (the next sweep finishes it) rather than an expired job whose file
 * lingers forever. Then removes temporary files left by dead attempts of jobs that are
 * not running any more (one that failed for good after its worker died mid-write), and
 * finished files of jobs that did not complete (failed, or gone): the failure removes
 * them as it commits, this catches what a crash in between, or an attempt that lost its
 * lease and still finished its file, left. Last, the provider pages collected by real
 * exports that are over (store/exportPages.ts).
 */
export async function sweepExports(
  queue: JobQueue,
  files: ExportFiles,
  pages?: Pick<ExportPages, 'owners' | 'remove'>,
): Promise<{ expired: number; tempsRemoved: number; failedRemoved: number }> {
  const due = await queue.completedBefore(EXPORT_JOB_KIND, queue.clock.now() - EXPORT_RETENTION_MS);
  let expired = 0;
  for (const job of due) {
    await files.remove(exportFileName(job.id));
    if (await queue.expire(job.id)) expired++;
  }
  let tempsRemoved = 0;
  for (const jobId of await files.tempOwners()) {
    if ((await queue.byId(jobId))?.state === 'running') continue;
    tempsRemoved += await files.removeTemps(exportFileName(jobId));
  }
  let failedRemoved = 0;
  for (const jobId of await files.owners()) {
    const state = (await queue.byId(jobId))?.state;
    // A running or queued job's file is an earlier attempt's, which the next one replaces.
    if (state === 'completed' || state === 'running' || state === 'queued') continue;
    if (await files.remove(exportFileName(jobId))) failedRemoved++;
  }
  // Pages a real export collected stay while its job may run again; a job that failed for good leaves them here.
  for (const jobId of (await pages?.owners()) ?? []) {
    const state = (await queue.byId(jobId))?.state;
    if (state !== 'queued' && state !== 'running') await pages!.remove(jobId);
  }
  return { expired, tempsRemoved, failedRemoved };
}
