/**
 * The Prometheus metrics of one Quarry process (prom-client), whatever its roles: Node's
 * process metrics, the job queue's depth by state (read from the state store at each scrape),
 * job durations by kind and outcome (the worker role), rank checks by outcome and e-mails by
 * outcome (the scheduler role), the research data's generation and reloads. The API role adds its request counters (http/metrics.ts) to
 * the same registry. One instance per context, not a global: tests build many services in one
 * process. In the scale mode every process exposes its own (GET /metrics on an API process,
 * QUARRY_METRICS_PORT on a worker or scheduler alone, metricsServer.ts) and Prometheus
 * scrapes each of them.
 */
import { sql } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { StateStore } from '../store/database.js';

/** How a job run ended: completed, failed for good, failed and queued again, lease lost, given back on shutdown. */
export type JobOutcome = 'completed' | 'failed' | 'retrying' | 'lost' | 'released';
/** A rank check written, or a keyword left due because its SERP source failed (retried next round). */
export type RankCheckOutcome = 'checked' | 'source_failed';
export type EmailOutcome = 'sent' | 'failed';

/** What the research metrics read at each scrape. */
export interface ResearchReadings {
  generation(): number;
  reloads(): number;
  draining(): number;
}

/** Seconds: jobs range from a few rows to exports of a million links. */
const JOB_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600];

export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly jobDurations: Histogram<'kind' | 'outcome'>;
  private readonly rankChecks: Counter<'outcome'>;
  private readonly emails: Counter<'outcome'>;
  private readonly answerChecks: Counter<'provider' | 'outcome'>;
  private readonly answersBought: Counter<'provider'>;

  constructor(state: Pick<StateStore, 'db'>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'quarry_' });
    new Gauge({
      name: 'quarry_jobs',
      help: 'Jobs in the durable queue, by state (queued jobs are the queue depth)',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const rows = await sql<{ state: string; n: number }>`SELECT state, COUNT(*) AS n FROM jobs GROUP BY state`.execute(state.db);
        this.reset();
        for (const row of rows.rows) this.set({ state: row.state }, Number(row.n));
      },
    });
    this.jobDurations = new Histogram({
      name: 'quarry_job_duration_seconds',
      help: 'Job runs in this process, from start to outcome, by job kind and outcome (completed, failed, retrying, lost, released)',
      labelNames: ['kind', 'outcome'] as const,
      buckets: JOB_BUCKETS,
      registers,
    });
    this.rankChecks = new Counter({
      name: 'quarry_rank_checks_total',
      help: 'Daily rank checks made by this process, by outcome (checked; source_failed: left due for the next round)',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.answerChecks = new Counter({
      name: 'quarry_answer_checks_total',
      help: 'AI answers checked for monitors by this process, by model provider and outcome (answered; failed: recorded as failed, asked again later)',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    });
    this.answersBought = new Counter({
      name: 'quarry_answers_bought_total',
      help: 'AI answers this process bought from a model (once per prompt, model, location and day; the others are read from the store)',
      labelNames: ['provider'] as const,
      registers,
    });
    this.emails = new Counter({
      name: 'quarry_emails_total',
      help: 'Rank report and alert e-mails this process sent (or wrote to the outbox), by outcome',
      labelNames: ['outcome'] as const,
      registers,
    });
  }

  /** The research data this process answers from (engine/live): generation, reloads since start, replaced sets still answering. */
  watchResearch(research: ResearchReadings): void {
    const registers = [this.registry];
    new Gauge({
      name: 'quarry_research_generation',
      help: 'Data generation of the research store this process answers from',
      registers,
      collect() {
        this.set(research.generation());
      },
    });
    new Counter({
      name: 'quarry_research_reloads_total',
      help: 'Reloads of the research data since the process started (an import raised its generation)',
      registers,
      collect() {
        this.reset();
        this.inc(research.reloads());
      },
    });
    new Gauge({
      name: 'quarry_research_draining',
      help: 'Replaced research data sets still answering requests that began on them',
      registers,
      collect() {
        this.set(research.draining());
      },
    });
  }

  /** Lookups of this process waiting on another process's purchase of provider answers (its lease on provider_answers rows). */
  watchPurchaseWaits(waiting: () => number): void {
    new Gauge({
      name: 'quarry_provider_purchase_waits',
      help: "Lookups of this process waiting for another process's purchase of the same provider answers (its lease on their provider_answers rows)",
      registers: [this.registry],
      collect() {
        this.set(waiting());
      },
    });
  }

  jobFinished(kind: string, outcome: JobOutcome, seconds: number): void {
    this.jobDurations.observe({ kind, outcome }, seconds);
  }

  rankChecked(outcome: RankCheckOutcome, count = 1): void {
    if (count > 0) this.rankChecks.inc({ outcome }, count);
  }

  answerChecked(provider: string, outcome: 'answered' | 'failed'): void {
    this.answerChecks.inc({ provider, outcome });
  }

  answerBought(provider: string): void {
    this.answersBought.inc({ provider });
  }

  emailed(outcome: EmailOutcome): void {
    this.emails.inc({ outcome });
  }

  /** The text a scrape answers, and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
