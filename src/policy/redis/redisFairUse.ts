/**
 * Fair use in the scale mode: the free-write budget, the bulk-read slots and the live-export
 * places on Redis, shared by every process using it, so N API processes give an account one
 * budget, not N. Each decision is one Lua script (scripts.ts), so two processes can never
 * both take the last unit or slot. A slot or place belongs to its process's liveness lease
 * (the policy store's `alive:<owner>` key, 30 s, renewed every 10 s): a process that dies
 * holding one stops renewing it, and the next take drops what it held.
 */
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { RedisHandle } from '../../lib/redis.js';
import type { AccessPolicy } from '../accessPolicy.js';
import {
  BULK_READS_PER_ACCOUNT,
  LIVE_EXPORTS_PER_ACCOUNT,
  bulkRefusal,
  defaultStorageQuota,
  exportRefusal,
  freeWriteRefusal,
  type BulkReads,
  type ExportJobsView,
  type SharedFairUse,
  type FreeWrites,
  type LiveExports,
} from '../fairUse.js';
import { RedisPolicyStore } from './redisPolicyStore.js';
import { FREE_WRITE, TAKE_EXPORT, TAKE_SLOT } from './scripts.js';

interface FairRedis extends Redis {
  quarryFreeWrite(key: string, now: number, perMinute: number, units: number): Promise<[1] | [0, number]>;
  quarryTakeSlot(key: string, limit: number, token: string, owner: string, alivePrefix: string): Promise<number>;
  quarryTakeExport(key: string, limit: number, jobId: string, owner: string, alivePrefix: string, live: string, settled: string): Promise<number>;
}

/** Who holds slots: this process's id and where every process's liveness lease lives. */
interface Holder {
  owner: string;
  alivePrefix: string;
}

class RedisFreeWrites implements FreeWrites {
  constructor(
    private readonly redis: FairRedis,
    private readonly prefix: string,
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  async spend(accountId: string, units: number): Promise<void> {
    if (this.perMinute <= 0) return;
    const reply = await this.redis.quarryFreeWrite(`${this.prefix}fair:writes:${accountId}`, this.clock.now(), this.perMinute, units);
    if (reply[0] === 0) throw freeWriteRefusal(this.perMinute, reply[1]);
  }
}

class RedisBulkSlots implements BulkReads {
  constructor(
    private readonly redis: FairRedis,
    private readonly prefix: string,
    private readonly holder: Holder,
    readonly perAccount: number,
  ) {}

  async take(accountId: string): Promise<() => void> {
    const key = `${this.prefix}fair:bulk:${accountId}`;
    const token = randomUUID();
    if ((await this.redis.quarryTakeSlot(key, this.perAccount, token, this.holder.owner, this.holder.alivePrefix)) === 0) throw bulkRefusal(this.perAccount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Lost on a Redis failure, the slot goes with this process's lease at the latest.
      void this.redis.hdel(key, token).catch(() => undefined);
    };
  }
}

class RedisExportPlaces implements LiveExports {
  constructor(
    private readonly redis: FairRedis,
    private readonly prefix: string,
    private readonly holder: Holder,
    readonly perAccount: number,
    private readonly jobs: ExportJobsView,
  ) {}

  async take(accountId: string, jobId: string): Promise<() => void> {
    const key = `${this.prefix}fair:exports:${accountId}`;
    // Which places are finished is read from the queue before the script; finished is for
    // good, so a stale read only leaves a place to the next take. The live ids may be stale
    // too, in the safe direction: a job stored since still has its place in the hash.
    const placed = await this.redis.hkeys(key);
    const [settled, live] = await Promise.all([this.jobs.settledIds(placed), this.jobs.liveIds(accountId)]);
    const taken = await this.redis.quarryTakeExport(
      key,
      this.perAccount,
      jobId,
      this.holder.owner,
      this.holder.alivePrefix,
      JSON.stringify(live),
      JSON.stringify(settled),
    );
    if (taken === 0) throw exportRefusal(this.perAccount);
    return () => void this.redis.hdel(key, jobId).catch(() => undefined);
  }
}

/** The scale mode's fair use, on the Redis of `policy` (which must run on RedisPolicyStore). */
export function redisFairUse(handle: RedisHandle, policy: AccessPolicy, freeWritesPerMinute: number, clock: Clock, jobs: ExportJobsView): SharedFairUse {
  const store = policy.store;
  if (!(store instanceof RedisPolicyStore)) throw new Error('the shared fair-use counters need the Redis policy store');
  const redis = handle.client as FairRedis;
  // defineCommand is idempotent per name; every context on one connection shares the scripts.
  redis.defineCommand('quarryFreeWrite', { numberOfKeys: 1, lua: FREE_WRITE });
  redis.defineCommand('quarryTakeSlot', { numberOfKeys: 1, lua: TAKE_SLOT });
  redis.defineCommand('quarryTakeExport', { numberOfKeys: 1, lua: TAKE_EXPORT });
  const holder: Holder = { owner: store.owner, alivePrefix: store.aliveKeyPrefix };
  return {
    writes: new RedisFreeWrites(redis, handle.prefix, freeWritesPerMinute, clock),
    bulk: new RedisBulkSlots(redis, handle.prefix, holder, BULK_READS_PER_ACCOUNT),
    exports: new RedisExportPlaces(redis, handle.prefix, holder, LIVE_EXPORTS_PER_ACCOUNT, jobs),
    storage: defaultStorageQuota(),
  };
}
