import type { ClientClass } from './plans.js';
import type { PoolName, PoolPeriod, PoolState } from './pools.js';
import type { HistoryWrite } from './history.js';
import type { Kysely } from 'kysely';
import type { StateWrite } from '../store/database.js';
import type { StateDatabase } from '../store/schema.js';

/** How long an identical paid request is answered from cache. */
export const CACHE_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a lookup is kept by default: the 24 hours of the contract's rules. */
export const LOOKUP_TTL_MS = CACHE_TTL_MS;

export interface CachedResponse {
  status: number;
  contentType: string;
  body: string;
  /**
   * Written by an earlier release in a shape the API no longer answers: not served, but the
   * identical request it stands for is still owed a free answer (executed anew, charged nothing).
   */
  stale?: boolean;
}

export interface AdmissionRequest {
  accountId: string;
  clientClass: ClientClass;
  pool: PoolName;
  period: PoolPeriod;
  poolLimit: number;
  nowMs: number;
  windowMs: number;
  burstSize: number;
  /** Units to reserve from the pool. */
  cost: number;
  /**
   * Reserve what remains when less than `cost` is left (a backlink page is cut to what
   * remains in the pool). At least one unit must remain.
   */
  allowPartial?: boolean;
  /** A per-account cooldown checked before the burst window (keyword imports). */
  cooldown?: { name: string; ms: number };
}

export interface Reservation {
  accountId: string;
  clientClass: ClientClass;
  pool: PoolName;
  reserved: number;
  burstEventId: number;
  /** Whether this reservation started the pool's current period (undone on release). */
  startedPeriod: boolean;
  /** Its in-flight record, deleted by commit or release; one left after a crash is released at the next start. */
  inflightId: number;
  cooldown?: { name: string; previousMs: number | null };
}

export type Admission =
  | { ok: true; reservation: Reservation }
  | { ok: false; type: 'RateLimit'; retryAfter: number; reason: 'burst' | 'cooldown' }
  | { ok: false; type: 'CreditLimit' };

export interface Commit {
  nowMs: number;
  /** What the request finally costs; at most what was reserved. */
  cost: number;
  cache?: { key: string } & CachedResponse;
  history?: HistoryWrite[];
  lookups?: LookupWrite[];
  /**
   * Further writes on the state store that must commit with the charge or not at all (an
   * export's job), run inside the commit's transaction (see StateWrite).
   */
  writes?: StateWrite[];
}

/**
 * The key of a lookup made of several parts (a domain, a location, a page). Joined with the
 * unit separator U+001F, which no validated part holds: U+0000, the separator before
 * migration 0018, cannot be stored in a PostgreSQL text column.
 */
export function lookupKey(...parts: (string | number)[]): string {
  return parts.join('\u001f');
}

/** What a committed request is finally charged: its cost, within what was reserved. */
export function chargedCost(r: Reservation, c: Commit): number {
  return Math.max(0, Math.min(c.cost, r.reserved));
}

/** A lookup that unlocks or discounts later requests; kept 24 h unless `ttlMs` says otherwise. */
export interface LookupWrite {
  kind: string;
  key: string;
  data?: unknown;
  ttlMs?: number;
}

/**
 * The counters of the access policy. Every method is atomic on its own: `admit` checks
 * cooldown, burst window and pool and records the admission in one step, so concurrent
 * requests can never be over-admitted, whichever process sends them. Asynchronous, so that
 * the embedded implementation (SQLite, sqlitePolicyStore.ts) and the scale mode's (Redis
 * and PostgreSQL) share one shape; the access policy is its only caller.
 */
export interface PolicyStore {
  cached(accountId: string, key: string, nowMs: number): Promise<CachedResponse | null>;
  /**
   * The entry as this process holds it in memory, read without waiting: undefined when it is not
   * there (it may still be in the store: ask `cached`). The cache-hit fast path (issue 26): the
   * entry itself, not a copy (its caller takes its fields into an answer of its own), so it is
   * never to be modified.
   */
  cachedInMemory?(accountId: string, key: string, nowMs: number): Readonly<CachedResponse> | undefined;
  /** Drops a cache entry, so that the next identical request executes again (in every process). */
  forget(accountId: string, key: string): Promise<void>;
  admit(req: AdmissionRequest): Promise<Admission>;
  commit(reservation: Reservation, commit: Commit): Promise<void>;
  release(reservation: Reservation): Promise<void>;
  /**
   * Releases the reservations of requests that never answered (their server died between
   * admission and commit): their charge, burst slot and cooldown. Only for a server start,
   * when no other server can hold a reservation (see acquireServeLock). Returns how many.
   */
  releaseInFlight(): Promise<number>;
  /**
   * Gives back units charged at `chargedAtMs` (a failed export), when the pool's period
   * that held the charge is still running; a later period is already full again.
   */
  refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number, nowMs: number): Promise<void>;
  poolState(accountId: string, pool: PoolName, period: PoolPeriod, limit: number, nowMs: number): Promise<PoolState>;
  /** Whether the account made a lookup of this kind and key at or after `sinceMs`. */
  hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean>;
  /**
   * Records lookups. `trx`: the caller's open transaction on the state store, which the
   * lookups then join: on PostgreSQL they are written on that transaction's connection (a
   * second connection taken from the pool inside a transaction could wait for ever, every
   * connection held by a transaction waiting for another); on SQLite every statement runs on
   * the one connection, inside whatever transaction is open.
   */
  recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number, trx?: Kysely<StateDatabase>): Promise<void>;
  /** The data of the account's lookup of this kind and key, made at or after `sinceMs` and not expired. */
  lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined>;
  history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]>;
  /** Removes what can no longer matter: expired cache entries, old burst events and lookups. */
  sweep(nowMs: number): Promise<void>;
  /** Stops its timers (the scale mode's liveness mark); its connections belong to the caller. */
  close?(): void;
}
