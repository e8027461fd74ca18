/**
 * Favourite-link lists: one list per account and target root domain, holding backlink ids.
 * Another account's list is as unknown as one that never existed. A provider's link (real
 * mode) is kept with a copy of its data as it was served when it was favourited: no index
 * Quarry holds can give it again (store/servedLinks.ts); a sandbox link is read from the index.
 */
import { sql, type Kysely } from 'kysely';
import { newId } from '../lib/ids.js';
import type { StateDatabase } from './schema.js';
import { lockAccount } from './accountLock.js';

export interface FavouriteList {
  _id: string;
  domain: string;
  user_id: string;
  link_ids: string[];
  created_at: number;
  updated_at: number;
}

export class Favourites {
  constructor(private readonly db: Kysely<StateDatabase>) {}

  /**
   * Marks a link of `domain` as favourite or not; returns the account's list of that domain
   * (null when un-marking a link of a domain that has no list: nothing is created). `body`: the
   * provider's link as served (JSON), kept with the favourite; a link marked again takes the copy
   * given (the link as last served to the account), so refavouriting refreshes what the list shows.
   */
  async set(accountId: string, domain: string, linkId: string, favourite: boolean, nowSec: number, body: string | null = null): Promise<FavouriteList | null> {
    const listId = await this.db.transaction().execute(async (trx) => {
      // One list per account and domain: a concurrent first mark of the same domain waits here
      // and then finds the list (PostgreSQL; SQLite runs one transaction at a time).
      await lockAccount(trx, accountId);
      let list = await trx.selectFrom('favourite_lists').select('id').where('account_id', '=', accountId).where('domain', '=', domain).executeTakeFirst();
      if (!list && !favourite) return null;
      if (!list) {
        list = { id: newId() };
        await trx.insertInto('favourite_lists').values({ id: list.id, account_id: accountId, domain, created_at: nowSec, updated_at: nowSec }).execute();
      }
      if (favourite) {
        await trx
          .insertInto('favourite_links')
          .values({ list_id: list.id, link_id: linkId, added_at: nowSec, body })
          // Marked again: its added_at (its place in the list) stays; a provider link's copy is refreshed.
          .onConflict((oc) => (body === null ? oc.doNothing() : oc.columns(['list_id', 'link_id']).doUpdateSet({ body })))
          .execute();
      } else {
        await trx.deleteFrom('favourite_links').where('list_id', '=', list.id).where('link_id', '=', linkId).execute();
      }
      await trx
        .updateTable('favourite_lists')
        .set({ updated_at: nowSec, update_seq: sql<number>`(SELECT COALESCE(MAX(update_seq), 0) + 1 FROM favourite_lists WHERE account_id = ${accountId})` })
        .where('id', '=', list.id)
        .execute();
      return list.id;
    });
    return listId === null ? null : (await this.get(accountId, listId))!;
  }

  /** The account's lists, most recently updated first (also within one second). */
  async all(accountId: string): Promise<FavouriteList[]> {
    const lists = await this.db
      .selectFrom('favourite_lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('updated_at', 'desc')
      .orderBy('update_seq', 'desc')
      .execute();
    const out: FavouriteList[] = [];
    for (const l of lists) out.push(await this.withLinks(l));
    return out;
  }

  async get(accountId: string, listId: string): Promise<FavouriteList | undefined> {
    const list = await this.db.selectFrom('favourite_lists').selectAll().where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
    return list ? this.withLinks(list) : undefined;
  }

  /** The domain of the account's list that holds the link; undefined when none does. */
  async domainHolding(accountId: string, linkId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('favourite_links')
      .innerJoin('favourite_lists', 'favourite_lists.id', 'favourite_links.list_id')
      .select('favourite_lists.domain')
      .where('favourite_lists.account_id', '=', accountId)
      .where('favourite_links.link_id', '=', linkId)
      .executeTakeFirst();
    return row?.domain;
  }

  /** The copies of the provider links a list holds (link id → JSON as served); sandbox links have none. */
  async storedLinks(listId: string): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('favourite_links').select(['link_id', 'body']).where('list_id', '=', listId).where('body', 'is not', null).execute();
    return new Map(rows.map((r) => [r.link_id, r.body!]));
  }

  /** Deletes the account's list; whether there was one (another account's list is untouched). */
  async delete(accountId: string, listId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx.selectFrom('favourite_lists').select('id').where('id', '=', listId).where('account_id', '=', accountId).executeTakeFirst();
      if (!owned) return false;
      await trx.deleteFrom('favourite_links').where('list_id', '=', listId).execute();
      await trx.deleteFrom('favourite_lists').where('id', '=', listId).execute();
      return true;
    });
  }

  private async withLinks(l: { id: string; domain: string; account_id: string; created_at: number; updated_at: number }): Promise<FavouriteList> {
    const links = await this.db.selectFrom('favourite_links').select('link_id').where('list_id', '=', l.id).orderBy('added_at').orderBy('link_id').execute();
    return { _id: l.id, domain: l.domain, user_id: l.account_id, link_ids: links.map((x) => x.link_id), created_at: l.created_at, updated_at: l.updated_at };
  }
}
