/**
 * Accounts and API keys (DESIGN.md §3). A key is 32 random bytes shown once at creation
 * and stored only as its SHA-256; lookups go by hash.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId, sha256Hex } from '../lib/ids.js';
import type { StateDatabase } from '../store/schema.js';
import type { StateStore } from '../store/database.js';
import type { RedisHandle } from '../lib/redis.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { PostgresKeyLookup, SharedKeyLookup, SqliteKeyLookup, type KeyLookup } from './keyLookup.js';

import type { Account } from './account.js';

export type { Account };

export interface IssuedKey {
  id: string;
  accountId: string;
  /** The key itself: shown once, never stored. */
  key: string;
}

const KEY_PREFIX = 'qry_';

export class AccountError extends Error {}

export class Accounts {
  private readonly db: Kysely<StateDatabase>;
  private readonly lookup: KeyLookup;

  constructor(
    state: StateStore,
    private readonly planNames: () => string[],
    /** The scale mode's Redis: keys are remembered in each process and changes announced there. */
    redis: RedisHandle | null = null,
    /** When a change by another process must show (the embedded mode checks once per millisecond of it). */
    clock: Clock = systemClock,
  ) {
    this.db = state.db;
    this.lookup =
      state.dialect === 'sqlite' ? new SqliteKeyLookup(state.raw, clock) : redis ? new SharedKeyLookup(state.db, redis) : new PostgresKeyLookup(state.db);
  }

  /** The key lookup, for tests (how often it read the store, when a change arrived). */
  get keyLookup(): KeyLookup {
    return this.lookup;
  }

  /** Stops listening for other processes' changes (before the Redis connections close). */
  async close(): Promise<void> {
    await this.lookup.close?.();
  }

  /** The account an API key belongs to, or undefined for an unknown or revoked key. */
  async byKey(key: string): Promise<Account | undefined> {
    if (key.length === 0 || key.length > 200) return undefined;
    return this.lookup.account(key);
  }

  /** byKey's answer when this process remembers the key (no waiting), else undefined: then ask byKey. */
  byKeyNow(key: string): Account | undefined {
    return key.length === 0 || key.length > 200 ? undefined : this.lookup.remembered(key);
  }

  async create(email: string, plan: string, nowSec: number): Promise<Account> {
    this.assertPlan(plan);
    const normalised = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(normalised)) throw new AccountError(`"${email}" is not an email address`);
    const existing = await this.db.selectFrom('accounts').select('id').where('email', '=', normalised).executeTakeFirst();
    if (existing) throw new AccountError(`an account with email ${normalised} exists already (${existing.id})`);
    const account: Account = { id: newId(), email: normalised, plan, created_at: nowSec };
    await this.db.insertInto('accounts').values(account).execute();
    return account;
  }

  async get(id: string): Promise<Account | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** An account by id or by email. */
  async find(idOrEmail: string): Promise<Account | undefined> {
    const v = idOrEmail.trim().toLowerCase();
    return this.db
      .selectFrom('accounts')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', v), eb('email', '=', v)]))
      .executeTakeFirst();
  }

  async list(): Promise<(Account & { keys: number })[]> {
    return this.db
      .selectFrom('accounts')
      .leftJoin('api_keys', (j) => j.onRef('api_keys.account_id', '=', 'accounts.id').on('api_keys.revoked_at', 'is', null))
      .select(['accounts.id', 'accounts.email', 'accounts.plan', 'accounts.created_at'])
      .select((eb) => eb.fn.count<number>('api_keys.id').as('keys'))
      .groupBy('accounts.id')
      .orderBy('accounts.created_at')
      .execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setPlan(accountId: string, plan: string): Promise<void> {
    this.assertPlan(plan);
    const res = await this.db.updateTable('accounts').set({ plan }).where('id', '=', accountId).executeTakeFirst();
    await this.lookup.changed();
    if (Number(res.numUpdatedRows) === 0) throw new AccountError(`no account ${accountId}`);
  }

  async createKey(accountId: string, nowSec: number, label: string | null = null): Promise<IssuedKey> {
    if (!(await this.get(accountId))) throw new AccountError(`no account ${accountId}`);
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = newId();
    await this.db
      .insertInto('api_keys')
      .values({ id, account_id: accountId, key_hash: sha256Hex(key), prefix: key.slice(0, 10), label, created_at: nowSec, revoked_at: null })
      .execute();
    return { id, accountId, key };
  }

  async listKeys(accountId: string) {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'prefix', 'label', 'created_at', 'revoked_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .execute();
  }

  /** Revokes a key by its id or by the key itself. */
  async revokeKey(idOrKey: string, nowSec: number): Promise<boolean> {
    const res = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowSec })
      .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key_hash', '=', sha256Hex(idOrKey))]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await this.lookup.changed();
    return Number(res.numUpdatedRows) > 0;
  }

  private assertPlan(plan: string): void {
    if (!this.planNames().includes(plan)) throw new AccountError(`unknown plan "${plan}" (plans: ${this.planNames().join(', ')})`);
  }
}
