/**
 * The durable concerns of the policy on SQLite — request cache, lookups, histories — as one
 * synchronous unit, so that both SQLite users run the same statements: the embedded policy
 * store inside its own admission and commit transactions (sqlitePolicyStore.ts), the scale
 * mode's durable state inside one of its own (durableState.ts).
 */
import type SqliteDatabase from 'better-sqlite3';
import { runSqliteWrite } from '../../store/database.js';
import type { Commit } from '../policyStore.js';
import { SqliteHistories } from './histories.js';
import { SqliteLookups } from './lookups.js';
import { SqliteRequestCache } from './requestCache.js';

export class SqliteDurable {
  readonly cache;
  readonly lookups;
  readonly histories;

  constructor(db: SqliteDatabase.Database) {
    this.cache = new SqliteRequestCache(db);
    this.lookups = new SqliteLookups(db);
    this.histories = new SqliteHistories(db);
  }

  /** The durable part of a commit, inside the caller's transaction: its writes (an export's job), the cached answer, histories, lookups. */
  commit(accountId: string, c: Commit): void {
    for (const write of c.writes ?? []) runSqliteWrite(write);
    if (c.cache) this.cache.write(accountId, c.cache.key, c.cache, c.nowMs);
    for (const h of c.history ?? []) this.histories.append(accountId, h, c.nowMs);
    this.lookups.record(accountId, c.lookups ?? [], c.nowMs);
  }

  /** Removes expired cache entries and lookups. */
  sweep(nowMs: number): void {
    this.cache.sweep(nowMs);
    this.lookups.sweep(nowMs);
  }
}
