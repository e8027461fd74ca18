import type SqliteDatabase from 'better-sqlite3';
import { CacheMirror, mirrorId } from './cacheMirror.js';
import type { HistoryWrite } from './history.js';
import type { Admission, AdmissionRequest, CachedResponse, Commit, LookupWrite, PolicyStore, PoolState, Reservation } from './policyStore.js';
import { runSqliteWrite } from '../store/database.js';
import type { PoolName, PoolPeriod } from './pools.js';
import { SqliteBurstWindow } from './sqlite/burstWindow.js';
import { cooldownWait, SqliteCooldowns } from './sqlite/cooldowns.js';
import { SqliteHistories } from './sqlite/histories.js';
import { SqliteInflightCharges } from './sqlite/inflightCharges.js';
import { SqliteLookups } from './sqlite/lookups.js';
import { reservationSize, SqliteQuotaPools } from './sqlite/quotaPools.js';
import { SqliteRequestCache } from './sqlite/requestCache.js';

/**
 * The policy counters on the state store's SQLite file, composed of one module per concern
 * (sqlite/): burst window, quota pools, cooldowns, request cache, lookups, histories and
 * in-flight charges. Each decision runs inside one synchronous IMMEDIATE transaction of
 * better-sqlite3: nothing can interleave inside it, neither another request of this process
 * (no await happens inside) nor another process on the same file (the write lock is taken
 * at BEGIN). The interface is asynchronous for the scale mode's backends; here every
 * promise is already settled when it is returned.
 */
export class SqlitePolicyStore implements PolicyStore {
  private readonly burst;
  private readonly pools;
  private readonly cooldowns;
  private readonly cache;
  private readonly lookups;
  private readonly histories;
  private readonly inflight;
  private readonly admitTx;
  private readonly commitTx;
  private readonly releaseTx;
  private readonly releaseInFlightTx;
  /**
   * Unexpired request-cache rows this process wrote or read. A row is only written by commit
   * and only removed by forget or once expired; a forget by another process on the same file
   * is not seen here (the scale mode's stores announce it).
   */
  private readonly memory = new CacheMirror();

  constructor(db: SqliteDatabase.Database) {
    this.burst = new SqliteBurstWindow(db);
    this.pools = new SqliteQuotaPools(db);
    this.cooldowns = new SqliteCooldowns(db);
    this.cache = new SqliteRequestCache(db);
    this.lookups = new SqliteLookups(db);
    this.histories = new SqliteHistories(db);
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

  async cached(accountId: string, key: string, nowMs: number): Promise<CachedResponse | null> {
    const id = mirrorId(accountId, key);
    const kept = this.memory.get(id, nowMs);
    if (kept !== undefined) return kept;
    const row = this.cache.read(accountId, key, nowMs);
    if (row === undefined) return null;
    const { createdMs, ...response } = row;
    if (response.stale) return response;
    this.memory.put(id, response, createdMs);
    return { ...response };
  }

  async forget(accountId: string, key: string): Promise<void> {
    this.memory.drop(mirrorId(accountId, key));
    this.cache.delete(accountId, key);
  }

  async admit(req: AdmissionRequest): Promise<Admission> {
    return this.admitTx.immediate(req);
  }

  async commit(reservation: Reservation, commit: Commit): Promise<void> {
    this.commitTx.immediate(reservation, commit);
    if (commit.cache) {
      const { key, status, contentType, body } = commit.cache;
      this.memory.put(mirrorId(reservation.accountId, key), { status, contentType, body }, commit.nowMs);
    }
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
    this.memory.sweep(nowMs);
    this.cache.sweep(nowMs);
    this.burst.sweep(nowMs);
    this.lookups.sweep(nowMs);
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
    for (const write of c.writes ?? []) runSqliteWrite(write);
    const cost = Math.max(0, Math.min(c.cost, r.reserved));
    this.pools.adjust(r.accountId, r.pool, cost - r.reserved);
    if (c.cache) this.cache.write(r.accountId, c.cache.key, c.cache, c.nowMs);
    for (const h of c.history ?? []) this.histories.append(r.accountId, h, c.nowMs);
    this.lookups.record(r.accountId, c.lookups ?? [], c.nowMs);
  }

  private releaseInside(r: Reservation): void {
    this.inflight.settle(r.inflightId);
    this.burst.undo(r.burstEventId);
    this.pools.unreserve(r.accountId, r.pool, r.reserved, r.startedPeriod);
    if (r.cooldown) this.cooldowns.restore(r.accountId, r.cooldown.name, r.cooldown.previousMs);
  }
}
