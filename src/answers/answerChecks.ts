/**
 * Answer checks: each prompt of each live monitor asked of each of its models once per UTC
 * day — when the monitor is created or gains prompts, and then by the scheduler's rounds. A
 * model that fails is recorded as failed for that day (no charge, see answerPurchases.ts) and
 * asked again by a later round, at most MAX_ATTEMPTS times a day and no sooner than RETRY_MS
 * after; the other models' results stand. A settings change (brand, variations, domain,
 * models) is applied by the next check: today's answers are analysed again with the new
 * settings, and days before keep what was found then.
 */
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { SourceError } from '../engine/sources/types.js';
import { utcDay } from '../store/rankTracking.js';
import type { AnswerMonitorStore, MonitorRow, PromptRow } from '../store/answerMonitors.js';
import { parseJsonList } from '../store/answerMonitors.js';
import type { StateDatabase } from '../store/schema.js';
import { analyse, type AnalysisTarget } from './analysis.js';
import type { AnswerPurchases, AnswerQuestion, AnswerSource } from './answerPurchases.js';

/** Attempts per (prompt, model, day) before a failing model is left alone until tomorrow. */
export const MAX_ATTEMPTS = 3;
/** Wait between two attempts of a failed model. */
export const RETRY_MS = 15 * 60_000;
/** Longest stretch of work between two turns of the event loop. */
const MAX_SLICE_MS = 20;

export type AnswerOutcome = 'answered' | 'failed';

export interface AnswerCheckDeps {
  db: Kysely<StateDatabase>;
  store: AnswerMonitorStore;
  purchases: AnswerPurchases;
  /** The models this deployment can ask, by id. */
  sources: () => ReadonlyMap<number, AnswerSource>;
  /** The question of a monitor's prompt on a day (location, language, device). */
  questionOf: (monitor: MonitorRow, prompt: PromptRow, day: string) => AnswerQuestion;
  /** The brand name of a cited domain the research data knows. */
  brandOf: (domain: string) => string | null;
  /** Counts results by model provider and outcome, and answers bought. */
  metrics?: { answerChecked(provider: string, outcome: AnswerOutcome): void; answerBought(provider: string): void };
}

export interface AnswerRunResult {
  monitors: number;
  answered: number;
  failed: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function targetOf(monitor: MonitorRow): AnalysisTarget {
  return { brand: monitor.brand, brandVariations: parseJsonList<string>(monitor.brand_variations), domain: monitor.domain };
}

export class AnswerChecks {
  private running: Promise<AnswerRunResult> | null = null;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly deps: AnswerCheckDeps) {}

  /** A round over every live monitor (or one); a round under way in this process is joined. */
  runDue(nowMs: number, monitorId?: string): Promise<AnswerRunResult> {
    if (monitorId !== undefined) return this.run(nowMs, monitorId);
    if (this.running) return this.running;
    this.running = this.run(nowMs).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Checks one monitor now, in the background (a new monitor, new prompts, changed settings); `idle()` waits for it. */
  checkSoon(monitorId: string, nowMs: number): void {
    const job = this.run(nowMs, monitorId).catch(() => {
      // The scheduler's next round asks what this one could not.
    });
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.running) await Promise.all([...this.pending, this.running]);
  }

  private async run(nowMs: number, only?: string): Promise<AnswerRunResult> {
    const today = utcDay(nowMs);
    // A round skips monitors checked today with nothing left to do; new prompts and changed
    // settings are checked on their own (checkSoon), and failed models leave the monitor warned.
    const monitors = (await this.deps.store.live()).filter((m) =>
      only !== undefined
        ? m.id === only
        : m.last_check_ms === null || utcDay(m.last_check_ms) !== today || m.pending_changes === 1 || m.last_check_failed === 1,
    );
    const result: AnswerRunResult = { monitors: monitors.length, answered: 0, failed: 0 };
    for (const monitor of monitors) await this.checkMonitor(monitor, nowMs, result);
    return result;
  }

  private async checkMonitor(monitor: MonitorRow, nowMs: number, result: AnswerRunResult): Promise<void> {
    const day = utcDay(nowMs);
    const sources = this.deps.sources();
    const models = parseJsonList<number>(monitor.models).filter((id) => sources.has(id));
    const prompts = await this.deps.store.promptsOf(monitor.id);
    const today = await this.deps.db.selectFrom('answer_results').selectAll().where('monitor_id', '=', monitor.id).where('day', '=', day).execute();
    const byKey = new Map(today.map((r) => [`${r.prompt_id}|${r.model_id}`, r]));
    const target = targetOf(monitor);
    const reanalyse = monitor.pending_changes === 1;
    let failed = false;
    let slice = performance.now();
    for (const prompt of prompts) {
      await Promise.all(
        models.map(async (modelId) => {
          const source = sources.get(modelId)!;
          const prior = byKey.get(`${prompt.id}|${modelId}`);
          if (prior?.status === 'ok') {
            if (reanalyse && prior.answer_model !== null && prior.answer_query !== null) {
              const held = await this.deps.purchases.held(prior.answer_model, prior.answer_query, day);
              if (held)
                await this.save(
                  prompt,
                  modelId,
                  day,
                  { status: 'ok', error: null, answer: [prior.answer_model, prior.answer_query], analysis: analyse(held, target, this.deps.brandOf) },
                  prior.attempts,
                  nowMs,
                );
            }
            return;
          }
          if (prior && (prior.attempts >= MAX_ATTEMPTS || prior.checked_ms > nowMs - RETRY_MS)) {
            failed = true;
            return;
          }
          const attempts = (prior?.attempts ?? 0) + 1;
          try {
            const bought = await this.deps.purchases.answer(source, this.deps.questionOf(monitor, prompt, day));
            if (bought.bought) this.deps.metrics?.answerBought(source.model.provider);
            const analysis = analyse(bought.answer, target, this.deps.brandOf);
            await this.save(prompt, modelId, day, { status: 'ok', error: null, answer: [bought.modelKey, bought.queryKey], analysis }, attempts, nowMs);
            this.deps.metrics?.answerChecked(source.model.provider, 'answered');
            result.answered++;
          } catch (err) {
            if (!(err instanceof SourceError)) throw err;
            failed = true;
            await this.save(prompt, modelId, day, { status: 'failed', error: err.message.slice(0, 500), answer: null, analysis: null }, attempts, nowMs);
            this.deps.metrics?.answerChecked(source.model.provider, 'failed');
            result.failed++;
          }
        }),
      );
      if (performance.now() - slice > MAX_SLICE_MS) {
        await turn();
        slice = performance.now();
      }
    }
    await this.deps.store.markChecked(monitor.id, nowMs, failed, reanalyse);
  }

  /** Writes the day's result of (prompt, model), unless the prompt was deleted meanwhile. */
  private async save(
    prompt: PromptRow,
    modelId: number,
    day: string,
    r: { status: 'ok' | 'failed'; error: string | null; answer: [string, string] | null; analysis: unknown },
    attempts: number,
    nowMs: number,
  ): Promise<void> {
    const values = {
      status: r.status,
      error: r.error,
      answer_model: r.answer?.[0] ?? null,
      answer_query: r.answer?.[1] ?? null,
      analysis: r.analysis === null ? null : JSON.stringify(r.analysis),
      attempts,
      checked_ms: nowMs,
    };
    await this.deps.db.transaction().execute(async (trx) => {
      const live = await trx.selectFrom('answer_prompts').select('id').where('id', '=', prompt.id).executeTakeFirst();
      if (!live) return;
      await trx
        .insertInto('answer_results')
        .values({ prompt_id: prompt.id, monitor_id: prompt.monitor_id, model_id: modelId, day, ...values })
        .onConflict((oc) => oc.columns(['prompt_id', 'model_id', 'day']).doUpdateSet(values))
        .execute();
    });
  }
}
