/**
 * The access policy's tables (src/policy): the counters it admits and charges by (burst
 * events, quota usage, cooldowns, charges in flight) and what it keeps of answered requests
 * (request cache, histories, lookups).
 */
import type { Generated } from 'kysely';

/** Admitted requests inside a burst window, per subject, client class and pool. */
export interface BurstEventsTable {
  id: Generated<number>;
  subject: string;
  client_class: string;
  pool: string;
  at_ms: number;
}

/** Use of a quota pool in its current period. */
export interface QuotaUsageTable {
  account_id: string;
  pool: string;
  /** Daily pools: when the period started (first counted request). Monthly pools: start of the UTC month. */
  period_start_ms: number;
  period_end_ms: number;
  used: number;
}

export interface RequestCacheTable {
  account_id: string;
  cache_key: string;
  status: number;
  content_type: string;
  body: string;
  created_ms: number;
  /** 1: written by an earlier release in a shape the API no longer answers (see migration 0010). */
  stale: number;
}

/** Per-account cooldowns, such as one keyword import per 30 s. */
export interface CooldownsTable {
  account_id: string;
  name: string;
  last_ms: number;
}

/** Charges admitted and not yet committed or released (see SqlitePolicyStore.releaseInFlight). */
export interface InflightChargesTable {
  id: Generated<number>;
  account_id: string;
  client_class: string;
  pool: string;
  reserved: number;
  burst_event_id: number;
  started_period: number;
  cooldown_name: string | null;
  cooldown_previous_ms: number | null;
  created_ms: number;
}

/** Per-account, per-tool request history (capped; see policy/history.ts). */
export interface HistoryTable {
  seq: Generated<number>;
  account_id: string;
  tool: string;
  entry: string;
  created_ms: number;
}

/**
 * Lookups that unlock or discount later requests (competitor-domain needs a recent
 * competitor-keywords lookup; site-tool profiles need a recent overview; gap analysis
 * charges a competitor once per 24 h). Kept apart from the capped history, which may
 * forget a lookup long before its 24 hours are over.
 */
export interface LookupsTable {
  account_id: string;
  kind: string;
  lookup_key: string;
  /** What a later request needs to know of the lookup (JSON), e.g. the query behind a SERP id. */
  data: string | null;
  created_ms: number;
  expires_ms: number;
}
