/** Dashboard sessions in the state store, through Kysely (portable SQL, no SQLite-only syntax). */
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../store/schema.js';
import type { LiveSession, SessionRecord, SessionStore } from './sessionStore.js';

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  async insert(s: SessionRecord): Promise<void> {
    await this.db
      .insertInto('web_sessions')
      .values({
        token_hash: s.tokenHash,
        account_id: s.accountId,
        key_hash: s.keyHash,
        csrf_token: s.csrfToken,
        created_at: s.createdAt,
        expires_at: s.expiresAt,
      })
      .execute();
  }

  async findLive(tokenHash: string, nowSec: number): Promise<LiveSession | undefined> {
    const row = await this.db
      .selectFrom('web_sessions as s')
      // The key must still exist unrevoked: revoking it closes every session opened with it.
      .innerJoin('api_keys as k', (j) => j.onRef('k.key_hash', '=', 's.key_hash').on('k.revoked_at', 'is', null))
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .select([
        's.token_hash',
        's.account_id',
        's.key_hash',
        's.csrf_token',
        's.created_at',
        's.expires_at',
        'a.email',
        'a.plan',
        'a.created_at as account_created_at',
      ])
      .where('s.token_hash', '=', tokenHash)
      .where('s.expires_at', '>', nowSec)
      // A key hash names one account; the check keeps a session from crossing accounts anyway.
      .whereRef('k.account_id', '=', 's.account_id')
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      tokenHash: row.token_hash,
      accountId: row.account_id,
      keyHash: row.key_hash,
      csrfToken: row.csrf_token,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      account: { id: row.account_id, email: row.email, plan: row.plan, created_at: row.account_created_at },
    };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('web_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async deleteExpired(nowSec: number): Promise<number> {
    const res = await this.db.deleteFrom('web_sessions').where('expires_at', '<=', nowSec).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
