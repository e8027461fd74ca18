/**
 * One difficulty per keyword, market and UTC day, read by every tool (related keywords,
 * competitor keywords, gap analysis, lists and exports, the SERP tool, the keyword tool's
 * SERPs, rank checks). It is a stored value (state store, migration 0045), not a number each
 * tool computes again: the first difficulty computed on a day is written, and whatever
 * process or tool asks later that day reads it. Computations could otherwise disagree — a
 * rank index ranked before an import and a SERP ranked after it, two hosts holding different
 * research generations, a provider's SERP against the sandbox's ranking.
 *
 * Who may write: in the sandbox (SERP source `sandbox`) the research engine's difficulty, which
 * is computed one way everywhere (search/searchEngine.ts, difficultyOf); with a SERP provider,
 * only SERPs fetched from it, with the link metrics of the results, since the sandbox web's
 * ranking says nothing about the real one. A keyword whose day has no entry shows the latest
 * earlier one (its `seo_ts` says when it was computed), else null.
 *
 * @example
 * const book = new DifficultyBook(state.db, clock, (id) => search.marketOf(id));
 * await book.settleItems(related.keywords, { accept: true });
 * const serp = await book.settleSerp(await search.serp(query), day, { accept: true });
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../lib/clock.js';
import type { StateDatabase } from '../../store/schema.js';
import { DEFAULT_SERP_LOCATION } from '../search/searchEngine.js';
import type { Serp } from '../search/serpTypes.js';

export interface Difficulty {
  seo: number;
  /** When it was computed, Unix seconds. */
  ts: number;
}

export interface SettleOptions {
  /** Whether the computed values may become the day's (see the file comment). */
  accept: boolean;
  /** YYYY-MM-DD; default the clock's day. */
  day?: string;
}

/** Days an entry is kept: a keyword nobody asked about for a quarter is computed again. */
export const DIFFICULTY_RETENTION_DAYS = 90;
/** Keywords per query (SQLite's and PostgreSQL's parameter limits are far above). */
const CHUNK = 500;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class DifficultyBook {
  private lastPruneDay = '';

  constructor(
    private readonly db: Kysely<StateDatabase>,
    private readonly clock: Clock,
    /** The market (country) of a location; 0 (anywhere) is answered as the default engine's. */
    private readonly marketOf: (locationId: number) => number,
  ) {}

  /** The market a difficulty is kept under: a city counts as its country, anywhere as 2840. */
  marketKey(locationId: number): number {
    return this.marketOf(locationId) || DEFAULT_SERP_LOCATION;
  }

  /**
   * The day's difficulty of each keyword (in the order given): the day's stored entry; else
   * the computed one, stored as the day's when `accept` and newer than what is stored (the
   * first writer of a day wins a race); else the latest earlier entry; else null.
   */
  async settle(locationId: number, entries: readonly { kw: string; computed: Difficulty | null }[], options: SettleOptions): Promise<(Difficulty | null)[]> {
    const market = this.marketKey(locationId);
    const day = options.day ?? dayOf(this.clock.now());
    const kws = [...new Set(entries.map((e) => e.kw))];
    const latest = await this.latest(market, kws, day);
    const fresh = new Map<string, Difficulty>();
    if (options.accept) {
      for (const e of entries) {
        if (e.computed === null || fresh.has(e.kw)) continue;
        const held = latest.get(e.kw);
        if (held && (held.day === day || held.value.ts >= e.computed.ts)) continue;
        fresh.set(e.kw, e.computed);
      }
    }
    if (fresh.size > 0) {
      const won = await this.write(market, day, fresh);
      for (const [kw, value] of won) latest.set(kw, { day, value });
      await this.prune(day);
    }
    return entries.map((e) => latest.get(e.kw)?.value ?? null);
  }

  /** Sets `seo` and `seo_ts` of keyword items (any locations) to their day's difficulty. */
  async settleItems<T extends { kw: string; lid: number; seo: number | null; seo_ts: number | null }>(items: T[], options: SettleOptions): Promise<T[]> {
    const byLocation = new Map<number, T[]>();
    for (const item of items) {
      const group = byLocation.get(item.lid);
      if (group) group.push(item);
      else byLocation.set(item.lid, [item]);
    }
    for (const [locationId, group] of byLocation) {
      const computed = group.map((i) => ({ kw: i.kw, computed: i.seo === null ? null : { seo: i.seo, ts: i.seo_ts ?? Math.floor(this.clock.now() / 1000) } }));
      const settled = await this.settle(locationId, computed, options);
      group.forEach((item, n) => {
        item.seo = settled[n]?.seo ?? null;
        item.seo_ts = settled[n]?.ts ?? null;
      });
    }
    return items;
  }

  /** A SERP with its keyword's difficulty of the SERP's day (`rank`, `rank_updated_at`). */
  async settleSerp(serp: Serp, day: string, options: Omit<SettleOptions, 'day'>): Promise<Serp> {
    // A page without organic results has no difficulty to record (its 0 would become the keyword's).
    const organic = serp.items.some((i) => i.type === 'ORGANIC');
    const computed = organic ? { seo: serp.rank, ts: serp.rank_updated_at } : null;
    const [settled] = await this.settle(serp.location_id, [{ kw: serp.kw, computed }], { ...options, day });
    return settled ? { ...serp, rank: settled.seo, rank_updated_at: settled.ts } : serp;
  }

  /** The latest entry on or before `day` of each keyword that has one. */
  private async latest(market: number, kws: readonly string[], day: string): Promise<Map<string, { day: string; value: Difficulty }>> {
    const out = new Map<string, { day: string; value: Difficulty }>();
    for (let i = 0; i < kws.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom('keyword_difficulty')
        .select(['kw', 'day', 'seo', 'seo_ts'])
        .where('location_id', '=', market)
        .where('kw', 'in', kws.slice(i, i + CHUNK))
        .where('day', '<=', day)
        .execute();
      for (const r of rows) {
        const held = out.get(r.kw);
        if (!held || held.day < r.day) out.set(r.kw, { day: r.day, value: { seo: Number(r.seo), ts: Number(r.seo_ts) } });
      }
    }
    return out;
  }

  /** Writes the day's entries that no one wrote first; answers each keyword's entry of the day. */
  private async write(market: number, day: string, values: Map<string, Difficulty>): Promise<Map<string, Difficulty>> {
    const rows = [...values].map(([kw, v]) => ({ kw, location_id: market, day, seo: v.seo, seo_ts: v.ts }));
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db
        .insertInto('keyword_difficulty')
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(['location_id', 'kw', 'day']).doNothing())
        .execute();
    }
    // Another process may have written some of them first: its values are the day's.
    const stored = new Map<string, Difficulty>();
    const kws = [...values.keys()];
    for (let i = 0; i < kws.length; i += CHUNK) {
      const found = await this.db
        .selectFrom('keyword_difficulty')
        .select(['kw', 'seo', 'seo_ts'])
        .where('location_id', '=', market)
        .where('day', '=', day)
        .where('kw', 'in', kws.slice(i, i + CHUNK))
        .execute();
      for (const r of found) stored.set(r.kw, { seo: Number(r.seo), ts: Number(r.seo_ts) });
    }
    return stored;
  }

  /** Drops entries past the retention, once a day. */
  private async prune(today: string): Promise<void> {
    if (today <= this.lastPruneDay) return;
    this.lastPruneDay = today;
    const cutoff = dayOf(Date.parse(`${today}T00:00:00Z`) - DIFFICULTY_RETENTION_DAYS * 86_400_000);
    await this.db.deleteFrom('keyword_difficulty').where('day', '<', cutoff).execute();
  }
}
