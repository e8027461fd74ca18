/**
 * Accounts and API keys (DESIGN.md §3). A key is 32 random bytes shown once at creation
 * and stored only as its SHA-256; lookups go by hash.
 */
import { randomBytes } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { newId, sha256Hex } from '../lib/ids.js';
import type { StateDatabase } from '../store/schema.js';
import type { StateStore } from '../store/database.js';

export interface Account {
  id: string;
  email: string;
  plan: string;
  created_at: number;
}

export interface IssuedKey {
  id: string;
  accountId: string;
  /** The key itself: shown once, never stored. */
  key: string;
}

const KEY_PREFIX = 'qry_';

export class AccountError extends Error {}

/** How many recently used keys keep their account in memory. */
const RECENT_KEYS = 10_000;

/** Finds the account of a key's hash (the one query on every authenticated request). */
export interface KeyLookup {
  account(keyHash: string): Promise<Account | undefined>;
  /** Forgets whatever it remembers (this process changed a plan or revoked a key). */
  clear(): void;
}

/**
 * The embedded lookup: a prepared statement, and the accounts of recently used keys in
 * memory. Valid only while no other connection has committed (PRAGMA data_version, e.g.
 * `quarry keys revoke` in another process) and cleared by this process's own writes, so a
 * revocation or plan change applies to the very next request. Unknown keys are never
 * remembered: random keys cannot grow it.
 */
export class SqliteKeyLookup implements KeyLookup {
  private readonly byKeyHash;
  private readonly dataVersion;
  private readonly recent = new Map<string, Account>();
  private seenVersion: number | undefined;
  /**
   * Requests handled in one turn of the event loop arrived together; one data_version
   * check serves them all (the check is a SQLite statement, the costliest step of a lookup).
   */
  private versionCheckedThisTurn = false;
  private readonly endOfTurn = () => {
    this.versionCheckedThisTurn = false;
  };

  constructor(raw: SqliteDatabase.Database) {
    this.byKeyHash = raw.prepare<[string], Account>(
      `SELECT a.id, a.email, a.plan, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    );
    this.dataVersion = raw.prepare<[], number>('PRAGMA data_version').pluck();
  }

  async account(hash: string): Promise<Account | undefined> {
    if (!this.versionCheckedThisTurn) {
      this.versionCheckedThisTurn = true;
      setImmediate(this.endOfTurn);
      const version = this.dataVersion.get();
      if (version !== this.seenVersion) {
        this.recent.clear();
        this.seenVersion = version;
      }
    }
    const known = this.recent.get(hash);
    if (known) return { ...known };
    const account = this.byKeyHash.get(hash);
    if (account) {
      if (this.recent.size >= RECENT_KEYS) this.recent.clear();
      this.recent.set(hash, account);
      return { ...account };
    }
    return undefined;
  }

  clear(): void {
    this.recent.clear();
  }
}

/**
 * The scale mode's lookup: one indexed query per request and nothing remembered, since
 * PostgreSQL has no data_version and another process may revoke a key at any moment; a
 * revocation applies to the next request in every process.
 */
export class PostgresKeyLookup implements KeyLookup {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  async account(hash: string): Promise<Account | undefined> {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .select(['a.id', 'a.email', 'a.plan', 'a.created_at'])
      .where('k.key_hash', '=', hash)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  clear(): void {}
}

export class Accounts {
  private readonly db: Kysely<StateDatabase>;
  private readonly lookup: KeyLookup;

  constructor(
    state: StateStore,
    private readonly planNames: () => string[],
  ) {
    this.db = state.db;
    this.lookup = state.dialect === 'sqlite' ? new SqliteKeyLookup(state.raw) : new PostgresKeyLookup(state.db);
  }

  /** The account an API key belongs to, or undefined for an unknown or revoked key. */
  async byKey(key: string): Promise<Account | undefined> {
    if (key.length === 0 || key.length > 200) return undefined;
    return this.lookup.account(sha256Hex(key));
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
    this.lookup.clear();
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
    this.lookup.clear();
    return Number(res.numUpdatedRows) > 0;
  }

  private assertPlan(plan: string): void {
    if (!this.planNames().includes(plan)) throw new AccountError(`unknown plan "${plan}" (plans: ${this.planNames().join(', ')})`);
  }
}
