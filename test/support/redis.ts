/**
 * The Redis of the scale-mode tests: QUARRY_TEST_REDIS_URL (default the local server), with
 * a key prefix of its own per test process, so runs on one server never meet.
 */
import { randomUUID } from 'node:crypto';
import { openRedis, type RedisHandle } from '../../src/lib/redis.js';

export const TEST_REDIS_URL = process.env.QUARRY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other run uses. */
export function testRedisPrefix(): string {
  return `quarry-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
}

/** Opens a connection pair under `prefix`; dropKeys deletes every key of that prefix. */
export async function testRedis(prefix = testRedisPrefix()): Promise<RedisHandle & { dropKeys(): Promise<void> }> {
  const handle = await openRedis(TEST_REDIS_URL, prefix);
  return {
    ...handle,
    async dropKeys() {
      const keys = await handle.client.keys(`${prefix}*`);
      if (keys.length > 0) await handle.client.del(...keys);
    },
  };
}
