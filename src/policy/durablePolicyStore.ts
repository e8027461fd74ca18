/**
 * What every policy store does alike over its durable state (durableState.ts): cache reads
 * through this process's mirror, forgetting an entry, lookups and histories. A backend adds
 * its counters (admission, commit, release, refund, pools) and, where other processes keep
 * mirrors too, how a forget reaches them.
 */
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../store/schema.js';
import { CacheMirror, mirrorId } from './cacheMirror.js';
import type { DurablePolicyState } from './durableState.js';
import type { HistoryWrite } from './history.js';
import type { CachedResponse, Commit, LookupWrite, Reservation } from './policyStore.js';

export abstract class DurablePolicyStore {
  /**
   * Unexpired request-cache entries this process wrote or read. An entry is only written by
   * commit and only removed by forget or once expired; a forget by another process reaches
   * this mirror only where the backend announces it (`forgotten`).
   */
  protected readonly memory = new CacheMirror();
  /** Forgets announced by other processes; a read that saw one arrive meanwhile is not mirrored. */
  private forgets = 0;

  constructor(protected readonly durable: DurablePolicyState) {}

  cachedInMemory(accountId: string, key: string, nowMs: number): Readonly<CachedResponse> | undefined {
    return this.memory.peek(mirrorId(accountId, key), nowMs);
  }

  async cached(accountId: string, key: string, nowMs: number): Promise<CachedResponse | null> {
    const id = mirrorId(accountId, key);
    const kept = this.memory.get(id, nowMs);
    if (kept !== undefined) return kept;
    const seen = this.forgets;
    const row = await this.durable.readCache(accountId, key, nowMs);
    if (row === undefined) return null;
    const { createdMs, ...response } = row;
    if (response.stale) return response;
    if (seen === this.forgets) this.memory.put(id, response, createdMs);
    return { ...response };
  }

  async forget(accountId: string, key: string): Promise<void> {
    const id = mirrorId(accountId, key);
    this.memory.drop(id);
    await this.durable.deleteCache(accountId, key);
    await this.announceForget(id);
  }

  /** Tells the other processes to drop an entry from their mirrors; one process alone has no one to tell. */
  protected async announceForget(_id: string): Promise<void> {}

  /** Another process forgot the entry `id`. */
  protected forgotten(id: string): void {
    this.forgets++;
    this.memory.drop(id);
  }

  /** Mirrors the answer a commit has just written. */
  protected remember(r: Reservation, c: Commit): void {
    if (!c.cache) return;
    const { key, status, contentType, body } = c.cache;
    this.memory.put(mirrorId(r.accountId, key), { status, contentType, body }, c.nowMs);
  }

  /** Drops expired entries from the mirror and the durable state. */
  protected async sweepDurable(nowMs: number): Promise<void> {
    this.memory.sweep(nowMs);
    await this.durable.sweep(nowMs);
  }

  async hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean> {
    return this.durable.hasLookup(accountId, kind, key, sinceMs);
  }

  async lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined> {
    return this.durable.lookupData(accountId, kind, key, sinceMs, nowMs);
  }

  async recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number, trx?: Kysely<StateDatabase>): Promise<void> {
    await this.durable.recordLookups(accountId, lookups, nowMs, trx);
  }

  async history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]> {
    return this.durable.history(accountId, tool);
  }
}
