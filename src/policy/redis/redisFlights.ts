/**
 * Single-flight across processes: a duplicate of a request another process is executing
 * waits for it instead of executing and being charged again. The claim is a Redis key set
 * only if absent (with a lease, in case its holder dies); its release is announced on a
 * channel, and waiters also look again every POLL_MS in case an announcement was missed.
 * Duplicates inside one process wait on the local claim first, so one process holds at
 * most one Redis claim per request.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisHandle } from '../../lib/redis.js';
import { LocalFlights, type ReleaseFlight, type SingleFlight } from '../singleFlight.js';
import { UNCLAIM } from './scripts.js';

/** Longest a claim holds without release: a request running longer may be executed twice. */
const LEASE_MS = 60_000;
const POLL_MS = 50;

interface ScriptedRedis extends Redis {
  quarryUnclaim(key: string, owner: string): Promise<number>;
}

export class RedisFlights implements SingleFlight {
  private readonly local = new LocalFlights();
  private readonly redis: ScriptedRedis;
  private readonly channel: string;
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly handle: RedisHandle) {
    this.redis = handle.client as ScriptedRedis;
    this.redis.defineCommand('quarryUnclaim', { numberOfKeys: 1, lua: UNCLAIM });
    this.channel = `${handle.prefix}flight-done`;
    handle.subscriber.on('message', (channel: string, key: string) => {
      if (channel !== this.channel) return;
      const waiters = this.waiting.get(key);
      if (!waiters) return;
      this.waiting.delete(key);
      for (const wake of waiters) wake();
    });
    void handle.subscriber.subscribe(this.channel);
  }

  async claim(flight: string): Promise<ReleaseFlight | null> {
    if (await this.local.waitFor(flight)) return null;
    if (this.local.holds(flight)) return null;
    const releaseLocal = this.local.claimFree(flight);
    const key = `${this.handle.prefix}flight:${createHash('sha256').update(flight).digest('base64url')}`;
    const token = randomUUID();
    try {
      if ((await this.redis.set(key, token, 'PX', LEASE_MS, 'NX')) === 'OK') {
        return async () => {
          try {
            await this.redis.quarryUnclaim(key, token);
            await this.redis.publish(this.channel, key);
          } finally {
            await releaseLocal();
          }
        };
      }
      await this.waitForRelease(key);
    } catch (err) {
      await releaseLocal();
      throw err;
    }
    await releaseLocal();
    return null;
  }

  private async waitForRelease(key: string): Promise<void> {
    for (;;) {
      const woken = new Promise<void>((resolve) => {
        let waiters = this.waiting.get(key);
        if (!waiters) this.waiting.set(key, (waiters = new Set()));
        const wake = () => {
          clearTimeout(timer);
          waiters!.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, POLL_MS);
        waiters.add(wake);
      });
      if ((await this.redis.exists(key)) === 0) return;
      await woken;
      if ((await this.redis.exists(key)) === 0) return;
    }
  }
}
