/**
 * Client-side pacing: at most `requests` per sliding window per quota pool, so a script
 * stays inside the burst limit (3 per 30 s per pool for API keys) instead of meeting
 * `RateLimit`.
 *
 * A send is dated when its answer arrives, which is after the server admitted it: a slot
 * freed by that date plus the window is free on the server too, whatever the network's
 * delays (the server's window is inclusive, hence the extra millisecond). While in flight,
 * a send holds its slot.
 */
export interface PacingOptions {
  /** Requests per window per pool; the plan's `reqs-per-short-period` (3 on every default plan). */
  requests?: number;
  /** The window in seconds: 30 for API keys. */
  windowSeconds?: number;
}

/** How often a full window with requests still in flight is looked at again. */
const IN_FLIGHT_RECHECK_MS = 50;

export class Pacer {
  private readonly sent = new Map<string, number[]>();
  readonly requests: number;
  readonly windowMs: number;

  constructor(
    options: PacingOptions,
    private readonly now: () => number,
  ) {
    this.requests = options.requests ?? 3;
    this.windowMs = (options.windowSeconds ?? 30) * 1000;
  }

  /** How long to wait before the next send to `pool` (0: now). */
  delay(pool: string): number {
    const times = this.recent(pool);
    if (times.length < this.requests) return 0;
    const oldest = times[times.length - this.requests];
    if (oldest === Infinity) return IN_FLIGHT_RECHECK_MS;
    return Math.max(0, oldest + this.windowMs + 1 - this.now());
  }

  /**
   * Takes a slot for a send now. The returned function ends it: `counted` when the server
   * took it (dated now), not counted when it did not (a refusal, a cache hit) or it failed.
   */
  begin(pool: string): (counted: boolean) => void {
    const times = this.recent(pool);
    times.push(Infinity);
    return (counted) => {
      const i = times.indexOf(Infinity);
      if (i < 0) return;
      times.splice(i, 1);
      if (counted) {
        times.push(this.now());
        times.sort((a, b) => a - b);
      }
    };
  }

  private recent(pool: string): number[] {
    let times = this.sent.get(pool);
    if (!times) this.sent.set(pool, (times = []));
    const since = this.now() - this.windowMs - 1;
    while (times.length > 0 && times[0] < since) times.shift();
    return times;
  }
}
