import type SqliteDatabase from 'better-sqlite3';
import { SqliteDurableState } from './sqlite/durableState.js';
import { DurablePolicyStore } from './durablePolicyStore.js';
import { chargedCost, type Admission, type AdmissionRequest, type Commit, type PolicyStore, type Reservation } from './policyStore.js';
import { reservationSize, type PoolName, type PoolPeriod, type PoolState } from './pools.js';
import { SqliteBurstWindow } from './sqlite/burstWindow.js';
import { cooldownWait, SqliteCooldowns } from './sqlite/cooldowns.js';
import type { SqliteDurable } from './sqlite/durable.js';
import { SqliteInflightCharges } from './sqlite/inflightCharges.js';
import { SqliteQuotaPools } from './sqlite/quotaPools.js';

/**
 * The policy counters on the state store's SQLite file, composed of one module per concern
 * (sqlite/): burst window, quota pools, cooldowns, in-flight charges, and the durable
 * request cache, lookups and histories (sqlite/durable.ts, read through the shared
 * DurablePolicyStore). Each decision runs inside one synchronous IMMEDIATE transaction of
 * better-sqlite3: nothing can interleave inside it, neither another request of this process
 * (no await happens inside) nor another process on the same file (the write lock is taken
 * at BEGIN). The interface is asynchronous for the scale mode's backends; here every
 * promise is already settled when it is returned. A forget by another process on the same
 * file is not announced: this process's mirror keeps the entry until it expires.
 */
export class SqlitePolicyStore extends DurablePolicyStore implements PolicyStore {
  private readonly burst;
  private readonly pools;
  private readonly cooldowns;
  private readonly inflight;
  private readonly modules: SqliteDurable;
  private readonly admitTx;
  private readonly commitTx;
  private readonly releaseTx;
  private readonly releaseInFlightTx;

  constructor(db: SqliteDatabase.Database) {
    const durable = new SqliteDurableState(db);
    super(durable);
    this.modules = durable.modules;
    this.burst = new SqliteBurstWindow(db);
    this.pools = new SqliteQuotaPools(db);
    this.cooldowns = new SqliteCooldowns(db);
    this.inflight = new SqliteInflightCharges(db);
    this.admitTx = db.transaction((req: AdmissionRequest) => this.admitInside(req));
    this.commitTx = db.transaction((r: Reservation, c: Commit) => this.commitInside(r, c));
    this.releaseTx = db.transaction((r: Reservation) => this.releaseInside(r));
    this.releaseInFlightTx = db.transaction(() => {
      const pending = this.inflight.pending();
      for (const r of pending) this.releaseInside(r);
      return pending.length;
    });
  }

  async admit(req: AdmissionRequest): Promise<Admission> {
    return this.admitTx.immediate(req);
  }

  async commit(reservation: Reservation, commit: Commit): Promise<void> {
    this.commitTx.immediate(reservation, commit);
    this.remember(reservation, commit);
  }

  async release(reservation: Reservation): Promise<void> {
    this.releaseTx.immediate(reservation);
  }

  async releaseInFlight(): Promise<number> {
    return this.releaseInFlightTx.immediate();
  }

  async refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number, nowMs: number): Promise<void> {
    this.pools.refund(accountId, pool, units, chargedAtMs, nowMs);
  }

  async poolState(accountId: string, pool: PoolName, period: PoolPeriod, limit: number, nowMs: number): Promise<PoolState> {
    return this.pools.state(accountId, pool, period, limit, nowMs);
  }

  async sweep(nowMs: number): Promise<void> {
    await this.sweepDurable(nowMs);
    this.burst.sweep(nowMs);
  }

  /** Cooldown, then burst window, then pool: the first that refuses decides; all pass, all are recorded. */
  private admitInside(req: AdmissionRequest): Admission {
    const { accountId, clientClass, pool, nowMs } = req;
    let previousCooldown: number | null = null;
    if (req.cooldown) {
      previousCooldown = this.cooldowns.last(accountId, req.cooldown.name);
      const wait = cooldownWait(previousCooldown, req.cooldown.ms, nowMs);
      if (wait !== null) return { ok: false, type: 'RateLimit', retryAfter: wait, reason: 'cooldown' };
    }
    if (!this.burst.fits(accountId, clientClass, pool, nowMs, req.windowMs, req.burstSize)) {
      return { ok: false, type: 'RateLimit', retryAfter: Math.ceil(req.windowMs / 1000), reason: 'burst' };
    }
    const usage = this.pools.current(accountId, pool, nowMs);
    const reserve = reservationSize(req.cost, Math.max(0, req.poolLimit - (usage?.used ?? 0)), req.allowPartial);
    if (reserve === null) return { ok: false, type: 'CreditLimit' };

    const burstEventId = this.burst.record(accountId, clientClass, pool, nowMs, req.windowMs);
    const startedPeriod = this.pools.reserve(accountId, pool, req.period, usage, reserve, nowMs);
    if (req.cooldown) this.cooldowns.start(accountId, req.cooldown.name, nowMs);
    const reservation: Omit<Reservation, 'inflightId'> = {
      accountId,
      clientClass,
      pool,
      reserved: reserve,
      burstEventId,
      startedPeriod,
      cooldown: req.cooldown ? { name: req.cooldown.name, previousMs: previousCooldown } : undefined,
    };
    return { ok: true, reservation: { ...reservation, inflightId: this.inflight.record(reservation, nowMs) } };
  }

  private commitInside(r: Reservation, c: Commit): void {
    this.inflight.settle(r.inflightId);
    this.pools.adjust(r.accountId, r.pool, chargedCost(r, c) - r.reserved);
    this.modules.commit(r.accountId, c);
  }

  private releaseInside(r: Reservation): void {
    this.inflight.settle(r.inflightId);
    this.burst.undo(r.burstEventId);
    this.pools.unreserve(r.accountId, r.pool, r.reserved, r.startedPeriod);
    if (r.cooldown) this.cooldowns.restore(r.accountId, r.cooldown.name, r.cooldown.previousMs);
  }
}
