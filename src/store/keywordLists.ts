/**
 * Saved keyword lists: an account holds up to 10,000 lists of up to 10,000 keywords.
 * Keyword data lives in the research store; a list holds only keyword ids, so deleting a
 * list never touches keyword data.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { newId } from '../lib/ids.js';
import type { StateDatabase } from './schema.js';
import type { KeywordListsTable } from './tables/lists.js';
import { lockAccount } from './accountLock.js';

export const MAX_LISTS_PER_ACCOUNT = 10_000;
export const MAX_KEYWORDS_PER_LIST = 10_000;

export interface KeywordListRecord {
  _id: string;
  name: string;
  keyword_ids: string[];
  user_id: string;
  creator: string;
  created_at: number;
  updated_at: number;
}

/**
 * Which of the given ids a list may store (the others are dropped silently). The limit
 * counts the ids as sent, before this filter: whether a request fits does not depend on
 * which of its ids happen to be known, and a request too large is refused before any
 * id is looked up.
 */
export type StorableIds = (ids: readonly string[]) => string[];

const storeAll: StorableIds = (ids) => [...ids];

export class ListLimitError extends Error {
  constructor(
    readonly limit: 'lists' | 'keywords' | 'storage',
    message: string,
  ) {
    super(message);
  }
}

export class KeywordLists {
  constructor(
    private readonly db: Kysely<StateDatabase>,
    /** Keyword ids one account may keep across all its lists (fair use; see policy/fairUse.ts). */
    private readonly maxStoredIds = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Creates a list with the storable ids; throws ListLimitError past 10,000 lists or when
   * more than 10,000 distinct ids are sent.
   */
  async create(accountId: string, name: string, keywordIds: readonly string[], nowSec: number, storable = storeAll): Promise<KeywordListRecord> {
    const sent = distinct(keywordIds);
    if (sent.length > MAX_KEYWORDS_PER_LIST) throw keywordLimit();
    const ids = storable(sent);
    const id = newId();
    // The account's lock (PostgreSQL; SQLite runs one IMMEDIATE transaction at a time): the
    // counts and the insert cannot interleave with another write of the same account.
    await this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      await checkStorage(trx, accountId, ids.length, this.maxStoredIds);
      const { n } = await trx
        .selectFrom('keyword_lists')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= MAX_LISTS_PER_ACCOUNT) {
        throw new ListLimitError('lists', `An account holds at most ${MAX_LISTS_PER_ACCOUNT} lists`);
      }
      await trx
        .insertInto('keyword_lists')
        .values({ id, account_id: accountId, name, creator: accountId, created_at: nowSec, updated_at: nowSec, item_count: ids.length })
        .execute();
      await insertItems(trx, id, ids, 0);
    });
    return { _id: id, name, keyword_ids: ids, user_id: accountId, creator: accountId, created_at: nowSec, updated_at: nowSec };
  }

  /**
   * The account's lists without their keyword ids, oldest first, `perPage` at a time. An
   * account may hold 10,000 lists of 10,000 ids (hundreds of megabytes as JSON): an answer
   * reads each list's ids with keywordIdPages, never all at once. Each page is its own query,
   * so no statement stays open on the shared connection between pages.
   */
  async *listPages(accountId: string, perPage = 100): AsyncGenerator<KeywordListRecord[]> {
    let after: { created_at: number; rid: number } | null = null;
    for (;;) {
      const cursor: { created_at: number; rid: number } | null = after;
      const lists: (Selectable<KeywordListsTable> & { rid: number })[] = await this.db
        .selectFrom('keyword_lists')
        .selectAll()
        .select(sql<number>`rowid`.as('rid'))
        .where('account_id', '=', accountId)
        .$if(cursor !== null, (qb) =>
          qb.where((eb) =>
            eb.or([eb('created_at', '>', cursor!.created_at), eb.and([eb('created_at', '=', cursor!.created_at), eb(sql<number>`rowid`, '>', cursor!.rid)])]),
          ),
        )
        .orderBy('created_at')
        .orderBy(sql`rowid`)
        .limit(perPage)
        .execute();
      if (lists.length === 0) return;
      yield lists.map((l) => record(l, []));
      const last: { created_at: number; rid: number } = lists[lists.length - 1];
      after = { created_at: last.created_at, rid: last.rid };
    }
  }

  /** A list's keyword ids in their order, at most `size` per page (each page one query). */
  async *keywordIdPages(listId: string, size = 2_000): AsyncGenerator<string[]> {
    let afterSeq = -1;
    for (;;) {
      const rows = await this.db
        .selectFrom('keyword_list_items')
        .select(['keyword_id', 'seq'])
        .where('list_id', '=', listId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(size)
        .execute();
      if (rows.length === 0) return;
      yield rows.map((r) => r.keyword_id);
      if (rows.length < size) return;
      afterSeq = rows[rows.length - 1].seq;
    }
  }

  /** Every list of the account, oldest first, with its keyword ids. */
  async all(accountId: string): Promise<KeywordListRecord[]> {
    const lists = await this.db
      .selectFrom('keyword_lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      // Ids are random: within one second, rowid keeps the order of creation.
      .orderBy(sql`rowid`)
      .execute();
    if (lists.length === 0) return [];
    const items = await this.db
      .selectFrom('keyword_list_items')
      .innerJoin('keyword_lists', 'keyword_lists.id', 'keyword_list_items.list_id')
      .select(['keyword_list_items.list_id', 'keyword_list_items.keyword_id'])
      .where('keyword_lists.account_id', '=', accountId)
      .orderBy('keyword_list_items.list_id')
      .orderBy('keyword_list_items.seq')
      .execute();
    const byList = keywordIdsByList(items);
    return lists.map((l) => record(l, byList.get(l.id) ?? []));
  }

  /** One list of the account, or undefined (also for another account's list). */
  async get(accountId: string, listId: string): Promise<KeywordListRecord | undefined> {
    const list = await this.db.selectFrom('keyword_lists').selectAll().where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
    if (!list) return undefined;
    const items = await this.db.selectFrom('keyword_list_items').select('keyword_id').where('list_id', '=', listId).orderBy('seq').execute();
    return record(
      list,
      items.map((i) => i.keyword_id),
    );
  }

  async rename(accountId: string, listId: string, name: string, nowSec: number): Promise<boolean> {
    const res = await this.db
      .updateTable('keyword_lists')
      .set({ name, updated_at: nowSec })
      .where('id', '=', listId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async delete(accountId: string, listId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx.selectFrom('keyword_lists').select('id').where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
      if (!owned) return false;
      await trx.deleteFrom('keyword_list_items').where('list_id', '=', listId).execute();
      await trx.deleteFrom('keyword_lists').where('id', '=', listId).execute();
      return true;
    });
  }

  /**
   * Adds the storable ids (already present ones silently); false for an unknown list. Throws
   * ListLimitError when the present ids and the new ones sent exceed 10,000 (nothing is added).
   */
  async addKeywords(accountId: string, listId: string, keywordIds: readonly string[], nowSec: number, storable = storeAll): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await lockAccount(trx, accountId);
      const owned = await trx.selectFrom('keyword_lists').select('id').where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
      if (!owned) return false;
      const existing = await trx.selectFrom('keyword_list_items').select(['keyword_id', 'seq']).where('list_id', '=', listId).execute();
      const present = new Set(existing.map((e) => e.keyword_id));
      const fresh = distinct(keywordIds).filter((id) => !present.has(id));
      if (present.size + fresh.length > MAX_KEYWORDS_PER_LIST) throw keywordLimit();
      const nextSeq = existing.reduce((m, e) => Math.max(m, e.seq + 1), 0);
      const stored = storable(fresh);
      await checkStorage(trx, accountId, stored.length, this.maxStoredIds);
      await insertItems(trx, listId, stored, nextSeq);
      await trx
        .updateTable('keyword_lists')
        .set((eb) => ({ updated_at: nowSec, item_count: eb('item_count', '+', stored.length) }))
        .where('id', '=', listId)
        .execute();
      return true;
    });
  }

  /** Removes keywords (absent ones silently); false for an unknown list. */
  async removeKeywords(accountId: string, listId: string, keywordIds: readonly string[], nowSec: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx.selectFrom('keyword_lists').select('id').where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
      if (!owned) return false;
      const ids = distinct(keywordIds);
      let removed = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const res = await trx
          .deleteFrom('keyword_list_items')
          .where('list_id', '=', listId)
          .where('keyword_id', 'in', ids.slice(i, i + 500))
          .executeTakeFirst();
        removed += Number(res.numDeletedRows);
      }
      await trx
        .updateTable('keyword_lists')
        .set((eb) => ({ updated_at: nowSec, item_count: eb('item_count', '-', removed) }))
        .where('id', '=', listId)
        .execute();
      return true;
    });
  }
}

/**
 * Refuses a write that would take the account's lists past `max` stored keyword ids in all.
 * Counted inside the write's transaction, under the account's lock (IMMEDIATE on SQLite), so
 * concurrent writes cannot both fit. The sum of the lists' own counts (`item_count`, kept in
 * the transactions that change their ids): counting the item rows read up to 1,000,000 of
 * them on every write, 100–450 ms with the event loop held (issue 28).
 */
async function checkStorage(trx: Kysely<StateDatabase>, accountId: string, adding: number, max: number): Promise<void> {
  if (adding === 0 || !Number.isFinite(max)) return;
  const { n } = await trx
    .selectFrom('keyword_lists')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('item_count'), eb.lit(0)).as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (Number(n) + adding > max) {
    throw new ListLimitError(
      'storage',
      `An account stores at most ${max.toLocaleString('en-US')} keyword ids across its lists (${Number(n).toLocaleString('en-US')} stored); delete lists or keywords to make room`,
    );
  }
}

function keywordLimit(): ListLimitError {
  return new ListLimitError('keywords', `A list holds at most ${MAX_KEYWORDS_PER_LIST} keywords`);
}

function distinct(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

async function insertItems(trx: Kysely<StateDatabase>, listId: string, ids: readonly string[], firstSeq: number): Promise<void> {
  // SQLite accepts at most 32,766 bound parameters per statement: 3 per row, 1,000 rows a go.
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = ids.slice(i, i + 1000).map((keyword_id, j) => ({ list_id: listId, keyword_id, seq: firstSeq + i + j }));
    await trx.insertInto('keyword_list_items').values(rows).execute();
  }
}

function record(
  l: { id: string; name: string; account_id: string; creator: string; created_at: number; updated_at: number },
  keywordIds: string[],
): KeywordListRecord {
  return {
    _id: l.id,
    name: l.name,
    keyword_ids: keywordIds,
    user_id: l.account_id,
    creator: l.creator,
    created_at: l.created_at,
    updated_at: l.updated_at,
  };
}

/** Keyword ids per list, in each list's order, from item rows ordered by list and position. */
function keywordIdsByList(items: readonly { list_id: string; keyword_id: string }[]): Map<string, string[]> {
  const byList = new Map<string, string[]>();
  for (const item of items) {
    let ids = byList.get(item.list_id);
    if (!ids) byList.set(item.list_id, (ids = []));
    ids.push(item.keyword_id);
  }
  return byList;
}
