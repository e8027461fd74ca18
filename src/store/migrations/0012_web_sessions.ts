/**
 * State store migration 0012: sessions of the web dashboard (/app). A session is found by the
 * SHA-256 of its cookie token, so a copy of the database cannot be replayed as a cookie; it
 * names the API key it was opened with (by the key's hash, as api_keys stores it), so that
 * revoking the key ends the session too.
 */
import type { Kysely, Migration } from 'kysely';

export const webSessionMigrations: Record<string, Migration> = {
  '0012_web_sessions': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('web_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('expires_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('web_sessions_expires').on('web_sessions').column('expires_at').execute();
    },
  },
};
