/**
 * Fair use of free operations: no single account may slow the service for the others.
 * Free operations cost no quota, so without these limits one account could write lists
 * as fast as the server accepts them and hold it busy with bulk reads. The numbers are in
 * README.md ("Fair use") and docs/decisions.md.
 *
 * The embedded mode keeps the counters in this process (one `quarry serve` owns a SQLite
 * data directory: acquireServeLock); the scale mode keeps them on Redis, shared by every
 * process (policy/redis/redisFairUse.ts). The storage quota is counted in the state store.
 */
import { errors } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';

/** Free-write units an account may spend per minute (bucket size and refill rate). */
export const DEFAULT_FREE_WRITES_PER_MINUTE = 120;
/** A free write costs 1 unit plus 1 per started 1,000 keyword ids it carries. */
export const IDS_PER_WRITE_UNIT = 1_000;
/**
 * Bulk operations one account may run at once: the bulk reads (list detail and CSV, all lists,
 * keyword export by ids) and the other heavy free operations (backlink export suggestions, a
 * tracking's stats).
 */
export const BULK_READS_PER_ACCOUNT = 2;
/**
 * Requests of one account (of one client address, without a key) one API process works on at
 * once, of any operation, by default (QUARRY_REQUESTS_IN_FLIGHT): past it a request is refused
 * before its body is read. Sixteen covers a dashboard page's parallel calls and a client's
 * fan-out; one account can no longer queue thousands of requests in a process.
 */
export const DEFAULT_REQUESTS_IN_FLIGHT = 16;
/** Backlink export jobs one account may have queued or running at once. */
export const LIVE_EXPORTS_PER_ACCOUNT = 3;
/** Keyword ids one account may keep across all its lists (100 full lists). */
export const STORED_KEYWORD_IDS_PER_ACCOUNT = 1_000_000;

/**
 * What one account may keep of the rank tool's objects (README "Fair use"). Each number is
 * far above what the largest default plan uses (2,000 live tracked keywords; a tracking
 * holds at most 100 tags, 20 reports), so it binds only an account that piles objects up.
 * A deleted tracking keeps its keywords, tags, annotations and reports, and counts, until it
 * is purged DELETED_TRACKING_RETENTION_DAYS after its deletion.
 */
export const RANK_STORAGE_PER_ACCOUNT = {
  trackings: 1_000,
  trackedKeywords: 100_000,
  tags: 10_000,
  annotations: 20_000,
  reports: 5_000,
} as const;
/** Days a deleted tracking is kept (listed with `is_with_deleted`) before it is purged. */
export const DELETED_TRACKING_RETENTION_DAYS = 30;

/** An account's storage quota; a copy per context, so tests can lower it. */
export interface StorageQuota {
  listKeywordIds: number;
  trackings: number;
  trackedKeywords: number;
  tags: number;
  annotations: number;
  reports: number;
}

export function defaultStorageQuota(): StorageQuota {
  return { listKeywordIds: STORED_KEYWORD_IDS_PER_ACCOUNT, ...RANK_STORAGE_PER_ACCOUNT };
}

/** The units of a free write carrying `ids` keyword ids. */
export function writeUnits(ids: number): number {
  return 1 + Math.ceil(Math.max(0, ids) / IDS_PER_WRITE_UNIT);
}

/** 429 RateLimit of a free write that does not fit the budget. */
export function freeWriteRefusal(perMinute: number, retryAfter: number) {
  return errors.rateLimit(retryAfter, `Too many free writes: at most ${perMinute} units per minute per account (a write costs 1 plus 1 per 1,000 keyword ids)`);
}

/** 429 RateLimit of a bulk read past the account's slots. */
export function bulkRefusal(perAccount: number) {
  return errors.rateLimit(1, `At most ${perAccount} bulk reads (list details, all lists, keyword exports) per account at once`);
}

/** 429 RateLimit of a request past the account's requests in flight. */
export function inFlightRefusal(perAccount: number) {
  return errors.rateLimit(1, `At most ${perAccount} requests per account at once`);
}

/** 429 RateLimit of a backlink export past the account's live ones (before any charge). */
export function exportRefusal(perAccount: number) {
  return errors.rateLimit(60, `At most ${perAccount} backlink exports per account may be queued or running at once`);
}

/** The per-account budget of free writes (a token bucket): 429 RateLimit past it. */
export interface FreeWrites {
  readonly perMinute: number;
  /** Spends `units` of the account's budget, or rejects with the contract's RateLimit error. */
  spend(accountId: string, units: number): Promise<void>;
}

/** At most `perAccount` bulk reads of one account at once. */
export interface BulkReads {
  readonly perAccount: number;
  /** Takes a slot, or rejects; call the returned function once the answer is sent or abandoned. */
  take(accountId: string): Promise<() => void>;
}

/** What the live-export limit reads of the job queue. */
export interface ExportJobsView {
  /** Ids of the account's export jobs queued or running. */
  liveIds(accountId: string): Promise<string[]>;
  /** Of `ids`, those stored and no longer queued or running (finished for good). */
  settledIds(ids: readonly string[]): Promise<string[]>;
}

/**
 * At most `perAccount` backlink exports of one account queued or running. A request takes a
 * place for the job it is about to create (by the job's id) before it is charged; the place
 * counts until the job is stored and finished, so a job committed after another request read
 * the queue is still counted once (live jobs and places are one set of ids).
 */
export interface LiveExports {
  readonly perAccount: number;
  /** Takes a place for `jobId`, or rejects; call the returned function if the job will not be stored. */
  take(accountId: string, jobId: string): Promise<() => void>;
}

interface Bucket {
  units: number;
  atMs: number;
}

/**
 * A token bucket per account, in this process: `perMinute` units, refilled continuously. A
 * write that does not fit answers 429 RateLimit with the seconds until it would; 0 turns the
 * budget off.
 */
export class FreeWriteBudget implements FreeWrites {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  async spend(accountId: string, units: number): Promise<void> {
    this.spendNow(accountId, units);
  }

  /** spend, synchronously (throws). */
  spendNow(accountId: string, units: number): void {
    if (this.perMinute <= 0) return;
    const now = this.clock.now();
    const rate = this.perMinute / 60_000;
    const bucket = this.buckets.get(accountId) ?? { units: this.perMinute, atMs: now };
    bucket.units = Math.min(this.perMinute, bucket.units + Math.max(0, now - bucket.atMs) * rate);
    bucket.atMs = now;
    // A write larger than the whole bucket waits for a full one, then goes.
    const needed = Math.min(units, this.perMinute);
    if (bucket.units < needed) {
      this.buckets.set(accountId, bucket);
      throw freeWriteRefusal(this.perMinute, Math.max(1, Math.ceil((needed - bucket.units) / rate / 1000)));
    }
    bucket.units -= needed;
    this.buckets.set(accountId, bucket);
    // Full buckets need no memory: forget them now and then.
    if (this.buckets.size > 10_000) {
      for (const [id, b] of this.buckets) if (b.units + (now - b.atMs) * rate >= this.perMinute) this.buckets.delete(id);
    }
  }
}

/** Bulk-read slots in this process. */
export class BulkSlots implements BulkReads {
  private readonly running = new Map<string, number>();

  constructor(readonly perAccount: number) {}

  async take(accountId: string): Promise<() => void> {
    return this.takeNow(accountId);
  }

  /** take, synchronously (throws). */
  takeNow(accountId: string): () => void {
    const n = this.running.get(accountId) ?? 0;
    if (n >= this.perAccount) throw bulkRefusal(this.perAccount);
    this.running.set(accountId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(accountId) ?? 1) - 1;
      if (left <= 0) this.running.delete(accountId);
      else this.running.set(accountId, left);
    };
  }
}

/**
 * Requests in flight per account, in this process: each process guards its own event loop,
 * so the count is never shared (no round trip on the hottest path). Past `perAccount`
 * `enter` throws the contract's RateLimit.
 */
export class RequestsInFlight {
  private readonly running = new Map<string, number>();

  constructor(readonly perAccount: number) {}

  /** Counts a request in, or throws; call the returned function once (more calls are ignored) when it is answered or abandoned. */
  enter(who: string): () => void {
    const n = this.running.get(who) ?? 0;
    if (n >= this.perAccount) throw inFlightRefusal(this.perAccount);
    this.running.set(who, n + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const rest = (this.running.get(who) ?? 1) - 1;
      if (rest <= 0) this.running.delete(who);
      else this.running.set(who, rest);
    };
  }
}

/** Live-export places in this process (one server per data directory: it sees every creation). */
export class ExportPlaces implements LiveExports {
  private readonly pending = new Map<string, Set<string>>();

  constructor(
    readonly perAccount: number,
    private readonly jobs: ExportJobsView,
  ) {}

  async take(accountId: string, jobId: string): Promise<() => void> {
    const [settled, liveIds] = await Promise.all([this.jobs.settledIds([...(this.pending.get(accountId) ?? [])]), this.jobs.liveIds(accountId)]);
    // From here on nothing is awaited: the check and the taking are one step of this process.
    // A job stored since the read above still has its place, so it is counted all the same.
    const pending = this.pending.get(accountId) ?? new Set<string>();
    for (const id of settled) pending.delete(id);
    const live = new Set([...liveIds, ...pending]);
    if (live.size >= this.perAccount) {
      if (pending.size === 0) this.pending.delete(accountId);
      throw exportRefusal(this.perAccount);
    }
    pending.add(jobId);
    this.pending.set(accountId, pending);
    return () => {
      pending.delete(jobId);
      if (pending.size === 0 && this.pending.get(accountId) === pending) this.pending.delete(accountId);
    };
  }
}

export interface FairUse {
  /** Always this process's own (see RequestsInFlight). */
  requests: RequestsInFlight;
  writes: FreeWrites;
  bulk: BulkReads;
  exports: LiveExports;
  storage: StorageQuota;
}

/** The counters a mode keeps (the requests in flight are always the process's own). */
export type SharedFairUse = Omit<FairUse, 'requests'>;

/** The embedded mode's fair use: every counter in this process's memory. */
export function fairUse(freeWritesPerMinute: number, clock: Clock, jobs: ExportJobsView): SharedFairUse {
  return {
    writes: new FreeWriteBudget(freeWritesPerMinute, clock),
    bulk: new BulkSlots(BULK_READS_PER_ACCOUNT),
    exports: new ExportPlaces(LIVE_EXPORTS_PER_ACCOUNT, jobs),
    storage: defaultStorageQuota(),
  };
}
