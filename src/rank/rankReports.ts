/**
 * Rank reports by email. A weekly period runs Monday 00:00 UTC to the next Monday, a
 * monthly one from the 1st 00:00 UTC to the next 1st; when a period has ended, each active
 * report of a live tracking is sent once for it. Periods that ended while the service was
 * down are sent when it is back, oldest first, as far back as the last 4 weeks or 2 months.
 * A rank-change alert's period is a day.
 *
 * Once per period, through the deliveries record (reportDeliveries.ts): the claim of (report,
 * period) is a row under a primary key, inserted in one statement, so two runs (or two
 * processes) cannot both claim it; the row records how far the delivery got, so that a crash
 * before the message's end is sent again and a mail the server accepted is not. A delivery
 * the mail server refused is marked failed and retried by later runs. A repeat after a crash
 * in the at-least-once window carries the same Message-ID (one per report and period), so that
 * it is recognisable as the same report.
 *
 * Without QUARRY_SMTP_URL the raw message is written to `<dataDir>/outbox/*.eml`.
 */
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { QuarryContext } from '../context.js';
import { DAY } from '../lib/clock.js';
import { renderRankReport, type RankReportEmail, type RankReportKeyword } from '../render/rankReportEmail.js';
import { REPORT_TYPES, utcDay, type ReportRow, type TrackingRow } from '../store/rankTracking.js';
import { changeOf, DEFAULT_MIN_CHANGE, renderRankChangeAlert, type AlertMove } from './rankChangeAlert.js';
import { ReportMailer } from './reportMailer.js';
import { ReportDeliveries, SENDING_LEASE_MS } from './reportDeliveries.js';

export { SENDING_LEASE_MS };

type ReportsContext = Pick<QuarryContext, 'config' | 'state' | 'locations'> & Partial<Pick<QuarryContext, 'metrics'>>;

/** A report sent per period: weekly or monthly (REPORT_TYPES). */
export type PeriodicType = typeof REPORT_TYPES.weekly | typeof REPORT_TYPES.monthly;

/**
 * How many ended periods of a weekly and monthly report a run still sends: after
 * downtime, each missed one is a report of its own (its own week's positions), but beyond
 * a month of weeks or two months they are history the tracking's stats already show.
 */
const CATCH_UP_PERIODS: Record<PeriodicType, number> = { [REPORT_TYPES.weekly]: 4, [REPORT_TYPES.monthly]: 2 };

export interface ReportPeriod {
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day, inclusive. */
  end: string;
  /** When the period ended (exclusive end), ms. */
  endMs: number;
}

/** The latest period of a weekly or monthly report that has ended by `nowMs`. */
export function lastEndedPeriod(type: PeriodicType, nowMs: number): ReportPeriod {
  const d = new Date(nowMs);
  let endMs: number;
  let startMs: number;
  if (type === REPORT_TYPES.weekly) {
    const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    const sinceMonday = (d.getUTCDay() + 6) % 7;
    endMs = midnight - sinceMonday * DAY;
    startMs = endMs - 7 * DAY;
  } else {
    endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
  }
  return { start: utcDay(startMs), end: utcDay(endMs - DAY), endMs };
}

/**
 * The Message-ID of a report's mail for one period (a day for an alert): the same for every
 * attempt, so a mail repeated after a crash is recognisable as the same report.
 */
export function reportMessageId(reportId: string, periodStart: string, domain: string): string {
  return `<rank-report.${reportId}.${periodStart}@${domain}>`;
}

/** The weekly or monthly period running at `nowMs` (the one its report will be sent for next). */
export function runningPeriod(type: PeriodicType, nowMs: number): ReportPeriod {
  // The period after the last ended one: the last ended period as seen from after its end (a week, or more than a month, on).
  return lastEndedPeriod(type, lastEndedPeriod(type, nowMs).endMs + (type === REPORT_TYPES.weekly ? 7 : 32) * DAY);
}

/** A report's mail: subject, bodies and inline images (the chart), as nodemailer sends it. */
export type ReportMail = Pick<RankReportEmail, 'subject' | 'html' | 'text' | 'attachments'>;

/** The last `count` periods of a weekly or monthly report ended by `nowMs`, oldest first. */
export function endedPeriods(type: PeriodicType, nowMs: number, count: number): ReportPeriod[] {
  const out = [lastEndedPeriod(type, nowMs)];
  // One millisecond before a period ends, the last ended one is the period before it.
  while (out.length < count) out.unshift(lastEndedPeriod(type, out[0].endMs - 1));
  return out;
}

const deliveryKey = (reportId: string, periodStart: string) => `${reportId}\u0000${periodStart}`;

export interface ReportRunResult {
  sent: number;
  failed: number;
}

export class RankReports {
  private readonly mailer: ReportMailer;
  private readonly deliveries: ReportDeliveries;
  private running: Promise<ReportRunResult> | null = null;

  constructor(private readonly ctx: ReportsContext) {
    this.mailer = new ReportMailer(ctx.config);
    this.deliveries = new ReportDeliveries(ctx.state.db, 'rank_report_deliveries', ['report_id', 'period_start'], ctx.metrics);
  }

  /** Sends every report whose period ended and that was not sent for it yet. */
  runDueReports(nowMs: number): Promise<ReportRunResult> {
    if (this.running) return this.running;
    this.running = this.run(nowMs).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(nowMs: number): Promise<ReportRunResult> {
    const db = this.ctx.state.db;
    const due = await db
      .selectFrom('rank_reports as r')
      .innerJoin('rank_trackings as t', 't.id', 'r.tracking_id')
      .selectAll('r')
      .select(['t.domain', 't.location_id', 't.platform_id', 't.account_id as t_account', 't.created_at as t_created', 't.share_token'])
      .where('t.is_deleted', '=', 0)
      .where('t.reports_active', '=', 1)
      .orderBy('r.created_at')
      .execute();
    // Periods already sent are skipped without a claim, so a run with nothing due writes nothing.
    const oldest = Math.min(
      ...([REPORT_TYPES.weekly, REPORT_TYPES.monthly] as const).map((type) => Date.parse(endedPeriods(type, nowMs, CATCH_UP_PERIODS[type])[0].start)),
    );
    const sentRows = await db
      .selectFrom('rank_report_deliveries as d')
      .innerJoin('rank_reports as r', 'r.id', 'd.report_id')
      .select(['d.report_id', 'd.period_start'])
      .where('r.type', '!=', REPORT_TYPES.rankChange)
      .where('d.status', '=', 'sent')
      .where('d.period_start', '>=', utcDay(oldest))
      .execute();
    const sent = new Set(sentRows.map((d) => deliveryKey(d.report_id, d.period_start)));
    const result: ReportRunResult = { sent: 0, failed: 0 };
    for (const r of due) {
      const tracking: TrackingRow = {
        id: r.tracking_id,
        account_id: r.t_account,
        domain: r.domain,
        location_id: r.location_id,
        platform_id: r.platform_id,
        created_at: r.t_created,
        is_deleted: 0,
        deleted_at: null,
        reports_active: 1,
        share_token: r.share_token,
        tracking_config: null,
      };
      if (r.type === REPORT_TYPES.rankChange) {
        await this.alert(r, tracking, nowMs, result);
        continue;
      }
      const type = r.type as PeriodicType;
      for (const period of endedPeriods(type, nowMs, CATCH_UP_PERIODS[type])) {
        // A report is owed for the periods that end after it was created.
        if (period.endMs <= r.created_at * 1000 || sent.has(deliveryKey(r.id, period.start))) continue;
        await this.deliver(r.id, period.start, nowMs, result, async () => this.message(r, period.start, await this.composeReport(r, tracking, period)));
      }
    }
    return result;
  }

  /** Claims (report, period), sends, and records the outcome (reportDeliveries.ts). */
  private async deliver(
    reportId: string,
    periodStart: string,
    nowMs: number,
    result: ReportRunResult,
    compose: () => Promise<{ message: Mail.Options; outboxName: string }>,
  ): Promise<void> {
    const outcome = await this.deliveries.deliver({ report_id: reportId, period_start: periodStart }, nowMs, this.mailer, compose);
    if (outcome !== 'skipped') result[outcome]++;
  }

  /**
   * A rank-change alert compares today's checks with yesterday's and goes out at most once
   * a day, only when some keyword moved at least `min_change` places.
   */
  private async alert(report: ReportRow, tracking: TrackingRow, nowMs: number, result: ReportRunResult): Promise<void> {
    const today = utcDay(nowMs);
    const { moves, mail } = await this.composeAlert(report, tracking, today);
    if (moves === 0) return;
    await this.deliver(report.id, today, nowMs, result, async () => this.message(report, today, mail));
  }

  /** Today's rank-change alert of a report: the keywords that moved enough since yesterday, and its mail. */
  private async composeAlert(
    report: ReportRow,
    tracking: TrackingRow,
    today: string,
  ): Promise<{ moves: number; mail: ReturnType<typeof renderRankChangeAlert> }> {
    const yesterday = utcDay(Date.parse(`${today}T00:00:00Z`) - DAY);
    const minChange = report.min_change ?? DEFAULT_MIN_CHANGE;
    const rows = await this.ctx.state.db
      .selectFrom('rank_checks as c')
      .innerJoin('rank_tracked_keywords as k', 'k.id', 'c.keyword_id')
      .select(['c.keyword_id', 'c.day', 'c.position', 'c.url', 'k.kw'])
      .where('c.tracking_id', '=', tracking.id)
      .where('c.day', 'in', [yesterday, today])
      .execute();
    const before = new Map(rows.filter((r) => r.day === yesterday).map((r) => [r.keyword_id, r.position]));
    const moves: AlertMove[] = [];
    for (const r of rows) {
      if (r.day !== today || !before.has(r.keyword_id)) continue;
      const move = { kw: r.kw, from: before.get(r.keyword_id)!, to: r.position, url: r.url };
      if (Math.abs(changeOf(move)) >= minChange) moves.push(move);
    }
    return { moves: moves.length, mail: renderRankChangeAlert({ name: report.name, tracking: this.trackingHeader(tracking), date: today, minChange, moves }) };
  }

  /**
   * The mail a report would send next, from the same code that sends it: a weekly or monthly
   * report for the period running at `nowMs` (its checks so far), an alert for today. The
   * dashboard shows it as the preview, so the preview is the e-mail. `wouldSend` is false for
   * an alert no keyword triggers today (no mail would go out).
   */
  async preview(
    report: ReportRow,
    tracking: TrackingRow,
    nowMs: number,
  ): Promise<{ period: { start: string; end: string }; wouldSend: boolean; mail: ReportMail }> {
    if (report.type === REPORT_TYPES.rankChange) {
      const today = utcDay(nowMs);
      const { moves, mail } = await this.composeAlert(report, tracking, today);
      return { period: { start: today, end: today }, wouldSend: moves > 0, mail: { ...mail, attachments: [] } };
    }
    const period = runningPeriod(report.type as PeriodicType, nowMs);
    return { period: { start: period.start, end: period.end }, wouldSend: true, mail: await this.composeReport(report, tracking, period) };
  }

  private trackingHeader(tracking: TrackingRow) {
    const loc = this.ctx.locations.get(tracking.location_id);
    return {
      domain: tracking.domain,
      location: { label: loc?.label ?? String(tracking.location_id), code: loc?.code ?? '' },
      platform_id: tracking.platform_id,
    };
  }

  /** A weekly or monthly report's mail for one period. */
  private async composeReport(report: ReportRow, tracking: TrackingRow, period: Pick<ReportPeriod, 'start' | 'end'>): Promise<ReportMail> {
    const keywords = await this.keywordHistories(tracking.id, period);
    return renderRankReport({
      type: report.type === REPORT_TYPES.monthly ? 1 : 0,
      name: report.name,
      tracking: this.trackingHeader(tracking),
      period: { start: period.start, end: period.end },
      keywords,
      trackingUrl: `${this.ctx.config.publicUrl}/v3/rank-tool/trackings/${tracking.id}/detail`,
      dataLabel: 'Sandbox data',
    });
  }

  /** A report's message for one period (a day for an alert), and its outbox name when there is no SMTP server. */
  private message(report: ReportRow, periodStart: string, mail: Omit<Mail.Options, 'from' | 'to'>): { message: Mail.Options; outboxName: string } {
    const domain = this.mailer.domain();
    const message = {
      from: `Quarry rank reports <reports@${domain}>`,
      to: JSON.parse(report.emails) as string[],
      messageId: reportMessageId(report.id, periodStart, domain),
      ...mail,
    };
    return { message, outboxName: `${periodStart}-${report.id}` };
  }

  private async keywordHistories(trackingId: string, period: Pick<ReportPeriod, 'start' | 'end'>): Promise<RankReportKeyword[]> {
    const db = this.ctx.state.db;
    const keywords = await db.selectFrom('rank_tracked_keywords').select(['id', 'kw', 'sv']).where('tracking_id', '=', trackingId).execute();
    const checks = await db
      .selectFrom('rank_checks')
      .select(['keyword_id', 'day', 'position', 'url'])
      .where('tracking_id', '=', trackingId)
      .where('day', '>=', period.start)
      .where('day', '<=', period.end)
      .orderBy('keyword_id')
      .orderBy('day')
      .execute();
    const byKeyword = new Map<string, { history: { date: string; position: number | null }[]; url: string | null }>();
    for (const c of checks) {
      let k = byKeyword.get(c.keyword_id);
      if (!k) byKeyword.set(c.keyword_id, (k = { history: [], url: null }));
      k.history.push({ date: c.day, position: c.position });
      k.url = c.url;
    }
    return keywords.map((k) => ({ kw: k.kw, sv: k.sv, url: byKeyword.get(k.id)?.url ?? null, history: byKeyword.get(k.id)?.history ?? [] }));
  }

  async close(): Promise<void> {
    this.mailer.close();
  }
}
