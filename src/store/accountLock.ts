/**
 * One writer at a time per account for the writes an account's limits count: the list and
 * stored-id limits, the rank tool's storage quota and plan limit, favourite lists, AI answer
 * monitors. Each such write counts what the account holds and inserts in one transaction; on
 * SQLite that is exact by itself (an IMMEDIATE transaction is the only writer of the file), but
 * PostgreSQL runs transactions side by side in READ COMMITTED, where two counts taken at once
 * both see room and both insert (10,006 lists of a 10,000 limit, issue 28).
 *
 * On PostgreSQL the transaction first takes `pg_advisory_xact_lock(QACC, hashtext(account))`:
 * a concurrent write of the same account waits at that statement until this one commits or
 * rolls back (the server drops the lock then, whatever becomes of the process), and its count,
 * a statement begun after the commit, sees what this one wrote. An advisory lock rather than
 * `SELECT … FOR UPDATE` on the account row: it needs no row (stores are used with bare
 * account ids in tests and tools), blocks nothing else that reads or updates the account, and
 * two accounts whose ids share a hash merely take turns. Taken as the transaction's first
 * statement, before any row lock, so that two such transactions never wait on each other's rows.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await lockAccount(trx, accountId);
 *   // count, then insert
 * });
 */
import { sql, type Kysely } from 'kysely';
import type { StateDatabase } from './schema.js';
import { ACCOUNT_LOCK_CLASS } from './advisoryLock.js';
import { isPostgres } from './database.js';

export async function lockAccount(trx: Kysely<StateDatabase>, accountId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`SELECT pg_advisory_xact_lock(${ACCOUNT_LOCK_CLASS}::int, hashtext(${accountId}))`.execute(trx);
}
