/**
 * The durable half of the scale mode's policy: the request cache, lookups and histories,
 * which must outlive Redis and be shared by every API process. It lives on the state store's
 * database — SQLite (one file shared by processes on one machine, the embedded modules under
 * sqlite/) or PostgreSQL (postgres/durableState.ts) — behind this asynchronous seam, so the
 * Redis policy store (redis/redisPolicyStore.ts) works over either.
 */
import type { HistoryWrite } from './history.js';
import type { Commit, LookupWrite, Reservation } from './policyStore.js';
import type { CacheRow } from './sqlite/requestCache.js';
import { runSqliteWrite, type StateStore } from '../store/database.js';
import { SqliteHistories } from './sqlite/histories.js';
import { SqliteLookups } from './sqlite/lookups.js';
import { SqliteRequestCache } from './sqlite/requestCache.js';
import { PostgresDurableState } from './postgres/durableState.js';

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
  recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number): Promise<void>;
  history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]>;
  /** Removes expired cache entries and lookups. */
  sweep(nowMs: number): Promise<void>;
}

/** The durable policy state on the embedded modules, in IMMEDIATE transactions of the SQLite file. */
export class SqliteDurableState implements DurablePolicyState {
  private readonly cache;
  private readonly lookups;
  private readonly histories;
  private readonly durableCommit;

  constructor(db: import('better-sqlite3').Database) {
    this.cache = new SqliteRequestCache(db);
    this.lookups = new SqliteLookups(db);
    this.histories = new SqliteHistories(db);
    this.durableCommit = db.transaction((r: Reservation, c: Commit) => {
      for (const write of c.writes ?? []) runSqliteWrite(write);
      if (c.cache) this.cache.write(r.accountId, c.cache.key, c.cache, c.nowMs);
      for (const h of c.history ?? []) this.histories.append(r.accountId, h, c.nowMs);
      this.lookups.record(r.accountId, c.lookups ?? [], c.nowMs);
    });
  }

  async readCache(accountId: string, key: string, nowMs: number): Promise<CacheRow | undefined> {
    return this.cache.read(accountId, key, nowMs);
  }
  async deleteCache(accountId: string, key: string): Promise<void> {
    this.cache.delete(accountId, key);
  }
  async commit(r: Reservation, c: Commit): Promise<void> {
    this.durableCommit.immediate(r, c);
  }
  async hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean> {
    return this.lookups.made(accountId, kind, key, sinceMs);
  }
  async lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined> {
    return this.lookups.data(accountId, kind, key, sinceMs, nowMs);
  }
  async recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number): Promise<void> {
    this.lookups.record(accountId, lookups, nowMs);
  }
  async history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]> {
    return this.histories.list(accountId, tool);
  }
  async sweep(nowMs: number): Promise<void> {
    this.cache.sweep(nowMs);
    this.lookups.sweep(nowMs);
  }
}

/** The durable policy state on the state store's backend. */
export function durableStateOf(state: StateStore): DurablePolicyState {
  return state.dialect === 'sqlite' ? new SqliteDurableState(state.raw) : new PostgresDurableState(state.db);
}
