/**
 * What Quarry holds from paid providers, in the state store (migration 0014): the SERPs it
 * bought, per (provider, query, UTC day), and each provider's spend per UTC day against a
 * daily budget. A spend is reserved before a call (at the call's estimated price) and
 * settled at the price the provider reports afterwards, or refunded when the call failed:
 * the providers here bill only answered requests (SerpApi: errored searches are not
 * counted; DataForSEO: a task is charged when it is set and answered), so neither do we.
 */
import { OncePerDay } from '../../lib/clock.js';
import type { Kysely } from 'kysely';
import type { StateDatabase } from '../../store/schema.js';
import { isFetchedSerp, type FetchedSerp } from './fetchedSerp.js';

/** Days a bought SERP is kept: snapshots and rank history of the last quarter can be shown again. */
export const PROVIDER_SERP_RETENTION_DAYS = 90;

export class ProviderLedger {
  private readonly pruneDay = new OncePerDay();

  constructor(private readonly db: Kysely<StateDatabase>) {}

  /** The SERP bought for a query on a day, or null. */
  async serp(provider: string, queryKey: string, day: string): Promise<FetchedSerp | null> {
    const row = await this.db
      .selectFrom('provider_serps')
      .select('body')
      .where('provider', '=', provider)
      .where('query_key', '=', queryKey)
      .where('day', '=', day)
      .executeTakeFirst();
    if (!row) return null;
    try {
      const parsed: unknown = JSON.parse(row.body);
      return isFetchedSerp(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }

  async saveSerp(provider: string, queryKey: string, day: string, serp: FetchedSerp, nowMs: number): Promise<void> {
    await this.db
      .insertInto('provider_serps')
      .values({ provider, query_key: queryKey, day, body: JSON.stringify(serp), created_ms: nowMs })
      .onConflict((oc) => oc.columns(['provider', 'query_key', 'day']).doUpdateSet({ body: JSON.stringify(serp), created_ms: nowMs }))
      .execute();
    await this.prune(day);
  }

  /**
   * Reserves `amount` dollars of a provider's budget for a day; false (nothing reserved)
   * when the day's spend would go over `budget`. One conditional UPDATE, so concurrent
   * callers in any number of processes never overspend together.
   */
  async reserve(provider: string, day: string, amount: number, budget: number): Promise<boolean> {
    await this.db
      .insertInto('provider_spend')
      .values({ provider, day, spent: 0, calls: 0 })
      .onConflict((oc) => oc.columns(['provider', 'day']).doNothing())
      .execute();
    const res = await this.db
      .updateTable('provider_spend')
      .set((eb) => ({ spent: eb('spent', '+', amount), calls: eb('calls', '+', 1) }))
      .where('provider', '=', provider)
      .where('day', '=', day)
      .where((eb) => eb(eb('spent', '+', amount), '<=', budget + 1e-9))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Replaces a reservation by what the call cost. */
  async settle(provider: string, day: string, reserved: number, actual: number): Promise<void> {
    await this.db
      .updateTable('provider_spend')
      .set((eb) => ({ spent: eb(eb('spent', '-', reserved), '+', actual) }))
      .where('provider', '=', provider)
      .where('day', '=', day)
      .execute();
  }

  /** Gives back a reservation whose call failed (the provider billed nothing). */
  async refund(provider: string, day: string, reserved: number): Promise<void> {
    await this.db
      .updateTable('provider_spend')
      .set((eb) => ({ spent: eb('spent', '-', reserved), calls: eb('calls', '-', 1) }))
      .where('provider', '=', provider)
      .where('day', '=', day)
      .execute();
  }

  /** A provider's spend and calls on a day. */
  async spend(provider: string, day: string): Promise<{ spent: number; calls: number }> {
    const row = await this.db
      .selectFrom('provider_spend')
      .select(['spent', 'calls'])
      .where('provider', '=', provider)
      .where('day', '=', day)
      .executeTakeFirst();
    return { spent: Math.max(0, Math.round((row?.spent ?? 0) * 1e6) / 1e6), calls: row?.calls ?? 0 };
  }

  /** Drops SERPs past the retention, once a day. */
  private async prune(today: string): Promise<void> {
    if (!this.pruneDay.due(today)) return;
    const cutoff = new Date(Date.parse(`${today}T00:00:00Z`) - PROVIDER_SERP_RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
    await this.db.deleteFrom('provider_serps').where('day', '<', cutoff).execute();
  }
}
