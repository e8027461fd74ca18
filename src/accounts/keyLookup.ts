/**
 * How the account of an API key is found on every authenticated request, per mode: the
 * embedded one (SQLite, its data_version), the scale mode's (PostgreSQL, invalidated through
 * Redis), and a plain query (PostgreSQL without Redis: store-level tests only). Each remembers
 * a key by the key itself, which the process holds anyway while it answers: a remembered key
 * costs no SHA-256 and no query (issue 26); the store keeps only hashes.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { sha256Hex } from '../lib/ids.js';
import type { RedisHandle } from '../lib/redis.js';
import type { StateDatabase } from '../store/schema.js';
import type { Account } from './account.js';
import type { Clock } from '../lib/clock.js';

/** How many recently used keys keep their account in memory. */
const RECENT_KEYS = 10_000;

/** Finds the account of a key (the one lookup on every authenticated request). */
export interface KeyLookup {
  /** `key` as the client sent it; the store is asked by its hash. */
  account(key: string): Promise<Account | undefined>;
  /** The account of a key this process remembers, found without waiting; undefined when not remembered (ask `account`). */
  remembered(key: string): Account | undefined;
  /**
   * This process has just changed a key or an account (revoked, plan): forget what is
   * remembered here and, where other processes remember too, tell them; resolves once told.
   */
  changed(): Promise<void>;
  /** Stops listening for other processes' changes. */
  close?(): Promise<void>;
}

/** The unrevoked key's account, by the key's hash (SQL of both dialects). */
function byHash(db: Kysely<StateDatabase>, hash: string): Promise<Account | undefined> {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['a.id', 'a.email', 'a.plan', 'a.created_at'])
    .where('k.key_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Remembers known keys' accounts, up to RECENT_KEYS (then starts over); hands out copies. */
class RecentKeys {
  private readonly accounts = new Map<string, Account>();

  get(key: string): Account | undefined {
    const known = this.accounts.get(key);
    return known === undefined ? undefined : { ...known };
  }

  set(key: string, account: Account): void {
    if (this.accounts.size >= RECENT_KEYS) this.accounts.clear();
    this.accounts.set(key, { ...account });
  }

  clear(): void {
    this.accounts.clear();
  }
}

/**
 * The embedded lookup: a prepared statement, and the accounts of recently used keys in
 * memory. Valid only while no other connection has committed (PRAGMA data_version, e.g.
 * `quarry keys revoke` in another process) and cleared by this process's own writes, so a
 * revocation or plan change made here applies to the very next request, and one made by
 * another process to every request handled a millisecond after it. Unknown keys are never
 * remembered: random keys cannot grow it.
 */
export class SqliteKeyLookup implements KeyLookup {
  private readonly byKeyHash;
  private readonly dataVersion;
  private readonly recent = new RecentKeys();
  private seenVersion: number | undefined;
  /**
   * The millisecond (of the clock) of the last data_version check: one check serves every
   * lookup of that millisecond. The check is a SQLite statement that takes the WAL's read lock
   * (two fcntl calls), ~3 µs: once per event-loop turn it was still most of what a remembered
   * key cost, a turn often holding a single request (issue 26).
   */
  private checkedAtMs: number | undefined;
  /** data_version checks made, for the tests. */
  versionChecks = 0;

  constructor(
    raw: SqliteDatabase.Database,
    private readonly clock: Clock,
  ) {
    this.byKeyHash = raw.prepare<[string], Account>(
      `SELECT a.id, a.email, a.plan, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    );
    this.dataVersion = raw.prepare<[], number>('PRAGMA data_version').pluck();
  }

  remembered(key: string): Account | undefined {
    const now = this.clock.now();
    // Any other millisecond, also an earlier one (a clock set back), checks again.
    if (now !== this.checkedAtMs) {
      this.checkedAtMs = now;
      this.versionChecks++;
      const version = this.dataVersion.get();
      if (version !== this.seenVersion) {
        this.recent.clear();
        this.seenVersion = version;
      }
    }
    return this.recent.get(key);
  }

  async account(key: string): Promise<Account | undefined> {
    const known = this.remembered(key);
    if (known) return known;
    const account = this.byKeyHash.get(sha256Hex(key));
    if (account) this.recent.set(key, account);
    return account;
  }

  async changed(): Promise<void> {
    this.recent.clear();
  }
}

/** PostgreSQL without Redis (store-level tests): one indexed query per lookup, nothing remembered. */
export class PostgresKeyLookup implements KeyLookup {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  remembered(): Account | undefined {
    return undefined;
  }

  account(key: string): Promise<Account | undefined> {
    return byHash(this.db, sha256Hex(key));
  }

  async changed(): Promise<void> {}
}

/**
 * The scale mode's lookup: known keys' accounts in each process's memory, so a cache hit reads
 * no PostgreSQL (issue 26: the key's row was read on every request, 165 µs of PostgreSQL CPU a
 * hit). Every change of a key or an account (`quarry keys revoke`, a plan change, in any
 * process) is announced on a Redis channel, and every process forgets all it remembers when the
 * announcement arrives: a revoked key is refused by every process one pub/sub hop later.
 *
 * Nothing is remembered unless this process is known to be subscribed: while the subscriber
 * connection is down (announcements made meanwhile are lost to it) every lookup reads the
 * store, and what was remembered before is forgotten. A read that an announcement (or a lost
 * connection) overtook is not remembered, as it may have read the row before the change.
 */
export class SharedKeyLookup implements KeyLookup {
  private readonly recent = new RecentKeys();
  private readonly channel: string;
  /** Bumped by every announcement, change and loss of the subscription. */
  private generation = 0;
  /** Bumped by every loss of the subscriber connection. */
  private losses = 0;
  private subscribed = false;
  /** Reads of the store, for the tests: a remembered key reads nothing. */
  storeReads = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly db: Kysely<StateDatabase>,
    private readonly redis: RedisHandle,
  ) {
    this.channel = `${redis.prefix}accounts-changed`;
    redis.subscriber.on('message', this.onMessage);
    redis.subscriber.on('close', this.onLost);
    // ioredis subscribes again by itself after a reconnection; subscribing here too tells when
    // it has happened (a second SUBSCRIBE of a channel is harmless).
    redis.subscriber.on('ready', this.subscribe);
    this.subscribe();
  }

  private readonly onMessage = (channel: string) => {
    if (channel !== this.channel) return;
    this.forget();
    for (const listener of this.listeners) listener();
  };

  private readonly onLost = () => {
    this.losses++;
    this.subscribed = false;
    this.forget();
  };

  private readonly subscribe = () => {
    const losses = this.losses;
    this.redis.subscriber.subscribe(this.channel).then(
      () => {
        // A loss in the meantime leaves it to the next 'ready'.
        if (losses === this.losses) this.subscribed = true;
      },
      () => undefined,
    );
  };

  private forget(): void {
    this.generation++;
    this.recent.clear();
  }

  /** Calls `listener` after each announcement has been applied here (tests wait on it instead of sleeping). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  remembered(key: string): Account | undefined {
    return this.subscribed ? this.recent.get(key) : undefined;
  }

  async account(key: string): Promise<Account | undefined> {
    const known = this.remembered(key);
    if (known) return known;
    const generation = this.generation;
    this.storeReads++;
    const account = await byHash(this.db, sha256Hex(key));
    if (account && this.subscribed && generation === this.generation) this.recent.set(key, account);
    return account;
  }

  async changed(): Promise<void> {
    this.forget();
    await this.redis.client.publish(this.channel, '1');
  }

  async close(): Promise<void> {
    this.subscribed = false;
    this.redis.subscriber.off('message', this.onMessage);
    this.redis.subscriber.off('close', this.onLost);
    this.redis.subscriber.off('ready', this.subscribe);
    await this.redis.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }
}
