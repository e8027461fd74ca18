/**
 * The access policy for paid operations, in the contract's order:
 * answer without charge → cache → cooldown → burst window → quota pool → execute → commit.
 *
 * A route declares what it costs (a PaidOperation); this module alone decides how that is
 * charged. It knows nothing of HTTP: http/paidRoutes.ts adapts it to Fastify.
 */
import type { Kysely } from 'kysely';
import type { Account } from '../accounts/accounts.js';
import type { StateDatabase } from '../store/schema.js';
import { ApiError, errors } from '../lib/errors.js';
import { isStoreBusy } from '../store/database.js';
import type { Clock } from '../lib/clock.js';
import { cacheKey } from './canonical.js';
import type { HistoryTool, HistoryWrite } from './history.js';
import type { ClientClass, Plan } from './plans.js';
import { CACHE_TTL_MS, type CachedResponse, type LookupWrite, type PolicyStore, type Reservation } from './policyStore.js';
import type { StateWrite } from '../store/database.js';
import { POOL_PERIODS, POOLS, type PoolName, type PoolState } from './pools.js';
import { LocalFlights, type SingleFlight } from './singleFlight.js';

export interface CostContext {
  account: Account;
  plan: Plan;
  /** Whether this account made a lookup of this kind and key in the last 24 hours. */
  hasRecentLookup(kind: string, key: string): Promise<boolean>;
  /** The data of this account's unexpired lookup of this kind and key, if any. */
  lookupData(kind: string, key: string): Promise<unknown | undefined>;
}

// Routes keep their operations in typed form; the policy and the adapter handle any of them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface PaidOperation<P = any, B = any> {
  pool: PoolName;
  /** Name under which the request is cached; routes that are one operation (GET and POST of competitor keywords) share it. */
  cacheAs?: string;
  /** Identical requests within 24 h are answered from cache (default true). */
  cacheable?: boolean;
  /**
   * An answer given before the cache and admission, so it charges nothing and needs no burst
   * slot, cooldown or quota: the 204 of an unsupported location, or a refusal (throw an
   * ApiError) that the contract gives whatever the counters say. undefined lets the request
   * go on. It sees the validated parameters; keep it pure and cheap, as it may be asked
   * twice for one request (the HTTP adapter's synchronous cache path, then run()).
   */
  answerWithoutCharge?: (params: P, ctx: { account: Account; plan: Plan }) => ExecutionResult | undefined;
  /**
   * Whether a cached answer still stands (default: it does, for its 24 hours). One that no
   * longer does is forgotten, and the request executes and is charged again: an export
   * creation whose job failed for good and was refunded. It is judged when the answer is
   * read, from the shared state store, so it holds whichever process failed the job.
   */
  cachedAnswerHolds?: (body: unknown) => boolean | Promise<boolean>;
  /** Units to reserve before execution (default 1). */
  cost?: (params: P, ctx: CostContext) => number | Promise<number>;
  /** Cut the reservation to what remains in the pool instead of refusing (backlink pages). */
  allowPartial?: boolean;
  /** One keyword import per cooldown for API-key clients. */
  cooldown?: 'keyword-import';
  /** History entries written with the charge. */
  history?: (params: P, body: B, at: CommitContext) => HistoryWrite[];
  /** Lookups recorded with the charge (they unlock or discount later requests). */
  lookups?: (params: P, body: B, at: CommitContext) => LookupWrite[];
}

/** When and for whom a charge is committed. */
export interface CommitContext {
  account: Account;
  /** Milliseconds since the epoch, from the injected clock. */
  nowMs: number;
}

export interface ExecutionContext {
  account: Account;
  plan: Plan;
  nowMs: number;
  /** Units reserved from the pool; a partial reservation may be less than the cost asked. */
  reserved: number;
  /** Sets what the request finally costs (at most `reserved`); defaults to `reserved`. */
  charge(units: number): void;
  /**
   * A write that must commit with the charge and the cached answer, or not at all (an
   * export's job), run inside the commit's transaction (see StateWrite).
   */
  onCommit(write: StateWrite): void;
  /**
   * Keeps this answer out of the 24-hour cache: it holds values still being computed (a
   * market's difficulty while its rank index is built) that a repeat must not be served.
   * The request is charged as usual.
   */
  doNotCache(): void;
}

export interface ExecutionResult {
  status: number;
  /** undefined for an empty body (204), which charges nothing. */
  body?: unknown;
  /** The body as JSON text, already serialised by the operation's response schema; JSON.stringify(body) when absent. */
  json?: string;
}

export interface PolicyResponse {
  status: number;
  contentType: string;
  body: string | null;
  fromCache: boolean;
}

export interface PaidRequest<P> {
  account: Account;
  clientClass: ClientClass;
  operationId: string;
  params: P;
  execute: (ctx: ExecutionContext) => Promise<ExecutionResult>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The request-cache key under which an operation with a cooldown keeps the last request it
 * committed and its answer (see cooldownReplay). Ordinary keys are SHA-256 hex digests
 * (canonical.ts), which never look like this.
 */
function replayKey(cooldown: string): string {
  return `cooldown-replay:${cooldown}`;
}

export class AccessPolicy {
  constructor(
    /** Its counters; read by tests only (lint forbids it outside src/policy). */
    readonly store: PolicyStore,
    private readonly plans: Record<string, Plan>,
    private readonly clock: Clock,
    /** Identical cache misses in flight, so that concurrent duplicates execute once. */
    private readonly flights: SingleFlight = new LocalFlights(),
  ) {}

  planOf(account: Account): Plan {
    // An account whose plan was removed from the plans file keeps working on the entry plan.
    return this.plans[account.plan] ?? this.plans.entry;
  }

  /**
   * The operation's answer before admission (see PaidOperation.answerWithoutCharge), never
   * cached or charged, or null when the request goes on to the cache and admission.
   */
  answerWithoutCharge<P>(op: PaidOperation<P>, account: Account, params: P): PolicyResponse | null {
    const early = op.answerWithoutCharge?.(params, { account, plan: this.planOf(account) });
    if (early === undefined) return null;
    return { status: early.status, contentType: JSON_TYPE, body: early.body === undefined ? null : JSON.stringify(early.body), fromCache: false };
  }

  /**
   * The cached answer for a cacheable request, by its cache key (see cacheKey), or null:
   * the whole cache-hit path of run(), for callers that already know the key.
   */
  async cachedResponse<P>(op: PaidOperation<P>, accountId: string, key: string): Promise<PolicyResponse | null> {
    const hit = await this.cachedAnswer(op, accountId, key);
    return hit && !hit.stale ? { status: hit.status, contentType: hit.contentType, body: hit.body, fromCache: true } : null;
  }

  /**
   * The cached answer when this process holds it in memory and the operation needs nothing
   * more to serve it (no check that it still stands, no lookups to refresh), else null; then
   * `cachedResponse` decides. Synchronous: a cache hit waits for nothing (issue 26).
   */
  cachedResponseNow<P>(op: PaidOperation<P>, accountId: string, key: string): PolicyResponse | null {
    if (op.cachedAnswerHolds !== undefined || op.lookups !== undefined || this.store.cachedInMemory === undefined) return null;
    const hit = this.store.cachedInMemory(accountId, key, this.clock.now());
    return hit === undefined || hit.stale ? null : { status: hit.status, contentType: hit.contentType, body: hit.body, fromCache: true };
  }

  /** The cached answer of a request, unless the operation no longer stands by it (then it is forgotten). */
  private async cachedAnswer<P>(op: PaidOperation<P>, accountId: string, key: string): Promise<CachedResponse | null> {
    const hit = await this.store.cached(accountId, key, this.clock.now());
    if (hit === null || hit.stale || op.cachedAnswerHolds === undefined || (await op.cachedAnswerHolds(JSON.parse(hit.body)))) return hit;
    await this.store.forget(accountId, key);
    return null;
  }

  /**
   * Forgets the cached answer of an operation's request with these parameters (as its
   * route's cache key sees them), so that the next identical request executes again, in
   * every process: a SERP reset.
   */
  async forgetAnswer(accountId: string, operationId: string, params: unknown): Promise<void> {
    await this.store.forget(accountId, cacheKey(operationId, params));
  }

  /** Whether the account made a lookup of this kind and key in the last 24 hours (exactly 24 h ago no longer counts, like the cache). */
  hasRecentLookup(accountId: string, kind: string, key: string): Promise<boolean> {
    return this.store.hasLookup(accountId, kind, key, this.clock.now() - CACHE_TTL_MS + 1);
  }

  /** The data of the account's unexpired lookup of this kind and key, if any. */
  lookupData(accountId: string, kind: string, key: string): Promise<unknown | undefined> {
    return this.store.lookupData(accountId, kind, key, 0, this.clock.now());
  }

  /**
   * Records lookups made without a charge (a free suggestion, a scheduled rank check); inside
   * the caller's open transaction `trx` when given (see PolicyStore.recordLookups).
   */
  recordLookups(accountId: string, lookups: LookupWrite[], nowMs = this.clock.now(), trx?: Kysely<StateDatabase>): Promise<void> {
    return this.store.recordLookups(accountId, lookups, nowMs, trx);
  }

  /** The account's request history of one tool, as the policy recorded it. */
  history(accountId: string, tool: HistoryTool): Promise<unknown[]> {
    return this.store.history(accountId, tool);
  }

  /** Every pool of the account's plan: its limit, what remains and when it is full again. */
  async poolStates(account: Account): Promise<Record<PoolName, PoolState>> {
    const plan = this.planOf(account);
    const now = this.clock.now();
    const states = await Promise.all(POOLS.map((pool) => this.store.poolState(account.id, pool, POOL_PERIODS[pool], plan.pools[pool], now)));
    return Object.fromEntries(POOLS.map((pool, i) => [pool, states[i]])) as Record<PoolName, PoolState>;
  }

  /** Gives back units charged at `chargedAtMs` for work that failed for good (see PolicyStore.refund). */
  refund(accountId: string, pool: PoolName, units: number, chargedAtMs: number): Promise<void> {
    return this.store.refund(accountId, pool, units, chargedAtMs, this.clock.now());
  }

  /** At a server start: gives back what requests that never answered reserved (see PolicyStore.releaseInFlight). */
  releaseInFlight(): Promise<number> {
    return this.store.releaseInFlight();
  }

  /** Stops the store's timers (the scale mode's liveness mark). */
  async close(): Promise<void> {
    this.store.close?.();
  }

  /** Removes expired cache entries, burst slots and lookups. */
  sweep(): Promise<void> {
    return this.store.sweep(this.clock.now());
  }

  async run<P>(op: PaidOperation<P>, req: PaidRequest<P>): Promise<PolicyResponse> {
    const early = this.answerWithoutCharge(op, req.account, req.params);
    if (early) return early;
    const cacheable = op.cacheable !== false;
    const key = cacheable ? cacheKey(req.operationId, req.params) : null;
    if (key === null) return this.admitAndExecute(op, req, null);
    const flightKey = `${req.account.id}\u0000${key}`;
    for (;;) {
      const hit = await this.fromCache(op, req, key);
      if (hit) return hit;
      // Claimed only after a miss, so that cache hits never wait for one another; a duplicate
      // that held the claim meanwhile has committed its answer, which the next read finds.
      const release = await this.flights.claim(flightKey);
      if (release === null) continue;
      try {
        const again = await this.cachedAnswer(op, req.account.id, key);
        if (again && !again.stale) return await this.answerFromCache(op, req, again);
        // A stale entry (an earlier release's shape) is not served, but the repeat it stands for is answered free.
        return await this.admitAndExecute(op, req, key, again?.stale === true);
      } finally {
        await release();
      }
    }
  }

  private async fromCache<P>(op: PaidOperation<P>, req: PaidRequest<P>, key: string): Promise<PolicyResponse | null> {
    const hit = await this.cachedAnswer(op, req.account.id, key);
    return hit && !hit.stale ? this.answerFromCache(op, req, hit) : null;
  }

  private async answerFromCache<P>(op: PaidOperation<P>, req: PaidRequest<P>, hit: CachedResponse): Promise<PolicyResponse> {
    await this.refreshLookups(op, req.account, req.params, hit.body);
    return { status: hit.status, contentType: hit.contentType, body: hit.body, fromCache: true };
  }

  /**
   * A repeat answered from cache is still a lookup the client made: what it unlocks (site
   * profiles, competitor domains, snapshots) counts from now. Only operations that record
   * lookups pay for this; the plain cache-hit path writes nothing.
   */
  async refreshLookups<P>(op: PaidOperation<P>, account: Account, params: P, body: string): Promise<void> {
    if (!op.lookups) return;
    const at: CommitContext = { account, nowMs: this.clock.now() };
    await this.store.recordLookups(account.id, op.lookups(params, JSON.parse(body), at), at.nowMs);
  }

  /**
   * The answer to an identical retry of the request that started the account's cooldown, or
   * null. A client whose import was committed but never answered (the server died, the
   * connection dropped) retries within the cooldown it never knew it started: it gets the
   * answer it paid for, free, instead of a refusal. The entry is the last committed request
   * of that cooldown, so only a repeat of the latest one is answered; anything else is
   * refused as before.
   */
  private async cooldownReplay<P>(op: PaidOperation<P>, accountId: string, requestKey: string | null): Promise<PolicyResponse | null> {
    if (!op.cooldown || requestKey === null) return null;
    const hit = await this.store.cached(accountId, replayKey(op.cooldown), this.clock.now());
    if (!hit || hit.stale) return null;
    const last = JSON.parse(hit.body) as { request?: unknown; body?: unknown };
    if (last.request !== requestKey || typeof last.body !== 'string') return null;
    return { status: hit.status, contentType: hit.contentType, body: last.body, fromCache: true };
  }

  /** `owed`: the request repeats one answered within 24 hours whose cached answer went stale; it is executed as usual and charged nothing. */
  private async admitAndExecute<P>(op: PaidOperation<P>, req: PaidRequest<P>, key: string | null, owed = false): Promise<PolicyResponse> {
    const { account, clientClass } = req;
    // Taken before the handler runs: it may normalise its params in place.
    const requestKey = op.cooldown ? cacheKey(req.operationId, req.params) : null;
    const plan = this.planOf(account);
    const nowMs = this.clock.now();
    const cost = op.cost
      ? await op.cost(req.params, {
          account,
          plan,
          // The last 24 hours, like the cache: a lookup exactly 24 h old no longer counts.
          hasRecentLookup: (kind, k) => this.store.hasLookup(account.id, kind, k, nowMs - CACHE_TTL_MS + 1),
          lookupData: (kind, k) => this.store.lookupData(account.id, kind, k, 0, nowMs),
        })
      : 1;
    const admission = await this.store.admit({
      accountId: account.id,
      clientClass,
      pool: op.pool,
      period: POOL_PERIODS[op.pool],
      poolLimit: plan.pools[op.pool],
      nowMs,
      windowMs: plan.burstWindowMs[clientClass],
      burstSize: plan.reqsPerShortPeriod,
      cost,
      allowPartial: op.allowPartial,
      cooldown: op.cooldown && clientClass === 'api' ? { name: op.cooldown, ms: plan.importCooldownMs } : undefined,
    });
    if (!admission.ok) {
      if (admission.type === 'CreditLimit') throw errors.creditLimit(op.pool);
      if (admission.reason === 'cooldown') {
        const replay = await this.cooldownReplay(op, account.id, requestKey);
        if (replay) return replay;
      }
      throw admission.reason === 'cooldown'
        ? errors.rateLimit(admission.retryAfter, 'Only one keyword import per 30 seconds is allowed')
        : errors.rateLimit(admission.retryAfter);
    }
    const reservation: Reservation = admission.reservation;
    let charged = reservation.reserved;
    const writes: StateWrite[] = [];
    let result: ExecutionResult;
    let provisional = false;
    try {
      result = await req.execute({
        account,
        plan,
        nowMs,
        reserved: reservation.reserved,
        charge: (units) => {
          charged = Math.max(0, Math.min(units, reservation.reserved));
        },
        onCommit: (write) => writes.push(write),
        doNotCache: () => (provisional = true),
      });
    } catch (err) {
      await this.store.release(reservation);
      throw err;
    }
    if (result.body === undefined || result.status < 200 || result.status >= 300) {
      // An empty answer (unsupported location) or a refusal by the handler charges nothing.
      await this.store.release(reservation);
      return { status: result.status, contentType: JSON_TYPE, body: null, fromCache: false };
    }
    if (owed) charged = 0;
    const body = result.json ?? JSON.stringify(result.body);
    const at: CommitContext = { account, nowMs: this.clock.now() };
    try {
      await this.store.commit(reservation, {
        nowMs: at.nowMs,
        cost: charged,
        cache:
          key !== null
            ? provisional
              ? undefined
              : { key, status: result.status, contentType: JSON_TYPE, body }
            : op.cooldown
              ? { key: replayKey(op.cooldown), status: result.status, contentType: JSON_TYPE, body: JSON.stringify({ request: requestKey, body }) }
              : undefined,
        history: op.history?.(req.params, result.body, at),
        lookups: op.lookups?.(req.params, result.body, at),
        writes,
      });
    } catch (err) {
      await this.store.release(reservation);
      // A busy store keeps its error (answered 503 "retry"); anything else is the server's fault.
      throw err instanceof ApiError || isStoreBusy(err) ? err : new Error(`could not commit the charge: ${(err as Error).message}`);
    }
    return { status: result.status, contentType: JSON_TYPE, body, fromCache: false };
  }
}
