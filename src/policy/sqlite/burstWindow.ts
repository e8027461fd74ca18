/**
 * The burst window on SQLite: one row per admitted request of (subject, client class, pool).
 * A sliding window, inclusive at both ends: admitted iff fewer than N admitted requests lie
 * in [t - W, t]. Refused requests are not recorded, so a client that backs off gets through.
 */
import type SqliteDatabase from 'better-sqlite3';

/** The longest burst window any plan may configure is swept after this long. */
export const BURST_EVENT_TTL_MS = 10 * 60 * 1000;

export class SqliteBurstWindow {
  private readonly count;
  private readonly insert;
  private readonly remove;
  private readonly prune;
  private readonly sweepOld;

  constructor(db: SqliteDatabase.Database) {
    this.count = db.prepare<[string, string, string, number], { n: number }>(
      'SELECT COUNT(*) AS n FROM burst_events WHERE subject = ? AND client_class = ? AND pool = ? AND at_ms >= ?',
    );
    this.insert = db.prepare('INSERT INTO burst_events (subject, client_class, pool, at_ms) VALUES (?, ?, ?, ?)');
    this.remove = db.prepare('DELETE FROM burst_events WHERE id = ?');
    this.prune = db.prepare('DELETE FROM burst_events WHERE subject = ? AND client_class = ? AND pool = ? AND at_ms < ?');
    this.sweepOld = db.prepare('DELETE FROM burst_events WHERE at_ms < ?');
  }

  /** Whether one more request fits the window ending at `nowMs`. */
  fits(subject: string, clientClass: string, pool: string, nowMs: number, windowMs: number, size: number): boolean {
    return this.count.get(subject, clientClass, pool, nowMs - windowMs)!.n < size;
  }

  /** Records an admitted request (dropping slots that left the window); returns its slot id. */
  record(subject: string, clientClass: string, pool: string, nowMs: number, windowMs: number): number {
    this.prune.run(subject, clientClass, pool, nowMs - windowMs - 1);
    return Number(this.insert.run(subject, clientClass, pool, nowMs).lastInsertRowid);
  }

  /** Gives a released request's slot back. */
  undo(slotId: number): void {
    this.remove.run(slotId);
  }

  sweep(nowMs: number): void {
    this.sweepOld.run(nowMs - BURST_EVENT_TTL_MS);
  }
}
