/**
 * Every time-dependent decision in Quarry reads an injected Clock, so that tests can
 * drive windows, periods and expiries with a fake clock instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Unix seconds (integer) for a millisecond timestamp, as the API's `created`, `ts`, ... fields. */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * Says yes once per UTC day (given as `YYYY-MM-DD` or as epoch milliseconds): housekeeping such
 * as pruning old rows that a write path runs at most daily, not on every write.
 */
export class OncePerDay {
  private last = '';
  due(now: string | number): boolean {
    const today = typeof now === 'string' ? now : new Date(now).toISOString().slice(0, 10);
    if (today <= this.last) return false;
    this.last = today;
    return true;
  }
}
