/** Quota pools on SQLite: one usage row per (account, pool) for its running period (rules in ../pools.ts). */
import type SqliteDatabase from 'better-sqlite3';
import { periodBounds, poolStateOf, type PoolName, type PoolPeriod, type PoolState, type UsageRow } from '../pools.js';

export class SqliteQuotaPools {
  private readonly get;
  private readonly put;
  private readonly add;
  private readonly remove;

  constructor(db: SqliteDatabase.Database) {
    this.get = db.prepare<[string, string], UsageRow>('SELECT period_start_ms, period_end_ms, used FROM quota_usage WHERE account_id = ? AND pool = ?');
    this.put = db.prepare('INSERT OR REPLACE INTO quota_usage (account_id, pool, period_start_ms, period_end_ms, used) VALUES (?, ?, ?, ?, ?)');
    this.add = db.prepare('UPDATE quota_usage SET used = MAX(0, used + ?) WHERE account_id = ? AND pool = ?');
    this.remove = db.prepare('DELETE FROM quota_usage WHERE account_id = ? AND pool = ?');
  }

  /** The usage row of the running period, or undefined when no period is running. */
  current(accountId: string, pool: PoolName, nowMs: number): UsageRow | undefined {
    const row = this.get.get(accountId, pool);
    return row && nowMs < row.period_end_ms ? row : undefined;
  }

  /** Charges `units` to the running period, or starts one; returns whether it started one. */
  reserve(accountId: string, pool: PoolName, period: PoolPeriod, running: UsageRow | undefined, units: number, nowMs: number): boolean {
    if (units <= 0) return false;
    if (running) {
      this.add.run(units, accountId, pool);
      return false;
    }
    const bounds = periodBounds(period, nowMs);
    this.put.run(accountId, pool, bounds.start, bounds.end, units);
    return true;
  }

  /** Adds `delta` (negative: gives back) to the pool's usage, never below zero. */
  adjust(accountId: string, pool: PoolName, delta: number): void {
    if (delta !== 0) this.add.run(delta, accountId, pool);
  }

  /** Undoes a reservation: a period it started and nothing else used is dropped again. */
  unreserve(accountId: string, pool: PoolName, units: number, startedPeriod: boolean): void {
    if (units <= 0) return;
    const row = this.get.get(accountId, pool);
    if (!row) return;
    if (startedPeriod && row.used <= units) this.remove.run(accountId, pool);
    else this.add.run(-units, accountId, pool);
  }

  /** Gives back units charged at `chargedAtMs` when the period that held them still runs. */
  refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number, nowMs: number): void {
    if (units <= 0) return;
    const usage = this.current(accountId, pool, nowMs);
    if (usage && usage.period_start_ms <= chargedAtMs) this.add.run(-units, accountId, pool);
  }

  state(accountId: string, pool: PoolName, period: PoolPeriod, limit: number, nowMs: number): PoolState {
    return poolStateOf(this.current(accountId, pool, nowMs), period, limit, nowMs);
  }
}
