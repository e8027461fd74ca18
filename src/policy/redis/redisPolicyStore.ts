/**
 * The policy store of the scale mode: the hot counters on Redis, shared by every API
 * process — burst windows, quota pools, cooldowns and in-flight reservations, each decision
 * one Lua script (scripts.ts) — and what must last on the state store's database: the
 * request cache, lookups and histories (the embedded modules, on the same SQL store every
 * process opens). Each process keeps its cache mirror; a forgotten entry is announced on a
 * Redis channel so every process drops it.
 *
 * A commit writes the durable part first (one SQL transaction: the export's job, the cached
 * answer, history, lookups) and settles the reservation on Redis after. A process dying in
 * between leaves an answered request whose reservation is still open; it is released later
 * (see releaseInFlight), so the client was answered and not charged — never the reverse.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisHandle } from '../../lib/redis.js';
import { DurablePolicyStore } from '../durablePolicyStore.js';
import { chargedCost, type Admission, type AdmissionRequest, type Commit, type PolicyStore, type Reservation } from '../policyStore.js';
import { monthBounds, poolStateOf, type PoolName, type PoolPeriod, type PoolState, type UsageRow } from '../pools.js';
import type { DurablePolicyState } from '../durableState.js';
import { ADMIT, COMMIT, REFUND, RELEASE } from './scripts.js';

/** How long a process's liveness mark lasts without renewal: its reservations are released after. */
const ALIVE_MS = 30_000;

type AdmitReply = [0, 'cooldown' | 'burst', number] | [0, 'credit'] | [1, number, number, number, string];

interface ScriptedRedis extends Redis {
  quarryAdmit(...args: (string | number)[]): Promise<AdmitReply>;
  quarryCommit(...args: (string | number)[]): Promise<number>;
  quarryRelease(...args: (string | number)[]): Promise<number>;
  quarryRefund(...args: (string | number)[]): Promise<number>;
}

export class RedisPolicyStore extends DurablePolicyStore implements PolicyStore {
  private readonly redis: ScriptedRedis;
  private readonly p: string;
  /** This process, as the owner of its in-flight reservations. */
  readonly owner = randomUUID();
  private readonly alive: NodeJS.Timeout;
  private readonly forgetChannel: string;

  constructor(
    handle: RedisHandle,
    /** The request cache, lookups and histories on the state store (SQLite or PostgreSQL). */
    durable: DurablePolicyState,
  ) {
    super(durable);
    this.p = handle.prefix;
    this.redis = handle.client as ScriptedRedis;
    this.redis.defineCommand('quarryAdmit', { numberOfKeys: 5, lua: ADMIT });
    this.redis.defineCommand('quarryCommit', { numberOfKeys: 2, lua: COMMIT });
    this.redis.defineCommand('quarryRelease', { numberOfKeys: 4, lua: RELEASE });
    this.redis.defineCommand('quarryRefund', { numberOfKeys: 1, lua: REFUND });
    this.forgetChannel = `${this.p}forget`;
    handle.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.forgetChannel) this.forgotten(message);
    });
    void handle.subscriber.subscribe(this.forgetChannel);
    const markAlive = () => void this.redis.set(this.aliveKey(this.owner), '1', 'PX', ALIVE_MS).catch(() => undefined);
    markAlive();
    this.alive = setInterval(markAlive, ALIVE_MS / 3);
    this.alive.unref();
  }

  private aliveKey(owner: string): string {
    return `${this.aliveKeyPrefix}${owner}`;
  }
  /** The liveness key of a process is this prefix and its owner id (30 s lease, renewed every 10 s). */
  get aliveKeyPrefix(): string {
    return `${this.p}alive:`;
  }
  private burstKey(accountId: string, clientClass: string, pool: string): string {
    return `${this.p}burst:${accountId}:${clientClass}:${pool}`;
  }
  private poolKey(accountId: string, pool: string): string {
    return `${this.p}pool:${accountId}:${pool}`;
  }
  private cooldownKey(accountId: string, name: string): string {
    return `${this.p}cooldown:${accountId}:${name}`;
  }
  private get inflightKey(): string {
    return `${this.p}inflight`;
  }

  /** Stops renewing this process's liveness (its open reservations are released by the next start after ALIVE_MS). */
  close(): void {
    clearInterval(this.alive);
  }

  protected override async announceForget(id: string): Promise<void> {
    await this.redis.publish(this.forgetChannel, id);
  }

  async admit(req: AdmissionRequest): Promise<Admission> {
    const { accountId, clientClass, pool, nowMs } = req;
    const month = monthBounds(nowMs);
    const base = { accountId, clientClass, pool };
    const reply = await this.redis.quarryAdmit(
      this.cooldownKey(accountId, req.cooldown?.name ?? ''),
      this.burstKey(accountId, clientClass, pool),
      this.poolKey(accountId, pool),
      this.inflightKey,
      `${this.p}seq`,
      nowMs,
      req.windowMs,
      req.burstSize,
      req.cost,
      req.allowPartial ? 1 : 0,
      req.poolLimit,
      req.period,
      month.start,
      month.end,
      req.cooldown?.name ?? '',
      req.cooldown?.ms ?? 0,
      JSON.stringify(base),
      this.owner,
    );
    if (reply[0] === 0) {
      if (reply[1] === 'credit') return { ok: false, type: 'CreditLimit' };
      return { ok: false, type: 'RateLimit', retryAfter: reply[2], reason: reply[1] };
    }
    const [, id, reserved, started, previous] = reply;
    return {
      ok: true,
      reservation: {
        ...base,
        reserved,
        burstEventId: id,
        startedPeriod: started === 1,
        inflightId: id,
        cooldown: req.cooldown ? { name: req.cooldown.name, previousMs: previous === '' ? null : Number(previous) } : undefined,
      },
    };
  }

  async commit(r: Reservation, c: Commit): Promise<void> {
    await this.durable.commit(r, c);
    this.remember(r, c);
    await this.redis.quarryCommit(this.inflightKey, this.poolKey(r.accountId, r.pool), r.inflightId, chargedCost(r, c) - r.reserved);
  }

  async release(r: Reservation): Promise<void> {
    await this.redis.quarryRelease(
      this.inflightKey,
      this.burstKey(r.accountId, r.clientClass, r.pool),
      this.poolKey(r.accountId, r.pool),
      this.cooldownKey(r.accountId, r.cooldown?.name ?? ''),
      r.inflightId,
      r.reserved,
      r.startedPeriod ? 1 : 0,
      r.cooldown ? (r.cooldown.previousMs === null ? '' : String(r.cooldown.previousMs)) : '-',
    );
  }

  /**
   * Releases the reservations of processes that stopped renewing their liveness mark (they
   * died between admission and answer). Live processes' reservations are left alone, so
   * any API process may call this at its start.
   */
  async releaseInFlight(): Promise<number> {
    const all = await this.redis.hgetall(this.inflightKey);
    const owners = [...new Set(Object.values(all).map((v) => (JSON.parse(v) as { owner: string }).owner))];
    const alive = new Set<string>();
    for (const owner of owners) if (owner === this.owner || (await this.redis.exists(this.aliveKey(owner))) === 1) alive.add(owner);
    let released = 0;
    for (const value of Object.values(all)) {
      const entry = JSON.parse(value) as { owner: string; reservation: Reservation };
      if (alive.has(entry.owner)) continue;
      await this.release(entry.reservation);
      released++;
    }
    return released;
  }

  async refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number, nowMs: number): Promise<void> {
    if (units <= 0) return;
    await this.redis.quarryRefund(this.poolKey(accountId, pool), units, chargedAtMs, nowMs);
  }

  async poolState(accountId: string, pool: PoolName, period: PoolPeriod, limit: number, nowMs: number): Promise<PoolState> {
    const [start, end, used] = await this.redis.hmget(this.poolKey(accountId, pool), 'start', 'end', 'used');
    const usage: UsageRow | undefined =
      end !== null && nowMs < Number(end) ? { period_start_ms: Number(start), period_end_ms: Number(end), used: Number(used) } : undefined;
    return poolStateOf(usage, period, limit, nowMs);
  }

  /** Burst windows and gateway windows expire on Redis by themselves; the SQL side is swept here. */
  async sweep(nowMs: number): Promise<void> {
    await this.sweepDurable(nowMs);
  }
}
