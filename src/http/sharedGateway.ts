/**
 * The gateway limit shared by every API process (scale mode): the same sliding second per
 * client IP as GatewayLimiter, kept on Redis by one Lua script per request, so N processes
 * behind a load balancer admit `rps` per second per address in total, not N × rps.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import type { RedisHandle } from '../lib/redis.js';
import { GATEWAY } from '../policy/redis/scripts.js';

interface ScriptedRedis extends Redis {
  quarryGateway(key: string, now: number, rps: number, member: string): Promise<number>;
}

export class SharedGatewayLimiter {
  private readonly redis: ScriptedRedis;
  private readonly process = randomUUID();
  private seq = 0;

  constructor(
    private readonly rps: number,
    private readonly clock: Clock,
    private readonly handle: RedisHandle,
  ) {
    this.redis = handle.client as ScriptedRedis;
    this.redis.defineCommand('quarryGateway', { numberOfKeys: 1, lua: GATEWAY });
  }

  get enabled(): boolean {
    return this.rps > 0;
  }

  async admit(ip: string): Promise<boolean> {
    if (this.rps <= 0) return true;
    const member = `${this.process}:${++this.seq}`;
    return (await this.redis.quarryGateway(`${this.handle.prefix}gateway:${ip}`, this.clock.now(), this.rps, member)) === 1;
  }
}
