/**
 * What the durable policy state's rows mean, on every backend (sqlite/, postgres/): each
 * backend keeps only its statements, and reads and writes rows through these.
 */
import { CACHE_TTL_MS, LOOKUP_TTL_MS, type CachedResponse, type LookupWrite } from './policyStore.js';

/** A cached answer with the time it was written. */
export interface CacheRow extends CachedResponse {
  createdMs: number;
}

/** Entries written after this time are unexpired at `nowMs` (and those at or before it are swept). */
export function cacheCutoff(nowMs: number): number {
  return nowMs - CACHE_TTL_MS;
}

/** A stored request-cache row as the policy reads it; `stale` when an earlier release wrote it in a shape no longer answered. */
export function cacheRowOf(row: { status: number; contentType: string; body: string; createdMs: number; stale: number }): CacheRow {
  const out: CacheRow = { status: row.status, contentType: row.contentType, body: row.body, createdMs: row.createdMs };
  if (row.stale === 1) out.stale = true;
  return out;
}

/** The stored columns of a lookup made at `nowMs`: its data as JSON, and when it expires (24 h unless it says otherwise). */
export function lookupColumns(l: LookupWrite, nowMs: number): { data: string | null; created_ms: number; expires_ms: number } {
  return { data: l.data === undefined ? null : JSON.stringify(l.data), created_ms: nowMs, expires_ms: nowMs + (l.ttlMs ?? LOOKUP_TTL_MS) };
}

/** A lookup's stored data as the policy reads it. */
export function lookupDataOf(data: string | null): unknown {
  return data === null ? null : JSON.parse(data);
}
