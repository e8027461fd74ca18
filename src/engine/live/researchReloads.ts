/**
 * Keeps a running process on the newest research data without a restart. Every few
 * seconds (and, in scale mode, when an import announces a generation on Redis) it looks
 * at the store file's data generation (generation.ts: one row read on a short-lived
 * connection); when an import has raised it, or the file was rebuilt, it opens the new data
 * beside the old (minutes on a large world: the search index and the default market's rank
 * index are built in memory) and swaps it in (liveResearch.ts). In scale mode it first
 * fetches a generation published to PostgreSQL that this data directory lacks
 * (snapshots.ts). Checks run one at a time; each stage is logged.
 *
 * @example
 * const reloads = new ResearchReloads(live, { baseFile, open: (file, onProgress) => openResearchSet(file, ...) });
 * reloads.start(log);        // polls every 5 s, listens for announcements
 * await reloads.check();     // tests: look now
 * await reloads.stop();
 */
import fs from 'node:fs';
import type { ProgressListener } from '../../lib/progress.js';
import { fetchedResearchFile, fetchedResearchFiles, liveResearchFile, peekGeneration } from './generation.js';
import type { LiveResearch, LoadedSet } from './liveResearch.js';

/** How often a serving process looks for a new generation. */
export const RELOAD_POLL_MS = 5_000;

export interface ReloadLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The generations published to the scale mode's shared store (snapshots.ts). */
export interface SharedGenerations {
  /** The newest completely published generation, or null when none is. */
  latest(): Promise<number | null>;
  /** Writes a published generation into `file` (a new file; streamed, constant memory). */
  fetch(generation: number, file: string, onProgress?: ProgressListener): Promise<void>;
  /** Calls `listener` with each generation announced from now on; answers the unsubscribe. */
  subscribe(listener: (generation: number) => void): () => void;
}

export interface ResearchReloadsOptions<S extends LoadedSet> {
  /** `<data dir>/research.db` (or a test's file); fetched generations go beside it. */
  baseFile: string;
  /** Opens the data of a store file (the service's researchSet.ts). */
  open(file: string, onProgress: ProgressListener): Promise<S>;
  /** Scale mode: generations published to PostgreSQL. */
  shared?: SharedGenerations | null;
  /** How many fetched generation files to keep (the live one and the one before, which a sibling process may still read). */
  keepFetched?: number;
}

const quiet: ReloadLogger = { info: () => undefined, error: () => undefined };

export class ResearchReloads<S extends LoadedSet> {
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private log: ReloadLogger = quiet;
  /** Reloads done since start (tests and the log). */
  reloads = 0;

  constructor(
    readonly live: LiveResearch<S>,
    private readonly options: ResearchReloadsOptions<S>,
  ) {}

  /** Starts looking: on a timer (unref'd) and on announcements. */
  start(log: ReloadLogger, everyMs = RELOAD_POLL_MS): void {
    this.log = log;
    const check = () => void this.check().catch((err: unknown) => this.log.error({ err }, 'research reload failed; the current data stays in use'));
    this.timer = setInterval(check, everyMs);
    this.timer.unref();
    this.unsubscribe = this.options.shared?.subscribe((generation) => {
      this.log.info({ generation }, 'research generation announced');
      check();
    });
  }

  /** Looks for new data now and loads it; true when it swapped a new set in. */
  check(): Promise<boolean> {
    const run = this.queue.then(() => this.checkOnce());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops looking; a reload under way finishes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.queue;
  }

  private async checkOnce(): Promise<boolean> {
    if (this.options.shared) await fetchMissingGeneration(this.options.baseFile, this.options.shared, this.log);
    const file = liveResearchFile(this.options.baseFile);
    const peek = peekGeneration(file);
    const current = this.live.current;
    // Not there or not ready (a rebuild under way): keep serving what is loaded.
    if (!peek?.ready) return false;
    if (file === current.file && peek.ino === current.ino && peek.generation === current.generation) return false;
    const started = Date.now();
    this.log.info({ file, generation: peek.generation, loaded: current.generation }, 'research store changed: loading it beside the data in use');
    const next = await this.options.open(file, (stage, done, total) => {
      if (done >= total) this.log.info({ stage, total }, 'research reload stage done');
    });
    this.live.swap(next);
    this.reloads++;
    this.log.info(
      { file, generation: next.generation, ms: Date.now() - started, draining: this.live.draining },
      'research store reloaded; the previous data closes when the requests that use it have answered',
    );
    this.removeOldFetched();
    return true;
  }

  /**
   * Fetched generations older than the kept ones are removed: the file is unlinked while a
   * process may still have it open (it reads on until it closes), never its -wal/-shm,
   * which SQLite removes when the last connection closes.
   */
  private removeOldFetched(): void {
    const keep = this.options.keepFetched ?? 2;
    const inUse = new Set([this.live.current.file]);
    for (const { file } of fetchedResearchFiles(this.options.baseFile).slice(keep)) {
      if (inUse.has(file)) continue;
      try {
        fs.rmSync(file, { force: true });
        this.log.info({ file }, 'removed an old research generation');
      } catch (err) {
        this.log.error({ err, file }, 'could not remove an old research generation');
      }
    }
  }
}

/**
 * Scale mode: fetches the newest published generation when the files beside `baseFile` lack
 * it (at start, before the first open, and before each check).
 */
export async function fetchMissingGeneration(baseFile: string, shared: SharedGenerations, log: ReloadLogger = quiet): Promise<void> {
  const latest = await shared.latest();
  if (latest === null) return;
  const local = peekGeneration(liveResearchFile(baseFile))?.generation ?? 0;
  if (latest <= local) return;
  const file = fetchedResearchFile(baseFile, latest);
  if (fs.existsSync(file)) return;
  const started = Date.now();
  log.info({ generation: latest, local }, 'fetching the research generation published to PostgreSQL');
  await shared.fetch(latest, file, (stage, done, total) => {
    if (done >= total) log.info({ stage, total }, 'research fetch stage done');
  });
  log.info({ generation: latest, file, ms: Date.now() - started }, 'research generation fetched');
}
