import { sha256Hex } from '../lib/ids.js';

/**
 * The canonical form of a request's parameters, so that requests that mean the same hit
 * the same cache entry: object keys sorted, strings trimmed with inner whitespace
 * collapsed, undefined members dropped. Defaults are applied before (by validation).
 */
export function canonicalParams(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ');
  if (Array.isArray(value)) return value.map(canonicalParams);
  if (value !== null && typeof value === 'object') {
    // No prototype: a member named "__proto__" must stay a member, not replace the prototype.
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonicalParams(v);
    }
    return out;
  }
  return value;
}

/** The cache key of an operation with its parameters (the account is a separate column). */
export function cacheKey(operationId: string, params: unknown): string {
  return sha256Hex(JSON.stringify([operationId, canonicalParams(params)]));
}
