/**
 * In-flight charges on SQLite: one row per admitted request until it commits or is released,
 * so that the reservations of a server that died in between are given back at the next start.
 */
import type { Selectable } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { InflightChargesTable } from '../../store/tables/policy.js';
import type { Reservation } from '../policyStore.js';
import type { PoolName } from '../pools.js';

/** A row of inflight_charges, as the state store's schema declares it. */
type InflightRow = Selectable<InflightChargesTable>;

function reservationOf(row: InflightRow): Reservation {
  return {
    accountId: row.account_id,
    clientClass: row.client_class as Reservation['clientClass'],
    pool: row.pool as PoolName,
    reserved: row.reserved,
    burstEventId: row.burst_event_id,
    startedPeriod: row.started_period === 1,
    inflightId: row.id,
    cooldown: row.cooldown_name === null ? undefined : { name: row.cooldown_name, previousMs: row.cooldown_previous_ms },
  };
}

export class SqliteInflightCharges {
  private readonly insert;
  private readonly remove;
  private readonly all;

  constructor(db: SqliteDatabase.Database) {
    this.insert = db.prepare(
      `INSERT INTO inflight_charges (account_id, client_class, pool, reserved, burst_event_id, started_period, cooldown_name, cooldown_previous_ms, created_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.remove = db.prepare('DELETE FROM inflight_charges WHERE id = ?');
    this.all = db.prepare<[], InflightRow>('SELECT * FROM inflight_charges ORDER BY id');
  }

  /** Records a reservation (its inflightId is ignored); returns the id it is recorded under. */
  record(r: Omit<Reservation, 'inflightId'>, nowMs: number): number {
    return Number(
      this.insert.run(
        r.accountId,
        r.clientClass,
        r.pool,
        r.reserved,
        r.burstEventId,
        r.startedPeriod ? 1 : 0,
        r.cooldown?.name ?? null,
        r.cooldown ? r.cooldown.previousMs : null,
        nowMs,
      ).lastInsertRowid,
    );
  }

  settle(inflightId: number): void {
    this.remove.run(inflightId);
  }

  /** Every reservation still in flight, oldest first. */
  pending(): Reservation[] {
    return this.all.all().map(reservationOf);
  }
}
