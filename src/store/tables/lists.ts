/**
 * An account's saved lists: keyword lists (keyword tool) and favourite links (link tool), with
 * the provider links served to it that a favourite may name.
 */
import type { ColumnType, Generated } from 'kysely';

/** Saved keyword lists (keyword tool). */
export interface KeywordListsTable {
  id: string;
  account_id: string;
  name: string;
  creator: string;
  created_at: number;
  updated_at: number;
  /** The keyword ids the list holds (migration 0094), kept with them: the stored-id quota sums these. */
  item_count: Generated<number>;
}

/** The keywords of a list, in the order they were added. */
export interface KeywordListItemsTable {
  list_id: string;
  keyword_id: string;
  seq: number;
}

/** Favourite-link lists: one per account and target root domain (link tool). */
export interface FavouriteListsTable {
  id: string;
  account_id: string;
  domain: string;
  created_at: number;
  updated_at: number;
  /** Order of the account's list updates: breaks ties of `updated_at`, which is in whole seconds. */
  update_seq: Generated<number>;
}

export interface FavouriteLinksTable {
  list_id: string;
  link_id: string;
  added_at: number;
  /** JSON of a provider's link as it was served when favourited (migration 0088); null for a sandbox link, read from the index. */
  body: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A backlink a link-index provider served to an account in GET /link-tool/links (store/servedLinks.ts, migration 0088). */
export interface ServedLinksTable {
  account_id: string;
  /** The link's `_id` as served (tools/link/realLinks.ts). */
  link_id: string;
  /** Root domain of the target it was served for: the favourite list it goes to. */
  domain: string;
  /** JSON of the BackLink as served. */
  body: string;
  /** When it was last served (the service's clock, ms). */
  served_ms: number;
}
