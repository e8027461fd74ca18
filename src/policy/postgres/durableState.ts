/**
 * The durable half of the scale mode's policy on PostgreSQL (see ../durableState.ts): the
 * same tables and rules as the SQLite modules, each write an upsert, a commit one transaction.
 */
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../../store/schema.js';
import { HISTORY_TOOLS, type HistoryWrite } from '../history.js';
import type { Commit, LookupWrite, Reservation } from '../policyStore.js';
import type { DurablePolicyState } from '../durableState.js';
import { cacheCutoff, cacheRowOf, lookupColumns, lookupDataOf, type CacheRow } from '../durableRows.js';

export class PostgresDurableState implements DurablePolicyState {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  async readCache(accountId: string, key: string, nowMs: number): Promise<CacheRow | undefined> {
    const row = await this.db
      .selectFrom('request_cache')
      .select(['status', 'content_type as contentType', 'body', 'created_ms as createdMs', 'stale'])
      .where('account_id', '=', accountId)
      .where('cache_key', '=', key)
      .where('created_ms', '>', cacheCutoff(nowMs))
      .executeTakeFirst();
    return row === undefined ? undefined : cacheRowOf(row);
  }

  async deleteCache(accountId: string, key: string): Promise<void> {
    await this.db.deleteFrom('request_cache').where('account_id', '=', accountId).where('cache_key', '=', key).execute();
  }

  async commit(r: Reservation, c: Commit): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const write of c.writes ?? []) await write(trx);
      if (c.cache) {
        const row = { status: c.cache.status, content_type: c.cache.contentType, body: c.cache.body, created_ms: c.nowMs, stale: 0 };
        await trx
          .insertInto('request_cache')
          .values({ account_id: r.accountId, cache_key: c.cache.key, ...row })
          .onConflict((oc) => oc.columns(['account_id', 'cache_key']).doUpdateSet(row))
          .execute();
      }
      for (const h of c.history ?? []) await appendHistory(trx, r.accountId, h, c.nowMs);
      await recordLookups(trx, r.accountId, c.lookups ?? [], c.nowMs);
    });
  }

  async hasLookup(accountId: string, kind: string, key: string, sinceMs: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('lookups')
      .select('created_ms')
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('lookup_key', '=', key)
      .where('created_ms', '>=', sinceMs)
      .executeTakeFirst();
    return row !== undefined;
  }

  async lookupData(accountId: string, kind: string, key: string, sinceMs: number, nowMs: number): Promise<unknown | undefined> {
    const row = await this.db
      .selectFrom('lookups')
      .select('data')
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('lookup_key', '=', key)
      .where('created_ms', '>=', sinceMs)
      .where('expires_ms', '>', nowMs)
      .executeTakeFirst();
    return row === undefined ? undefined : lookupDataOf(row.data);
  }

  async recordLookups(accountId: string, lookups: LookupWrite[], nowMs: number, trx?: Kysely<StateDatabase>): Promise<void> {
    await recordLookups(trx ?? this.db, accountId, lookups, nowMs);
  }

  async history(accountId: string, tool: HistoryWrite['tool']): Promise<unknown[]> {
    const rows = await this.db
      .selectFrom('history')
      .select('entry')
      .where('account_id', '=', accountId)
      .where('tool', '=', tool)
      .orderBy('seq', HISTORY_TOOLS[tool].order === 'oldest-first' ? 'asc' : 'desc')
      .execute();
    return rows.map((r) => JSON.parse(r.entry));
  }

  async sweep(nowMs: number): Promise<void> {
    await this.db.deleteFrom('request_cache').where('created_ms', '<=', cacheCutoff(nowMs)).execute();
    await this.db.deleteFrom('lookups').where('expires_ms', '<=', nowMs).execute();
  }
}

async function recordLookups(db: Kysely<StateDatabase>, accountId: string, lookups: LookupWrite[], nowMs: number): Promise<void> {
  for (const l of lookups) {
    const row = lookupColumns(l, nowMs);
    await db
      .insertInto('lookups')
      .values({ account_id: accountId, kind: l.kind, lookup_key: l.key, ...row })
      .onConflict((oc) => oc.columns(['account_id', 'kind', 'lookup_key']).doUpdateSet(row))
      .execute();
  }
}

/** Appends an entry and keeps the tool's last `cap` (as the SQLite module does). */
async function appendHistory(db: Kysely<StateDatabase>, accountId: string, h: HistoryWrite, nowMs: number): Promise<void> {
  await db
    .insertInto('history')
    .values({ account_id: accountId, tool: h.tool, entry: JSON.stringify(h.entry), created_ms: nowMs })
    .execute();
  const cutoff = await db
    .selectFrom('history')
    .select('seq')
    .where('account_id', '=', accountId)
    .where('tool', '=', h.tool)
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(HISTORY_TOOLS[h.tool].cap)
    .executeTakeFirst();
  if (cutoff) await db.deleteFrom('history').where('account_id', '=', accountId).where('tool', '=', h.tool).where('seq', '<=', cutoff.seq).execute();
}
