/**
 * Where dashboard sessions live. Async on purpose: the state store has a SQLite
 * implementation today and gains a PostgreSQL one, and sessions must follow it without
 * touching the code that opens, checks and closes them (webSessions.ts).
 */
import type { Account } from '../accounts/accounts.js';

export interface SessionRecord {
  /** SHA-256 (hex) of the cookie token; the token itself is never stored. */
  tokenHash: string;
  accountId: string;
  /** SHA-256 (hex) of the API key the session was opened with. */
  keyHash: string;
  csrfToken: string;
  /** Unix seconds. */
  createdAt: number;
  /** Unix seconds; the session is refused from this second on. */
  expiresAt: number;
}

export interface LiveSession extends SessionRecord {
  account: Account;
}

export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  /**
   * The session of a token hash with its account, when it has not expired at `nowSec` and the
   * key it was opened with is still valid; undefined otherwise.
   */
  findLive(tokenHash: string, nowSec: number): Promise<LiveSession | undefined>;
  delete(tokenHash: string): Promise<void>;
  /** Removes sessions expired at `nowSec`; returns how many. */
  deleteExpired(nowSec: number): Promise<number>;
}
