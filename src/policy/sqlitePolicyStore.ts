import type { Selectable } from 'kysely';
import type { InflightChargesTable } from '../store/schema.js';
import type SqliteDatabase from 'better-sqlite3';
import { HISTORY_TOOLS, type HistoryWrite } from './history.js';
import {
  CACHE_TTL_MS,
  LOOKUP_TTL_MS,
  monthBounds,
  type LookupWrite,
  type Admission,
  type AdmissionRequest,
  type CachedResponse,
  type Commit,
  type PolicyStore,
  type PoolState,
  type Reservation,
} from './policyStore.js';
import type { PoolName, PoolPeriod } from './pools.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest burst window any plan may configure is swept after this long. */
const BURST_EVENT_TTL_MS = 10 * 60 * 1000;
/** Characters of cached bodies also kept in memory, so that a cache hit reads no SQLite. */
const MEMORY_CACHE_CHARS = 64 * 1024 * 1024;

interface MemoryCacheEntry {
  response: CachedResponse;
  createdMs: number;
}

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

interface UsageRow {
  period_start_ms: number;
  period_end_ms: number;
  used: number;
}

/**
 * The policy counters on the state store's SQLite file. Each decision runs inside one
 * synchronous IMMEDIATE transaction of better-sqlite3: nothing can interleave inside it,
 * neither another request of this process (no await happens inside) nor another
 * process on the same file (the write lock is taken at BEGIN).
 */
export class SqlitePolicyStore implements PolicyStore {
  private readonly s;
  private readonly admitTx;
  private readonly commitTx;
  private readonly releaseTx;
  private readonly releaseInFlightTx;
  /**
   * The newest request-cache entries, oldest first, mirroring rows of request_cache. A row
   * is only written by commit (here) and only removed once expired, so an unexpired entry
   * here is exactly what the table holds; entries found only in the table (written before
   * this process started) are read from it and then kept here too.
   */
  private readonly memory = new Map<string, MemoryCacheEntry>();
  private memoryChars = 0;

  constructor(private readonly db: SqliteDatabase.Database) {
    this.s = {
      cacheGet: db.prepare<[string, string, number], CachedResponse & { createdMs: number; staleFlag: number }>(
        'SELECT status, content_type AS contentType, body, created_ms AS createdMs, stale AS staleFlag FROM request_cache WHERE account_id = ? AND cache_key = ? AND created_ms > ?',
      ),
      cachePut: db.prepare(
        'INSERT OR REPLACE INTO request_cache (account_id, cache_key, status, content_type, body, created_ms, stale) VALUES (?, ?, ?, ?, ?, ?, 0)',
      ),
      cacheDelete: db.prepare('DELETE FROM request_cache WHERE account_id = ? AND cache_key = ?'),
      cooldownGet: db.prepare<[string, string], { last_ms: number }>('SELECT last_ms FROM cooldowns WHERE account_id = ? AND name = ?'),
      cooldownPut: db.prepare('INSERT OR REPLACE INTO cooldowns (account_id, name, last_ms) VALUES (?, ?, ?)'),
      cooldownDelete: db.prepare('DELETE FROM cooldowns WHERE account_id = ? AND name = ?'),
      burstCount: db.prepare<[string, string, string, number], { n: number }>(
        'SELECT COUNT(*) AS n FROM burst_events WHERE subject = ? AND client_class = ? AND pool = ? AND at_ms >= ?',
      ),
      burstInsert: db.prepare('INSERT INTO burst_events (subject, client_class, pool, at_ms) VALUES (?, ?, ?, ?)'),
      burstDelete: db.prepare('DELETE FROM burst_events WHERE id = ?'),
      burstPrune: db.prepare('DELETE FROM burst_events WHERE subject = ? AND client_class = ? AND pool = ? AND at_ms < ?'),
      usageGet: db.prepare<[string, string], UsageRow>('SELECT period_start_ms, period_end_ms, used FROM quota_usage WHERE account_id = ? AND pool = ?'),
      usagePut: db.prepare('INSERT OR REPLACE INTO quota_usage (account_id, pool, period_start_ms, period_end_ms, used) VALUES (?, ?, ?, ?, ?)'),
      usageAdd: db.prepare('UPDATE quota_usage SET used = MAX(0, used + ?) WHERE account_id = ? AND pool = ?'),
      usageDelete: db.prepare('DELETE FROM quota_usage WHERE account_id = ? AND pool = ?'),
      historyInsert: db.prepare('INSERT INTO history (account_id, tool, entry, created_ms) VALUES (?, ?, ?, ?)'),
      historyCap: db.prepare(
        `DELETE FROM history WHERE account_id = ? AND tool = ? AND seq <= (
           SELECT seq FROM history WHERE account_id = ? AND tool = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      ),
      historyAsc: db.prepare<[string, string], { entry: string }>('SELECT entry FROM history WHERE account_id = ? AND tool = ? ORDER BY seq ASC'),
      historyDesc: db.prepare<[string, string], { entry: string }>('SELECT entry FROM history WHERE account_id = ? AND tool = ? ORDER BY seq DESC'),
      lookupPut: db.prepare('INSERT OR REPLACE INTO lookups (account_id, kind, lookup_key, data, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)'),
      lookupHas: db.prepare<[string, string, string, number], { one: number }>(
        'SELECT 1 AS one FROM lookups WHERE account_id = ? AND kind = ? AND lookup_key = ? AND created_ms >= ?',
      ),
      lookupGet: db.prepare<[string, string, string, number, number], { data: string | null }>(
        'SELECT data FROM lookups WHERE account_id = ? AND kind = ? AND lookup_key = ? AND created_ms >= ? AND expires_ms > ?',
      ),
      inflightInsert: db.prepare(
        `INSERT INTO inflight_charges (account_id, client_class, pool, reserved, burst_event_id, started_period, cooldown_name, cooldown_previous_ms, created_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      inflightDelete: db.prepare('DELETE FROM inflight_charges WHERE id = ?'),
      inflightAll: db.prepare<[], InflightRow>('SELECT * FROM inflight_charges ORDER BY id'),
      sweepCache: db.prepare('DELETE FROM request_cache WHERE created_ms <= ?'),
      sweepBurst: db.prepare('DELETE FROM burst_events WHERE at_ms < ?'),
      sweepLookups: db.prepare('DELETE FROM lookups WHERE expires_ms <= ?'),
    };
    this.admitTx = db.transaction((req: AdmissionRequest) => this.admitInside(req));
    this.commitTx = db.transaction((r: Reservation, c: Commit) => this.commitInside(r, c));
    this.releaseTx = db.transaction((r: Reservation) => this.releaseInside(r));
    this.releaseInFlightTx = db.transaction(() => {
      const rows = this.s.inflightAll.all();
      for (const row of rows) this.releaseInside(reservationOf(row));
      return rows.length;
    });
  }

  cached(accountId: string, key: string, nowMs: number): CachedResponse | null {
    const id = `${accountId}\u0000${key}`;
    const kept = this.memory.get(id);
    if (kept !== undefined && kept.createdMs > nowMs - CACHE_TTL_MS) return { ...kept.response };
    const row = this.s.cacheGet.get(accountId, key, nowMs - CACHE_TTL_MS);
    if (row === undefined) return null;
    if (row.staleFlag === 1) return { status: row.status, contentType: row.contentType, body: row.body, stale: true };
    const response = { status: row.status, contentType: row.contentType, body: row.body };
    this.remember(id, response, row.createdMs);
    return { ...response };
  }

  private remember(id: string, response: CachedResponse, createdMs: number): void {
    const previous = this.memory.get(id);
    if (previous !== undefined) {
      this.memory.delete(id);
      this.memoryChars -= previous.response.body.length;
    }
    // A body too large for a fair share of memory stays in the table only.
    if (response.body.length > MEMORY_CACHE_CHARS / 16) return;
    this.memory.set(id, { response, createdMs });
    this.memoryChars += response.body.length;
    for (const [oldest, entry] of this.memory) {
      if (this.memoryChars <= MEMORY_CACHE_CHARS) break;
      this.memory.delete(oldest);
      this.memoryChars -= entry.response.body.length;
    }
  }

  forget(accountId: string, key: string): void {
    const id = `${accountId}\u0000${key}`;
    const kept = this.memory.get(id);
    if (kept !== undefined) {
      this.memory.delete(id);
      this.memoryChars -= kept.response.body.length;
    }
    this.s.cacheDelete.run(accountId, key);
  }

  admit(req: AdmissionRequest): Admission {
    return this.admitTx.immediate(req);
  }

  commit(reservation: Reservation, commit: Commit): void {
    this.commitTx.immediate(reservation, commit);
    if (commit.cache) {
      const { key, status, contentType, body } = commit.cache;
      this.remember(`${reservation.accountId}\u0000${key}`, { status, contentType, body }, commit.nowMs);
    }
  }

  release(reservation: Reservation): void {
    this.releaseTx.immediate(reservation);
  }

  releaseInFlight(): number {
    return this.releaseInFlightTx.immediate();
  }

  refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number, nowMs: number): void {
    if (units <= 0) return;
    const usage = this.currentUsage(accountId, pool, nowMs);
    if (usage && usage.period_start_ms <= chargedAtMs) this.s.usageAdd.run(-units, accountId, pool);
  }

  poolState(accountId: string, pool: PoolName, period: PoolPeriod, limit: number, nowMs: number): PoolState {
    const usage = this.currentUsage(accountId, pool, nowMs);
    const used = usage?.used ?? 0;
    let reset: number | null;
    if (period === 'monthly') reset = Math.ceil((monthBounds(nowMs).end - nowMs) / 1000);
    else reset = usage ? Math.ceil((usage.period_end_ms - nowMs) / 1000) : null;
    return { limit, remaining: Math.max(0, limit - used), reset };
  }

  hasLookup(accountId: string, kind: string, key: string, sinceMs: number): boolean {
    return this.s.lookupHas.get(accountId, kind, key, sinceMs) !== undefined;
  }

  lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): unknown | undefined {
    const row = this.s.lookupGet.get(accountId, kind, key, sinceMs, nowMs);
    if (row === undefined) return undefined;
    return row.data === null ? null : JSON.parse(row.data);
  }

  recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number): void {
    for (const l of lookups) {
      const data = l.data === undefined ? null : JSON.stringify(l.data);
      this.s.lookupPut.run(accountId, l.kind, l.key, data, nowMs, nowMs + (l.ttlMs ?? LOOKUP_TTL_MS));
    }
  }

  history(accountId: string, tool: HistoryWrite['tool']): unknown[] {
    const stmt = HISTORY_TOOLS[tool].order === 'oldest-first' ? this.s.historyAsc : this.s.historyDesc;
    return stmt.all(accountId, tool).map((row) => JSON.parse(row.entry));
  }

  sweep(nowMs: number): void {
    for (const [id, entry] of this.memory) {
      if (entry.createdMs > nowMs - CACHE_TTL_MS) continue;
      this.memory.delete(id);
      this.memoryChars -= entry.response.body.length;
    }
    this.s.sweepCache.run(nowMs - CACHE_TTL_MS);
    this.s.sweepBurst.run(nowMs - BURST_EVENT_TTL_MS);
    this.s.sweepLookups.run(nowMs);
  }

  /** The usage row of the running period, or undefined when no period is running. */
  private currentUsage(accountId: string, pool: PoolName, nowMs: number): UsageRow | undefined {
    const row = this.s.usageGet.get(accountId, pool);
    return row && nowMs < row.period_end_ms ? row : undefined;
  }

  private admitInside(req: AdmissionRequest): Admission {
    const { accountId, clientClass, pool, nowMs } = req;
    let previousCooldown: number | null = null;
    if (req.cooldown) {
      const last = this.s.cooldownGet.get(accountId, req.cooldown.name)?.last_ms ?? null;
      // Inclusive like the burst window: an import exactly 30 s after the last is refused.
      if (last !== null && nowMs - last <= req.cooldown.ms) {
        const retryAfter = Math.max(1, Math.ceil((last + req.cooldown.ms - nowMs) / 1000));
        return { ok: false, type: 'RateLimit', retryAfter, reason: 'cooldown' };
      }
      previousCooldown = last;
    }

    // Sliding window, inclusive at both ends: admitted iff fewer than N admitted requests
    // lie in [t - W, t].
    const windowStart = nowMs - req.windowMs;
    const inWindow = this.s.burstCount.get(accountId, clientClass, pool, windowStart)!.n;
    if (inWindow >= req.burstSize) {
      return { ok: false, type: 'RateLimit', retryAfter: Math.ceil(req.windowMs / 1000), reason: 'burst' };
    }

    const usage = this.currentUsage(accountId, pool, nowMs);
    const remaining = Math.max(0, req.poolLimit - (usage?.used ?? 0));
    let reserve = req.cost;
    if (req.allowPartial && req.cost > 0) {
      if (remaining < 1) return { ok: false, type: 'CreditLimit' };
      reserve = Math.min(req.cost, remaining);
    } else if (remaining < req.cost) {
      return { ok: false, type: 'CreditLimit' };
    }

    // Admitted: record the burst slot, the reservation and the cooldown.
    this.s.burstPrune.run(accountId, clientClass, pool, windowStart - 1);
    const burstEventId = Number(this.s.burstInsert.run(accountId, clientClass, pool, nowMs).lastInsertRowid);
    let startedPeriod = false;
    if (reserve > 0) {
      if (usage) {
        this.s.usageAdd.run(reserve, accountId, pool);
      } else {
        const bounds = req.period === 'monthly' ? monthBounds(nowMs) : { start: nowMs, end: nowMs + DAY_MS };
        this.s.usagePut.run(accountId, pool, bounds.start, bounds.end, reserve);
        startedPeriod = true;
      }
    }
    if (req.cooldown) this.s.cooldownPut.run(accountId, req.cooldown.name, nowMs);
    const inflightId = Number(
      this.s.inflightInsert.run(
        accountId,
        clientClass,
        pool,
        reserve,
        burstEventId,
        startedPeriod ? 1 : 0,
        req.cooldown?.name ?? null,
        req.cooldown ? previousCooldown : null,
        nowMs,
      ).lastInsertRowid,
    );
    return {
      ok: true,
      reservation: {
        accountId,
        clientClass,
        pool,
        reserved: reserve,
        burstEventId,
        startedPeriod,
        inflightId,
        cooldown: req.cooldown ? { name: req.cooldown.name, previousMs: previousCooldown } : undefined,
      },
    };
  }

  private commitInside(r: Reservation, c: Commit): void {
    this.s.inflightDelete.run(r.inflightId);
    for (const write of c.writes ?? []) write();
    const cost = Math.max(0, Math.min(c.cost, r.reserved));
    if (cost !== r.reserved) this.s.usageAdd.run(cost - r.reserved, r.accountId, r.pool);
    if (c.cache) {
      this.s.cachePut.run(r.accountId, c.cache.key, c.cache.status, c.cache.contentType, c.cache.body, c.nowMs);
    }
    for (const h of c.history ?? []) {
      this.s.historyInsert.run(r.accountId, h.tool, JSON.stringify(h.entry), c.nowMs);
      const cap = HISTORY_TOOLS[h.tool].cap;
      this.s.historyCap.run(r.accountId, h.tool, r.accountId, h.tool, cap);
    }
    this.recordLookups(r.accountId, c.lookups ?? [], c.nowMs);
  }

  private releaseInside(r: Reservation): void {
    this.s.inflightDelete.run(r.inflightId);
    this.s.burstDelete.run(r.burstEventId);
    if (r.reserved > 0) {
      const row = this.s.usageGet.get(r.accountId, r.pool);
      if (row) {
        if (r.startedPeriod && row.used <= r.reserved) this.s.usageDelete.run(r.accountId, r.pool);
        else this.s.usageAdd.run(-r.reserved, r.accountId, r.pool);
      }
    }
    if (r.cooldown) {
      if (r.cooldown.previousMs === null) this.s.cooldownDelete.run(r.accountId, r.cooldown.name);
      else this.s.cooldownPut.run(r.accountId, r.cooldown.name, r.cooldown.previousMs);
    }
  }
}
