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
  // What a failed connect met (ECONNREFUSED…); connect() itself rejects with "Connection is closed".
  let failure: unknown = null;
  const onError = (err: unknown) => (failure ??= err);
  client.on('error', onError);
  subscriber.on('error', onError);
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
  } catch (err) {
    // ioredis keeps reconnecting a connection whose first connect failed (its timers hold the
    // process open for ever): both are dropped, the one that did connect too.
    client.disconnect();
    subscriber.disconnect();
    throw failure ?? err;
  } finally {
    client.off('error', onError);
    subscriber.off('error', onError);
  }
  return {
    client,
    subscriber,
    prefix,
    async close() {
      await Promise.allSettled([client.quit(), subscriber.quit()]);
    },
  };
}
