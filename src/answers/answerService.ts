/**
 * The answer tool's services of one running Quarry: the store, the models it can ask, the
 * purchases of answers and the checks, shared by the routes, the scheduler and the CLI (one
 * instance per context, so a route's background check and the scheduler's round join).
 */
import type { QuarryContext } from '../context.js';
import { ProviderLedger } from '../engine/sources/providerLedger.js';
import { AnswerMonitorStore, DELETED_MONITOR_RETENTION_DAYS, type MonitorRow, type PromptRow } from '../store/answerMonitors.js';
import { utcDay } from '../store/rankTracking.js';
import { unixSeconds } from '../lib/clock.js';
import type { ScheduledRound } from '../rank/rankService.js';
import { AnswerChecks } from './answerChecks.js';
import { AnswerReports } from './answerReports.js';
import { AnswerPurchases, type AnswerQuestion, type AnswerSource } from './answerPurchases.js';
import { configuredModels, type AnswerModel } from './models.js';
import { providerSources } from './providers/index.js';
import { sandboxAnswer, type SandboxWeb } from './sandboxAnswers.js';

export type AnswerContext = Pick<QuarryContext, 'config' | 'clock' | 'state' | 'search' | 'engine' | 'locations'> & Partial<Pick<QuarryContext, 'metrics'>>;

export interface AnswerServices {
  store: AnswerMonitorStore;
  models: AnswerModel[];
  sources: ReadonlyMap<number, AnswerSource>;
  purchases: AnswerPurchases;
  checks: AnswerChecks;
  reports: AnswerReports;
  /** The brand of a site of the research data (sandbox sites have one), or null. */
  brandOf(domain: string): string | null;
  /** One round: today's checks of every live monitor, then the purge of monitors deleted long ago. */
  round(nowMs: number): Promise<void>;
  /** The round as the scheduler runs it. */
  scheduled: ScheduledRound;
}

const services = new WeakMap<object, AnswerServices>();

export function answerServices(ctx: AnswerContext): AnswerServices {
  let s = services.get(ctx);
  if (s) return s;
  const store = new AnswerMonitorStore(ctx.state.db);
  const configured = configuredModels(ctx.config.answers);
  const web = sandboxWeb(ctx);
  const sources = new Map<number, AnswerSource>();
  for (const model of configured) {
    if (model.provider === 'sandbox') sources.set(model.id, sandboxSource(model, web));
  }
  for (const source of providerSources(ctx.config, configured)) sources.set(source.model.id, source);
  // Only what can be asked is offered.
  const models = configured.filter((m) => sources.has(m.id));
  const { limits } = ctx.config.sources;
  const purchases = new AnswerPurchases({
    db: ctx.state.db,
    ledger: new ProviderLedger(ctx.state.db),
    clock: ctx.clock,
    dailyBudget: ctx.config.answers.dailyBudget,
    // Another process buying the same answer takes at most one provider call with its retries.
    waitMs: limits.timeoutMs * (limits.retries + 1),
  });
  const checks = new AnswerChecks({
    db: ctx.state.db,
    store,
    purchases,
    sources: () => sources,
    questionOf: (monitor, prompt, day) => questionOf(ctx, monitor, prompt, day),
    brandOf: web.brandOf,
    metrics: ctx.metrics,
  });
  const reports = new AnswerReports(ctx, store, models);
  s = {
    store,
    models,
    sources,
    purchases,
    checks,
    reports,
    brandOf: web.brandOf,
    async round(nowMs) {
      await checks.runDue(nowMs);
      await reports.runDue(nowMs);
      await store.purgeDeleted(unixSeconds(nowMs));
      await purchases.prune(utcDay(nowMs), DELETED_MONITOR_RETENTION_DAYS);
    },
    scheduled: {
      run: (nowMs) => s!.round(nowMs),
      idle: async () => {
        await checks.idle();
        reports.close();
      },
    },
  };
  services.set(ctx, s);
  return s;
}

function questionOf(ctx: AnswerContext, monitor: MonitorRow, prompt: PromptRow, day: string): AnswerQuestion {
  const location = ctx.locations.get(monitor.location_id);
  const country = ctx.locations.countryOf(monitor.location_id);
  return {
    prompt: prompt.prompt,
    locationId: monitor.location_id,
    languageId: monitor.language_id,
    platformId: monitor.platform_id,
    day,
    countryCode: (country?.code ?? location?.code ?? 'us').toLowerCase(),
    languageCode: ctx.search.languageFor(monitor.location_id, monitor.language_id).code,
    canonicalLocation: location && location.type > 1 ? location.canonicalName : null,
    engineDomain: location?.engineDomain ?? 'google.com',
  };
}

/** The sandbox web as the sandbox models read it (live views: a reload of the research data is followed). */
function sandboxWeb(ctx: AnswerContext): SandboxWeb {
  return {
    serp: (q) => ctx.search.serp({ kw: q.kw, locationId: q.locationId, languageId: q.languageId, date: q.date }),
    brandOf: (domain) => {
      const row = ctx.engine.store.raw.prepare('SELECT brand FROM root_domains WHERE domain = ?').get(domain) as { brand: string | null } | undefined;
      return row?.brand ?? null;
    },
    fallbackPage: () => {
      const page = ctx.search.page(0);
      return { url: page.url, title: page.title, domain: page.domain };
    },
  };
}

function sandboxSource(model: AnswerModel, web: SandboxWeb): AnswerSource {
  return {
    model,
    estimate: () => 0,
    ask: (q) =>
      Promise.resolve({ answer: sandboxAnswer(web, model.id, { prompt: q.prompt, locationId: q.locationId, languageId: q.languageId, day: q.day }), cost: 0 }),
  };
}
