/** Lookups on SQLite: what an account looked up, kept 24 h (or their own ttl), unlocking or discounting later requests. */
import type SqliteDatabase from 'better-sqlite3';
import { lookupColumns, lookupDataOf } from '../durableRows.js';
import type { LookupWrite } from '../policyStore.js';

export class SqliteLookups {
  private readonly put;
  private readonly has;
  private readonly get;
  private readonly sweepExpired;

  constructor(db: SqliteDatabase.Database) {
    this.put = db.prepare('INSERT OR REPLACE INTO lookups (account_id, kind, lookup_key, data, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)');
    this.has = db.prepare<[string, string, string, number], { one: number }>(
      'SELECT 1 AS one FROM lookups WHERE account_id = ? AND kind = ? AND lookup_key = ? AND created_ms >= ?',
    );
    this.get = db.prepare<[string, string, string, number, number], { data: string | null }>(
      'SELECT data FROM lookups WHERE account_id = ? AND kind = ? AND lookup_key = ? AND created_ms >= ? AND expires_ms > ?',
    );
    this.sweepExpired = db.prepare('DELETE FROM lookups WHERE expires_ms <= ?');
  }

  made(accountId: string, kind: string, key: string, sinceMs: number): boolean {
    return this.has.get(accountId, kind, key, sinceMs) !== undefined;
  }

  data(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): unknown | undefined {
    const row = this.get.get(accountId, kind, key, sinceMs, nowMs);
    return row === undefined ? undefined : lookupDataOf(row.data);
  }

  record(accountId: string, lookups: LookupWrite[], nowMs: number): void {
    for (const l of lookups) {
      const row = lookupColumns(l, nowMs);
      this.put.run(accountId, l.kind, l.key, row.data, row.created_ms, row.expires_ms);
    }
  }

  sweep(nowMs: number): void {
    this.sweepExpired.run(nowMs);
  }
}
