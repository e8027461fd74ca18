/**
 * Single-flight of identical paid requests: while one executes, its duplicates wait for it
 * and are then answered from its cached answer, so they execute and are charged once. The
 * embedded mode needs it inside one process only; the scale mode's store adds a claim that
 * every process sees (a Redis key), behind the same interface.
 */

/** Gives a claim back; those waiting for it go on. */
export type ReleaseFlight = () => Promise<void>;

export interface SingleFlight {
  /**
   * Claims the flight `key`: its release when it was free, or null once the holder (which
   * held it at the call) has released it; the caller then reads the cache again.
   */
  claim(key: string): Promise<ReleaseFlight | null>;
}

/** Flights of this process: a promise per claimed key, settled by its release. */
export class LocalFlights implements SingleFlight {
  private readonly held = new Map<string, Promise<void>>();

  async claim(key: string): Promise<ReleaseFlight | null> {
    const pending = this.held.get(key);
    if (pending) {
      await pending;
      return null;
    }
    return this.claimFree(key);
  }

  /** Claims a key known to be free here (no await may come between the check and this). */
  claimFree(key: string): ReleaseFlight {
    let settle!: () => void;
    this.held.set(key, new Promise<void>((resolve) => (settle = resolve)));
    return async () => {
      this.held.delete(key);
      settle();
    };
  }

  /** Whether this process holds the key. */
  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** Waits for this process's claim on the key, if any; true when there was one. */
  async waitFor(key: string): Promise<boolean> {
    const pending = this.held.get(key);
    if (!pending) return false;
    await pending;
    return true;
  }
}
