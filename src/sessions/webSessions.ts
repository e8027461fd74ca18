/**
 * Dashboard sessions: an API key is exchanged once for a random session token (the cookie)
 * and never kept by the browser. The token is 32 random bytes; the store keeps its SHA-256,
 * the key's hash, the account and a per-session anti-CSRF token. Sessions expire after a
 * fixed lifetime (QUARRY_SESSION_TTL_HOURS) and end with sign-out or with their key.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Account, Accounts } from '../accounts/accounts.js';
import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/ids.js';
import type { LiveSession, SessionStore } from './sessionStore.js';

export interface OpenedSession {
  /** The cookie value: given to the browser once, stored only as its hash. */
  token: string;
  session: LiveSession;
}

/** Cookie tokens are 43 base64url characters; anything else is refused without a lookup. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export class WebSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly accounts: Pick<Accounts, 'byKey'>,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  get lifetimeSeconds(): number {
    return this.ttlSeconds;
  }

  /** Opens a session for a valid API key; undefined for an unknown or revoked key. */
  async open(key: string): Promise<OpenedSession | undefined> {
    const trimmed = key.trim();
    const account: Account | undefined = await this.accounts.byKey(trimmed);
    if (!account) return undefined;
    const now = Math.floor(this.clock.now() / 1000);
    const token = randomBytes(32).toString('base64url');
    const session = {
      tokenHash: sha256Hex(token),
      accountId: account.id,
      keyHash: sha256Hex(trimmed),
      csrfToken: randomBytes(24).toString('base64url'),
      createdAt: now,
      expiresAt: now + this.ttlSeconds,
    };
    await this.store.insert(session);
    return { token, session: { ...session, account } };
  }

  /** The live session of a cookie token, or undefined (unknown, expired, key revoked, malformed). */
  async resolve(token: string | undefined): Promise<LiveSession | undefined> {
    if (token === undefined || !TOKEN_SHAPE.test(token)) return undefined;
    return this.store.findLive(sha256Hex(token), Math.floor(this.clock.now() / 1000));
  }

  async close(token: string): Promise<void> {
    if (!TOKEN_SHAPE.test(token)) return;
    await this.store.delete(sha256Hex(token));
  }

  sweep(): Promise<number> {
    return this.store.deleteExpired(Math.floor(this.clock.now() / 1000));
  }
}

/** Whether a sent anti-CSRF token is the session's, compared in constant time. */
export function csrfMatches(session: LiveSession, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > 200) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
