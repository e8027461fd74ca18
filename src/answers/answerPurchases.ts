/**
 * One answer per (model, prompt, location, language, UTC day), whoever asks: the answers
 * bought are kept in the state store (`answer_texts`), shared by every account and process.
 * A purchase is claimed first (a `buying` row under the primary key), so two processes never
 * pay for the same answer: the other waits for it, or, past the wait, leaves the prompt for a
 * later round. A claim older than its lease belongs to a process that died and is taken over.
 *
 * Spend goes through the provider ledger's daily budget (engine/sources: reserve before the
 * call, settle at the reported cost, refund on failure), under one budget for every answer
 * model. A failed call releases its claim and charges nothing.
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../lib/clock.js';
import { SourceError } from '../engine/sources/types.js';
import type { ProviderLedger } from '../engine/sources/providerLedger.js';
import { budgetedSpend } from '../engine/sources/keywordFill.js';
import type { StateDatabase } from '../store/schema.js';
import type { AnswerBody } from './analysis.js';
import type { AnswerModel } from './models.js';

/** What a model is asked: the prompt, where and how, and on which day. */
export interface AnswerQuestion {
  prompt: string;
  locationId: number;
  languageId: number;
  /** 1 desktop, 2 mobile (AI Overviews differ by device). */
  platformId: number;
  day: string;
  /** ISO country of the location (lower case), language code, canonical name of a city or region, search engine host. */
  countryCode: string;
  languageCode: string | null;
  canonicalLocation: string | null;
  engineDomain: string;
}

/** The seam every answer model sits behind: the sandbox composer and each provider's adapter. */
export interface AnswerSource {
  readonly model: AnswerModel;
  /** Dollars reserved from the daily budget before a call (0: free, no reservation). */
  estimate(): number;
  /** The model's answer; rejects with a SourceError when the provider fails. */
  ask(question: AnswerQuestion): Promise<{ answer: AnswerBody; cost: number }>;
}

/** The budget's name in the provider ledger: one daily budget for every answer model. */
export const ANSWER_BUDGET = 'answers';
/** A claim older than this is a purchase whose process died. */
const CLAIM_LEASE_MS = 10 * 60_000;
/** How often a process waiting for another's purchase looks again. */
const WAIT_STEP_MS = 200;

const keyOf = (q: AnswerQuestion) => `${q.prompt.trim().replace(/\s+/g, ' ').toLowerCase()}|${q.locationId}|${q.languageId}|${q.platformId}`;

export interface PurchaseOptions {
  db: Kysely<StateDatabase>;
  ledger: ProviderLedger;
  clock: Clock;
  dailyBudget: number;
  /** Longest wait for another process's purchase of the same answer (ms). */
  waitMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface Bought {
  answer: AnswerBody;
  modelKey: string;
  queryKey: string;
  /** Whether this call paid for it (false: read from the store). */
  bought: boolean;
}

export class AnswerPurchases {
  private readonly inFlight = new Map<string, Promise<Bought>>();
  private readonly spend: ReturnType<typeof budgetedSpend>;

  constructor(private readonly options: PurchaseOptions) {
    this.spend = budgetedSpend(options.ledger, ANSWER_BUDGET, options.dailyBudget, options.clock);
  }

  /** The answer of `source` to the question, bought at most once a day. */
  answer(source: AnswerSource, question: AnswerQuestion): Promise<Bought> {
    const modelKey = `${source.model.provider}:${source.model.model}`;
    const queryKey = keyOf(question);
    const flight = `${modelKey}\u001f${queryKey}\u001f${question.day}`;
    let pending = this.inFlight.get(flight);
    if (!pending) {
      pending = this.get(source, question, modelKey, queryKey).finally(() => this.inFlight.delete(flight));
      this.inFlight.set(flight, pending);
    }
    return pending;
  }

  /** An answer held for (model, query, day), or null. */
  async held(modelKey: string, queryKey: string, day: string): Promise<AnswerBody | null> {
    const row = await this.options.db
      .selectFrom('answer_texts')
      .select(['state', 'body'])
      .where('model_key', '=', modelKey)
      .where('query_key', '=', queryKey)
      .where('day', '=', day)
      .executeTakeFirst();
    if (row?.state !== 'ready' || row.body === null) return null;
    return JSON.parse(row.body) as AnswerBody;
  }

  private async get(source: AnswerSource, q: AnswerQuestion, modelKey: string, queryKey: string): Promise<Bought> {
    const held = await this.held(modelKey, queryKey, q.day);
    if (held) return { answer: held, modelKey, queryKey, bought: false };
    if (!(await this.claim(modelKey, queryKey, q.day))) {
      const waited = await this.waitFor(modelKey, queryKey, q.day);
      if (waited) return { answer: waited, modelKey, queryKey, bought: false };
      throw new SourceError(source.model.provider, 'unavailable', `${source.model.name}: another process is buying this answer; it is asked again later`);
    }
    let answer: AnswerBody;
    try {
      const estimate = source.estimate();
      answer = estimate > 0 ? await this.spend(estimate, async () => toValue(await source.ask(q))) : (await source.ask(q)).answer;
    } catch (err) {
      await this.release(modelKey, queryKey, q.day);
      throw err instanceof SourceError ? err : new SourceError(source.model.provider, 'failed', `${source.model.name}: ${(err as Error).message}`);
    }
    await this.options.db
      .updateTable('answer_texts')
      .set({ state: 'ready', body: JSON.stringify(answer), claimed_ms: this.options.clock.now() })
      .where('model_key', '=', modelKey)
      .where('query_key', '=', queryKey)
      .where('day', '=', q.day)
      .execute();
    return { answer, modelKey, queryKey, bought: true };
  }

  /** Takes the purchase of (model, query, day): new, or a claim whose process died. */
  private async claim(modelKey: string, queryKey: string, day: string): Promise<boolean> {
    const now = this.options.clock.now();
    const res = await sql`
      INSERT INTO answer_texts AS t (model_key, query_key, day, state, body, claimed_ms)
      VALUES (${modelKey}, ${queryKey}, ${day}, 'buying', NULL, ${now})
      ON CONFLICT (model_key, query_key, day) DO UPDATE SET claimed_ms = excluded.claimed_ms
      WHERE t.state = 'buying' AND t.claimed_ms <= ${now - CLAIM_LEASE_MS}`.execute(this.options.db);
    return Number(res.numAffectedRows ?? 0) === 1;
  }

  private async release(modelKey: string, queryKey: string, day: string): Promise<void> {
    await this.options.db
      .deleteFrom('answer_texts')
      .where('model_key', '=', modelKey)
      .where('query_key', '=', queryKey)
      .where('day', '=', day)
      .where('state', '=', 'buying')
      .execute();
  }

  private async waitFor(modelKey: string, queryKey: string, day: string): Promise<AnswerBody | null> {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (let waited = 0; waited < this.options.waitMs; waited += WAIT_STEP_MS) {
      await sleep(WAIT_STEP_MS);
      const held = await this.held(modelKey, queryKey, day);
      if (held) return held;
    }
    return null;
  }

  /** Drops answers no result refers to any more, older than `keepDays` (the purge of deleted prompts and monitors). */
  async prune(today: string, keepDays: number): Promise<void> {
    const cutoff = new Date(Date.parse(`${today}T00:00:00Z`) - keepDays * 86_400_000).toISOString().slice(0, 10);
    await sql`DELETE FROM answer_texts WHERE day < ${cutoff} AND NOT EXISTS (
      SELECT 1 FROM answer_results r WHERE r.answer_model = answer_texts.model_key AND r.answer_query = answer_texts.query_key AND r.day = answer_texts.day)`.execute(
      this.options.db,
    );
  }
}

const toValue = (r: { answer: AnswerBody; cost: number }) => ({ value: r.answer, cost: r.cost });
