/**
 * The quota pools of the contract, how each one refills, and the rules every backend's pool
 * counters follow (the Redis scripts repeat them in Lua).
 */
export const POOLS = [
  'serps',
  'related-keywords',
  'sch-url-metrics',
  'kw-url-metrics',
  'lm-url-metrics',
  'sp-overview',
  'trends',
  'lm-suggest',
  'links',
] as const;
export type PoolName = (typeof POOLS)[number];

/**
 * Daily pools: a 24-hour period starts with the first counted request; when it ends the
 * whole pool is available again. Monthly pools reset at the end of the calendar month (UTC).
 */
export type PoolPeriod = 'daily' | 'monthly';

export const POOL_PERIODS: Record<PoolName, PoolPeriod> = {
  serps: 'daily',
  'related-keywords': 'daily',
  'sch-url-metrics': 'daily',
  'kw-url-metrics': 'daily',
  'lm-url-metrics': 'daily',
  'sp-overview': 'daily',
  trends: 'daily',
  'lm-suggest': 'daily',
  links: 'monthly',
};

export function isPoolName(value: string): value is PoolName {
  return (POOLS as readonly string[]).includes(value);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Start of the UTC calendar month holding `ms`, and the start of the next one. */
export function monthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start, end };
}

export interface PoolState {
  limit: number;
  remaining: number;
  /** Seconds until the pool is full again; null for a daily pool with no running period. */
  reset: number | null;
}

/** A pool's running period and what it has used (no row: no period running). */
export interface UsageRow {
  period_start_ms: number;
  period_end_ms: number;
  used: number;
}

/** The bounds of the period a first charge at `nowMs` starts. */
export function periodBounds(period: PoolPeriod, nowMs: number): { start: number; end: number } {
  return period === 'monthly' ? monthBounds(nowMs) : { start: nowMs, end: nowMs + DAY_MS };
}

/** What a pool shows: its limit, what remains of it and the seconds until it is full again. */
export function poolStateOf(usage: UsageRow | undefined, period: PoolPeriod, limit: number, nowMs: number): PoolState {
  const used = usage?.used ?? 0;
  let reset: number | null;
  if (period === 'monthly') reset = Math.ceil((monthBounds(nowMs).end - nowMs) / 1000);
  else reset = usage ? Math.ceil((usage.period_end_ms - nowMs) / 1000) : null;
  return { limit, remaining: Math.max(0, limit - used), reset };
}

/**
 * How much to reserve of `cost` with `remaining` units left, or null when the pool refuses:
 * a partial reservation takes what remains (at least one unit), a whole one needs all of it.
 */
export function reservationSize(cost: number, remaining: number, allowPartial: boolean | undefined): number | null {
  if (allowPartial && cost > 0) return remaining < 1 ? null : Math.min(cost, remaining);
  return remaining < cost ? null : cost;
}
