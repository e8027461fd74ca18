/** The durable half of the policy on the SQLite file (see ../durableState.ts). */
import type SqliteDatabase from 'better-sqlite3';
import type { DurablePolicyState } from '../durableState.js';
import type { CacheRow } from '../durableRows.js';
import type { HistoryWrite } from '../history.js';
import type { Commit, LookupWrite, Reservation } from '../policyStore.js';
import { SqliteDurable } from './durable.js';

/**
 * The durable policy state on the SQLite file. Every statement is synchronous (the promises are
 * settled when returned); a commit on its own is one IMMEDIATE transaction. The embedded policy
 * store passes its `durable` modules in, to run the same statements inside its own transactions.
 */
export class SqliteDurableState implements DurablePolicyState {
  private readonly durableCommit;

  constructor(
    db: SqliteDatabase.Database,
    readonly modules = new SqliteDurable(db),
  ) {
    this.durableCommit = db.transaction((r: Reservation, c: Commit) => modules.commit(r.accountId, c));
  }

  async readCache(accountId: string, key: string, nowMs: number): Promise<CacheRow | undefined> {
    return this.modules.cache.read(accountId, key, nowMs);
  }
  async deleteCache(accountId: string, key: string): Promise<void> {
    this.modules.cache.delete(accountId, key);
  }
  async commit(r: Reservation, c: Commit): Promise<void> {
    this.durableCommit.immediate(r, c);
  }
  async hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean> {
    return this.modules.lookups.made(accountId, kind, key, sinceMs);
  }
  async lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined> {
    return this.modules.lookups.data(accountId, kind, key, sinceMs, nowMs);
  }
  // The one connection: a caller's open transaction (`trx`) is the connection's own.
  async recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number): Promise<void> {
    this.modules.lookups.record(accountId, lookups, nowMs);
  }
  async history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]> {
    return this.modules.histories.list(accountId, tool);
  }
  async sweep(nowMs: number): Promise<void> {
    this.modules.sweep(nowMs);
  }
}
