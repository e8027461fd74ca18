/**
 * Bought once, for everyone: the link-index and authority providers' answers kept in the
 * state store (migration 0040; PostgreSQL in the scale mode, so every process reads the same
 * rows) with a freshness per kind of answer (FRESHNESS). Within it a datum is never bought
 * again, whichever account asks and through whichever process:
 *
 * - in a process, concurrent askers of one datum share one purchase (a promise per key);
 * - across processes, the buyer first takes a lease on the rows it is about to buy (one
 *   conditional UPDATE: a row is claimed only when it is stale and nobody's lease is
 *   running), and another process asking meanwhile waits for the rows to be written instead
 *   of buying them too. A lease that lapses (its process died) or is given back (its purchase
 *   failed) lets the next asker buy.
 *
 * A provider's "no data for this item" is an answer too, kept as `null` for the same time.
 * The freshness is reckoned on the service's clock; a lease on the wall clock (it guards a
 * call in progress, which takes real time whatever the service's clock says).
 *
 * @example
 * const answers = new ProviderAnswers(state.db, clock, { leaseMs: 60_000 });
 * const infos = await answers.get('majestic', 'item', ['RootDomain:starbucks.com'], 100, async (keys) => buyItems(keys));
 */
import { OncePerDay } from '../../lib/clock.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../lib/clock.js';
import type { StateDatabase } from '../../store/schema.js';
import { SourceError } from './types.js';

const DAY_MS = 86_400_000;

/**
 * How long each kind of answer is served before it is bought again. Link metrics move
 * slowly (Majestic's Fresh Index and Moz's metrics are recomputed over days), lists of new
 * and lost links and the daily calendar change every day.
 */
export const FRESHNESS = {
  /** Item info (the `linkindex` figures) of a URL, host or domain. */
  item: 7 * DAY_MS,
  /** Domain and page authority of a URL. */
  authority: 7 * DAY_MS,
  /** A page of all backlinks of a target. */
  backlinks: 7 * DAY_MS,
  /** A page of the new (30 days) or lost (90 days) backlinks of a target. */
  'backlinks-recent': DAY_MS,
  refdomains: 7 * DAY_MS,
  anchors: 7 * DAY_MS,
  /** The daily new/lost calendar. */
  calendar: DAY_MS,
  toppages: 7 * DAY_MS,
  history: 7 * DAY_MS,
  competitors: 7 * DAY_MS,
  /** A domain's organic ranking statistics (Labs' ranking database is refreshed over days). */
  'rank-overview': 7 * DAY_MS,
  /** A keyword's figures in a market (volume, CPC, competition, months), or that the provider has none (monthly data). */
  'keyword-data': 30 * DAY_MS,
  /** A seed's keyword ideas (Google Ads' planner data moves monthly). */
  'keyword-ideas': 30 * DAY_MS,
  /** The keywords a site ranks for (a ranking database refreshed over days). */
  'ranked-keywords': 7 * DAY_MS,
  /**
   * That a query's SERP of the day (the key ends with the UTC day) is bought: a marker whose
   * lease makes one process the buyer; the SERP itself is kept in provider_serps (providerSerp.ts).
   */
  serp: DAY_MS,
} as const;

export type AnswerKind = keyof typeof FRESHNESS;

/** Longest freshness: rows older than this are dropped (once a day). */
const RETENTION_MS = 30 * DAY_MS;
/** Keys per statement. */
const CHUNK = 400;
/** Rounds of "wait for another process, then look again" before giving up on a key. */
const MAX_ROUNDS = 4;

export interface ProviderAnswersOptions {
  /** How long a process's claim on rows it is buying holds (wall-clock ms): at least a call with all its retries. */
  leaseMs: number;
  /** Pause between looks at rows another process is buying (ms). */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Buys the values of the given keys (in their order; null where the provider has none). */
export type Buy<T> = (keys: string[]) => Promise<(T | null)[]>;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A purchase's lease: it outlasts a provider call with every retry and its longest backoff (providerHttp.ts). */
export function leaseFor(limits: { timeoutMs: number; retries: number; backoffMs: number }): number {
  const { timeoutMs, retries, backoffMs } = limits;
  return timeoutMs * (retries + 1) + Math.min(30_000, backoffMs * 2 ** retries) * retries + 5_000;
}

export class ProviderAnswers {
  private readonly flights = new Map<string, Promise<unknown>>();
  private readonly pruneDay = new OncePerDay();
  private waitingKeys = 0;
  private waitingAsks = 0;
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly db: Kysely<StateDatabase>,
    private readonly clock: Clock,
    private readonly options: ProviderAnswersOptions,
  ) {
    this.pollMs = options.pollMs ?? 50;
    this.sleep = options.sleep ?? realSleep;
  }

  /** Keys this process is waiting on another process's purchase for, now (tests wait on it). */
  get waiting(): number {
    return this.waitingKeys;
  }

  /** Lookups (calls of `get`) of this process waiting on another process's purchase now, whatever their keys (GET /metrics). */
  get waitingLookups(): number {
    return this.waitingAsks;
  }

  /**
   * The values of `keys`: the fresh stored ones, the others bought through `buy` in chunks of
   * `chunk` keys (one provider call each, in parallel) and stored. Rejects with the purchase's
   * error when one fails (what was bought by the other chunks stays stored).
   */
  async get<T>(provider: string, kind: AnswerKind, keys: readonly string[], chunk: number, buy: Buy<T>): Promise<Map<string, T | null>> {
    const out = new Map<string, T | null>();
    const shared: Promise<void>[] = [];
    const mine: string[] = [];
    const settle = new Map<string, { resolve: (v: T | null) => void; reject: (e: unknown) => void }>();
    for (const key of new Set(keys)) {
      const flight = `${provider}\u0000${kind}\u0000${key}`;
      const pending = this.flights.get(flight) as Promise<T | null> | undefined;
      if (pending) {
        shared.push(pending.then((v) => void out.set(key, v)));
        continue;
      }
      const promise = new Promise<T | null>((resolve, reject) => settle.set(key, { resolve, reject }));
      promise.catch(() => undefined);
      this.flights.set(flight, promise);
      mine.push(key);
    }
    const others = Promise.all(shared);
    others.catch(() => undefined);
    try {
      const found = await this.resolve(provider, kind, mine, chunk, buy);
      for (const key of mine) {
        out.set(key, found.get(key) ?? null);
        settle.get(key)!.resolve(found.get(key) ?? null);
      }
    } catch (err) {
      for (const key of mine) settle.get(key)!.reject(err);
      throw err;
    } finally {
      for (const key of mine) this.flights.delete(`${provider}\u0000${kind}\u0000${key}`);
    }
    await others;
    return out;
  }

  private async resolve<T>(provider: string, kind: AnswerKind, keys: string[], chunk: number, buy: Buy<T>): Promise<Map<string, T | null>> {
    const out = new Map<string, T | null>();
    let pending = keys;
    for (let round = 0; pending.length > 0; round++) {
      const held = await this.fresh<T>(provider, kind, pending);
      for (const [key, value] of held) out.set(key, value);
      pending = pending.filter((k) => !held.has(k));
      if (pending.length === 0) break;
      const token = randomUUID();
      const claimed = await this.claim(provider, kind, pending, token);
      if (claimed.length > 0) {
        const bought = await this.buyClaimed(provider, kind, claimed, chunk, token, buy);
        for (const [key, value] of bought) out.set(key, value);
      }
      const claimedSet = new Set(claimed);
      pending = pending.filter((k) => !claimedSet.has(k));
      if (pending.length === 0) break;
      // Another process holds these: wait for its answer rather than buy them twice.
      // A 424 without a charge, like a provider failure: the asker may try again.
      if (round >= MAX_ROUNDS) {
        throw new SourceError(provider, 'unavailable', `${provider}: another process kept its claim on ${kind} answers past ${MAX_ROUNDS} leases`);
      }
      this.waitingKeys += pending.length;
      this.waitingAsks++;
      try {
        await this.waitFor(provider, kind, pending);
      } finally {
        this.waitingKeys -= pending.length;
        this.waitingAsks--;
      }
    }
    return out;
  }

  /** Buys claimed keys chunk by chunk (in parallel) and stores each chunk's answers; gives back the claims of a failed chunk. */
  private async buyClaimed<T>(provider: string, kind: AnswerKind, keys: string[], chunk: number, token: string, buy: Buy<T>): Promise<Map<string, T | null>> {
    const out = new Map<string, T | null>();
    const chunks: string[][] = [];
    for (let i = 0; i < keys.length; i += chunk) chunks.push(keys.slice(i, i + chunk));
    const results = await Promise.allSettled(
      chunks.map(async (part) => {
        const values = await buy(part);
        await this.save(
          provider,
          kind,
          part.map((key, i) => [key, values[i] ?? null] as const),
        );
        part.forEach((key, i) => out.set(key, values[i] ?? null));
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await this.release(provider, kind, token);
      throw failed.reason;
    }
    return out;
  }

  /** Stored answers of the keys that are still fresh. */
  private async fresh<T>(provider: string, kind: AnswerKind, keys: readonly string[]): Promise<Map<string, T | null>> {
    const out = new Map<string, T | null>();
    const since = this.clock.now() - FRESHNESS[kind];
    for (let i = 0; i < keys.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom('provider_answers')
        .select(['key', 'body'])
        .where('provider', '=', provider)
        .where('kind', '=', kind)
        .where('key', 'in', keys.slice(i, i + CHUNK))
        .where('body', 'is not', null)
        .where('fetched_ms', '>=', since)
        .execute();
      for (const r of rows) {
        try {
          out.set(r.key, JSON.parse(r.body!) as T | null);
        } catch {
          // A damaged row is bought again.
        }
      }
    }
    return out;
  }

  /** Claims the keys nobody holds a running lease on; answers those claimed. */
  private async claim(provider: string, kind: AnswerKind, keys: readonly string[], token: string): Promise<string[]> {
    const wall = Date.now();
    const staleBefore = this.clock.now() - FRESHNESS[kind];
    const claimed: string[] = [];
    for (let i = 0; i < keys.length; i += CHUNK) {
      const part = keys.slice(i, i + CHUNK);
      await this.db
        .insertInto('provider_answers')
        .values(part.map((key) => ({ provider, kind, key, body: null, fetched_ms: 0, claimed_ms: 0, claim: null })))
        .onConflict((oc) => oc.columns(['provider', 'kind', 'key']).doNothing())
        .execute();
      await this.db
        .updateTable('provider_answers')
        .set({ claimed_ms: wall, claim: token })
        .where('provider', '=', provider)
        .where('kind', '=', kind)
        .where('key', 'in', part)
        .where((eb) => eb.or([eb('body', 'is', null), eb('fetched_ms', '<', staleBefore)]))
        .where('claimed_ms', '<', wall - this.options.leaseMs)
        .execute();
      const rows = await this.db
        .selectFrom('provider_answers')
        .select('key')
        .where('provider', '=', provider)
        .where('kind', '=', kind)
        .where('key', 'in', part)
        .where('claim', '=', token)
        .execute();
      claimed.push(...rows.map((r) => r.key));
    }
    return claimed;
  }

  private async save(provider: string, kind: AnswerKind, entries: readonly (readonly [string, unknown])[]): Promise<void> {
    const nowMs = this.clock.now();
    for (let i = 0; i < entries.length; i += CHUNK) {
      const rows = entries
        .slice(i, i + CHUNK)
        .map(([key, value]) => ({ provider, kind, key, body: JSON.stringify(value), fetched_ms: nowMs, claimed_ms: 0, claim: null }));
      await this.db
        .insertInto('provider_answers')
        .values(rows)
        .onConflict((oc) =>
          oc.columns(['provider', 'kind', 'key']).doUpdateSet((eb) => ({
            body: eb.ref('excluded.body'),
            fetched_ms: eb.ref('excluded.fetched_ms'),
            claimed_ms: 0,
            claim: null,
          })),
        )
        .execute();
    }
    await this.prune(nowMs);
  }

  /** Gives back a failed purchase's claims, so the next asker may try. */
  private async release(provider: string, kind: AnswerKind, token: string): Promise<void> {
    await this.db
      .updateTable('provider_answers')
      .set({ claimed_ms: 0, claim: null })
      .where('provider', '=', provider)
      .where('kind', '=', kind)
      .where('claim', '=', token)
      .execute();
  }

  /** Waits until each key is fresh or no running lease holds it any more (bounded by one lease). */
  private async waitFor(provider: string, kind: AnswerKind, keys: readonly string[]): Promise<void> {
    const deadline = Date.now() + this.options.leaseMs + this.pollMs;
    let open = [...keys];
    while (open.length > 0 && Date.now() < deadline) {
      await this.sleep(this.pollMs);
      const wall = Date.now();
      const since = this.clock.now() - FRESHNESS[kind];
      const still = new Set<string>();
      for (let i = 0; i < open.length; i += CHUNK) {
        const rows = await this.db
          .selectFrom('provider_answers')
          .select(['key', 'body', 'fetched_ms', 'claimed_ms'])
          .where('provider', '=', provider)
          .where('kind', '=', kind)
          .where('key', 'in', open.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) {
          const fresh = r.body !== null && Number(r.fetched_ms) >= since;
          const leased = Number(r.claimed_ms) >= wall - this.options.leaseMs;
          if (!fresh && leased) still.add(r.key);
        }
      }
      open = open.filter((k) => still.has(k));
    }
  }

  /** Drops answers past the longest freshness, once a day. */
  private async prune(nowMs: number): Promise<void> {
    if (!this.pruneDay.due(nowMs)) return;
    await this.db
      .deleteFrom('provider_answers')
      .where('fetched_ms', '<', nowMs - RETENTION_MS)
      .where('claimed_ms', '=', 0)
      .where('body', 'is not', null)
      .execute();
  }
}
