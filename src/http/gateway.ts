import type { Clock } from '../lib/clock.js';

/**
 * The gateway limit: at most `rps` requests per second per client IP, over a sliding
 * 1-second window that is inclusive like the burst windows ([t − 1 s, t]). Refused
 * requests are not recorded, so a client that backs off gets through again.
 */
export class GatewayLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly rps: number,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.rps > 0;
  }

  admit(ip: string): boolean {
    if (this.rps <= 0) return true;
    const now = this.clock.now();
    const from = now - 1000;
    let times = this.hits.get(ip);
    if (times === undefined) {
      times = [];
      this.hits.set(ip, times);
    }
    while (times.length > 0 && times[0] < from) times.shift();
    if (times.length >= this.rps) return false;
    times.push(now);
    this.sweep(now);
    return true;
  }

  /** Forgets addresses that have been quiet for a while, so the map cannot grow without end. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    for (const [ip, times] of this.hits) {
      if (times.length === 0 || times[times.length - 1] < now - 1000) this.hits.delete(ip);
    }
  }
}
