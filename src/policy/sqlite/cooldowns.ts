/** Per-account cooldowns on SQLite (one keyword import per 30 s): the time of the last admitted one. */
import type SqliteDatabase from 'better-sqlite3';

/**
 * The cooldown's decision: null when `lastMs` (the last admitted) is far enough behind
 * `nowMs`, else the seconds to wait. Inclusive like the burst window: exactly `ms` later is refused.
 */
export function cooldownWait(lastMs: number | null, ms: number, nowMs: number): number | null {
  if (lastMs === null || nowMs - lastMs > ms) return null;
  return Math.max(1, Math.ceil((lastMs + ms - nowMs) / 1000));
}

export class SqliteCooldowns {
  private readonly get;
  private readonly put;
  private readonly remove;

  constructor(db: SqliteDatabase.Database) {
    this.get = db.prepare<[string, string], { last_ms: number }>('SELECT last_ms FROM cooldowns WHERE account_id = ? AND name = ?');
    this.put = db.prepare('INSERT OR REPLACE INTO cooldowns (account_id, name, last_ms) VALUES (?, ?, ?)');
    this.remove = db.prepare('DELETE FROM cooldowns WHERE account_id = ? AND name = ?');
  }

  last(accountId: string, name: string): number | null {
    return this.get.get(accountId, name)?.last_ms ?? null;
  }

  start(accountId: string, name: string, nowMs: number): void {
    this.put.run(accountId, name, nowMs);
  }

  /** Puts back what a released admission replaced: the previous time, or none. */
  restore(accountId: string, name: string, previousMs: number | null): void {
    if (previousMs === null) this.remove.run(accountId, name);
    else this.put.run(accountId, name, previousMs);
  }
}
