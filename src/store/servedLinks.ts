/**
 * The backlinks a link-index provider served to an account (migration 0088). In real mode a
 * link's `_id` (tools/link/realLinks.ts) names no row of any index Quarry holds: it is what
 * GET /link-tool/links answered. The favourite operation takes "the `_id` of a link from
 * `/link-tool/links`" (the contract's link tool), so each link an account was served is kept
 * here, under that account, with the data it was served with and the root domain of the target
 * it was served for (the favourite list it belongs to). A link id the account was never served
 * is unknown to it, another account's included: favouriting it answers null (link-tool rule 2)
 * and cannot reveal a link someone else paid for.
 *
 * A served link is kept SERVED_LINK_RETENTION_MS after it was last served; a favourite keeps its
 * own copy (store/favourites.ts), so pruning never empties a list.
 *
 * @example
 * const served = new ServedLinks(state.db);
 * await served.record(accountId, 'starbucks.com', page.links, clock.now());
 * const link = await served.find(accountId, page.links[0]._id); // { domain: 'starbucks.com', body: '{"_id":…}' }
 */
import type { Kysely } from 'kysely';
import { DAY, OncePerDay } from '../lib/clock.js';
import type { StateDatabase } from './schema.js';

/** How long a served link can be favourited after it was last served (the provider answers' longest retention). */
export const SERVED_LINK_RETENTION_MS = 30 * DAY;
/** Rows per statement: 5 parameters each, under SQLite's and PostgreSQL's limits. */
const CHUNK = 200;

export interface ServedLink {
  domain: string;
  /** JSON of the BackLink as served. */
  body: string;
}

export class ServedLinks {
  private readonly pruneDay = new OncePerDay();

  constructor(private readonly db: Kysely<StateDatabase>) {}

  /** Records the links of one answer as served to the account now (a link served again takes its latest data). */
  async record(accountId: string, domain: string, links: readonly { _id: string }[], nowMs: number): Promise<void> {
    const unique = new Map(links.map((l) => [l._id, l]));
    const rows = [...unique.values()].map((l) => ({ account_id: accountId, link_id: l._id, domain, body: JSON.stringify(l), served_ms: nowMs }));
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db
        .insertInto('served_links')
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) =>
          oc.columns(['account_id', 'link_id']).doUpdateSet((eb) => ({
            domain: eb.ref('excluded.domain'),
            body: eb.ref('excluded.body'),
            served_ms: eb.ref('excluded.served_ms'),
          })),
        )
        .execute();
    }
    await this.prune(nowMs);
  }

  /** The link as it was last served to this account; undefined when it never was (or too long ago). */
  async find(accountId: string, linkId: string, nowMs: number): Promise<ServedLink | undefined> {
    return this.db
      .selectFrom('served_links')
      .select(['domain', 'body'])
      .where('account_id', '=', accountId)
      .where('link_id', '=', linkId)
      .where('served_ms', '>=', nowMs - SERVED_LINK_RETENTION_MS)
      .executeTakeFirst();
  }

  /** Drops links served longer ago than the retention, once a day. */
  private async prune(nowMs: number): Promise<void> {
    if (!this.pruneDay.due(nowMs)) return;
    await this.db
      .deleteFrom('served_links')
      .where('served_ms', '<', nowMs - SERVED_LINK_RETENTION_MS)
      .execute();
  }
}
