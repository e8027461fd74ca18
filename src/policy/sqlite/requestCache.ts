/** The request cache on SQLite: identical paid requests of an account answered for 24 hours. */
import type SqliteDatabase from 'better-sqlite3';
import { cacheCutoff, cacheRowOf, type CacheRow } from '../durableRows.js';
import type { CachedResponse } from '../policyStore.js';

export class SqliteRequestCache {
  private readonly get;
  private readonly put;
  private readonly remove;
  private readonly sweepExpired;

  constructor(db: SqliteDatabase.Database) {
    this.get = db.prepare<[string, string, number], CachedResponse & { createdMs: number; stale: number }>(
      'SELECT status, content_type AS contentType, body, created_ms AS createdMs, stale FROM request_cache WHERE account_id = ? AND cache_key = ? AND created_ms > ?',
    );
    this.put = db.prepare(
      'INSERT OR REPLACE INTO request_cache (account_id, cache_key, status, content_type, body, created_ms, stale) VALUES (?, ?, ?, ?, ?, ?, 0)',
    );
    this.remove = db.prepare('DELETE FROM request_cache WHERE account_id = ? AND cache_key = ?');
    this.sweepExpired = db.prepare('DELETE FROM request_cache WHERE created_ms <= ?');
  }

  /** The unexpired entry. */
  read(accountId: string, key: string, nowMs: number): CacheRow | undefined {
    const row = this.get.get(accountId, key, cacheCutoff(nowMs));
    return row === undefined ? undefined : cacheRowOf(row);
  }

  write(accountId: string, key: string, response: CachedResponse, nowMs: number): void {
    this.put.run(accountId, key, response.status, response.contentType, response.body, nowMs);
  }

  delete(accountId: string, key: string): void {
    this.remove.run(accountId, key);
  }

  sweep(nowMs: number): void {
    this.sweepExpired.run(cacheCutoff(nowMs));
  }
}
