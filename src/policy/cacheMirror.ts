/**
 * The newest request-cache entries of this process, oldest first, so that a cache hit reads
 * no database. An entry is put here by the commit that wrote it (or the read that found it)
 * and dropped when the cache entry is forgotten: by this process directly, by another one
 * through the store's invalidation channel (Redis pub/sub in the scale mode).
 */
import { CACHE_TTL_MS, type CachedResponse } from './policyStore.js';

/** Characters of cached bodies kept in memory. */
const MEMORY_CACHE_CHARS = 64 * 1024 * 1024;

interface Entry {
  response: CachedResponse;
  createdMs: number;
}

export function mirrorId(accountId: string, key: string): string {
  return `${accountId}\u0000${key}`;
}

export class CacheMirror {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly capacity = MEMORY_CACHE_CHARS) {}

  /** The unexpired entry, as a copy, or undefined. */
  get(id: string, nowMs: number): CachedResponse | undefined {
    const kept = this.entries.get(id);
    return kept !== undefined && kept.createdMs > nowMs - CACHE_TTL_MS ? { ...kept.response } : undefined;
  }

  /** The unexpired entry itself (never to be modified), or undefined: `get` without the copy, for a caller that copies what it reads anyway. */
  peek(id: string, nowMs: number): Readonly<CachedResponse> | undefined {
    const kept = this.entries.get(id);
    return kept !== undefined && kept.createdMs > nowMs - CACHE_TTL_MS ? kept.response : undefined;
  }

  put(id: string, response: CachedResponse, createdMs: number): void {
    this.drop(id);
    // A body too large for a fair share of memory stays in the store only.
    if (response.body.length > this.capacity / 16) return;
    this.entries.set(id, { response, createdMs });
    this.chars += response.body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.capacity) break;
      this.entries.delete(oldest);
      this.chars -= entry.response.body.length;
    }
  }

  drop(id: string): void {
    const kept = this.entries.get(id);
    if (kept === undefined) return;
    this.entries.delete(id);
    this.chars -= kept.response.body.length;
  }

  sweep(nowMs: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.createdMs <= nowMs - CACHE_TTL_MS) this.drop(id);
    }
  }
}
