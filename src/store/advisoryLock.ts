/**
 * One holder at a time of a role across every process on one PostgreSQL database (scale
 * mode): a session-level advisory lock, held on a connection of its own for as long as this
 * process keeps it. The server drops it when that session ends in any way — the process
 * killed with -9, the host gone, the connection cut — so a standby takes over at its next
 * try and there is never a stale holder to clean up. The embedded mode's twin is the file
 * lock of dataDir.ts.
 *
 * @example
 * const lock = new AdvisoryLock(state.pool, ADVISORY_LOCKS.rankScheduler);
 * if (await lock.tryAcquire()) runTheRound();
 * await lock.release();
 */
import type pg from 'pg';

/**
 * The class of the transaction-scoped lock of one account's quota-counted writes (the object is
 * a hash of the account id; see accountLock.ts); it spells QACC.
 */
export const ACCOUNT_LOCK_CLASS = 0x51414343;

/** The advisory lock keys Quarry uses: (class, object) pairs; the class spells QRRY. */
export const ADVISORY_LOCKS = {
  rankScheduler: [0x51525259, 1],
  /** Research imports, one at a time across hosts (engine/live/importSession.ts). */
  researchImports: [0x51525259, 2],
} as const satisfies Record<string, readonly [number, number]>;

export class AdvisoryLock {
  private client: pg.PoolClient | null = null;
  private lost = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly key: readonly [number, number],
  ) {}

  /** Whether this process holds the lock now: takes it if it is free, keeps it if held. */
  async tryAcquire(): Promise<boolean> {
    if (this.client && !this.lost) {
      // Still held if its session still answers (a cut connection took the lock with it).
      const alive = await this.client.query('SELECT 1').then(
        () => true,
        () => false,
      );
      if (alive && !this.lost) return true;
    }
    this.drop();
    const client = await this.pool.connect();
    // A broken session has lost the lock with it: note it, and try again on the next call.
    client.on('error', () => {
      if (this.client === client) this.lost = true;
    });
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [...this.key]);
      if (rows[0].ok) {
        this.client = client;
        this.lost = false;
        return true;
      }
    } catch {
      // Not held: the caller stands by and tries again later.
    }
    client.release(true);
    return false;
  }

  /** Whether the lock is held on a session still open (as far as this process has heard). */
  get held(): boolean {
    return this.client !== null && !this.lost;
  }

  /** Gives the lock up (the session is closed, not returned to the pool). */
  async release(): Promise<void> {
    if (this.client && !this.lost) {
      await this.client.query('SELECT pg_advisory_unlock($1, $2)', [...this.key]).catch(() => undefined);
    }
    this.drop();
  }

  private drop(): void {
    this.client?.release(true);
    this.client = null;
    this.lost = false;
  }
}
