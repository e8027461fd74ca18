/** The quota pools of the contract and how each one refills. */
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
