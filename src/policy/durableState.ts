/**
 * The durable half of the policy: the request cache, lookups and histories, which must outlive
 * Redis and be shared by every API process. It lives on the state store's database — SQLite
 * (sqlite/durableState.ts) or PostgreSQL (postgres/durableState.ts) — behind this asynchronous
 * seam, and policy stores built on it (durablePolicyStore.ts) answer cache reads, lookups and
 * histories from it alike. durableStateOf.ts picks the backend's; this module is the seam alone.
 */
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../store/schema.js';
import type { HistoryWrite } from './history.js';
import type { Commit, LookupWrite, Reservation } from './policyStore.js';
import type { CacheRow } from './durableRows.js';

export interface DurablePolicyState {
  readCache(accountId: string, key: string, nowMs: number): Promise<CacheRow | undefined>;
  deleteCache(accountId: string, key: string): Promise<void>;
  /**
   * The durable part of a commit in one transaction: the caller's writes (an export's job),
   * the cached answer, histories and lookups.
   */
  commit(r: Reservation, c: Commit): Promise<void>;
  hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean>;
  lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined>;
  /** Records lookups, on the caller's transaction `trx` when given (see PolicyStore.recordLookups). */
  recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number, trx?: Kysely<StateDatabase>): Promise<void>;
  history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]>;
  /** Removes expired cache entries and lookups. */
  sweep(nowMs: number): Promise<void>;
}
