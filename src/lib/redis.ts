/**
 * The scale mode's Redis connections (QUARRY_REDIS_URL). Every key Quarry writes starts with
 * one prefix (QUARRY_REDIS_PREFIX, default `quarry:`), so several deployments, or one test
 * run each, share a server without meeting. Subscriptions need a connection of their own.
 */
import { Redis } from 'ioredis';

export interface RedisHandle {
  /** Commands. */
  client: Redis;
  /** Pub/sub only (a subscribed connection can run no other command). */
  subscriber: Redis;
  prefix: string;
  close(): Promise<void>;
}

export async function openRedis(url: string, prefix: string): Promise<RedisHandle> {
  const options = { maxRetriesPerRequest: 3, enableReadyCheck: true, lazyConnect: true };
  const client = new Redis(url, options);
  const subscriber = new Redis(url, options);
  await Promise.all([client.connect(), subscriber.connect()]);
  return {
    client,
    subscriber,
    prefix,
    async close() {
      await Promise.allSettled([client.quit(), subscriber.quit()]);
    },
  };
}
