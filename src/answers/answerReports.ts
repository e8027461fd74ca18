/**
 * The answer tool's e-mail reports, to the account's address, for each live monitor whose
 * `reports_active` asks for them: 1 weekly and 2 monthly (the period that ended last, as the
 * rank tool's reports count periods), 0 a daily alert when a model's visibility moved by at
 * least ALERT_POINTS since the day before. Once per (monitor, type, period), through the
 * deliveries record the rank reports use (rank/reportDeliveries.ts): two runs or processes never
 * send one report twice, a refused delivery is tried again by a later round, a crash before the
 * message's end is sent again after the lease and a mail the server accepted is not.
 */
import type { QuarryContext } from '../context.js';
import { DAY } from '../lib/clock.js';
import { escapeHtml } from '../render/rankReportEmail.js';
import { lastEndedPeriod, type ReportPeriod } from '../rank/rankReports.js';
import { ReportDeliveries } from '../rank/reportDeliveries.js';
import { ReportMailer } from '../rank/reportMailer.js';
import { REPORT_TYPES, utcDay } from '../store/rankTracking.js';
import { parseJsonList, type AnswerMonitorStore, type MonitorRow } from '../store/answerMonitors.js';
import { monitorFigures, type Figures } from './answerStats.js';
import type { AnswerModel } from './models.js';

/** Points of visibility a model must move by, day over day, for the daily alert. */
export const ALERT_POINTS = 20;

type ReportsContext = Pick<QuarryContext, 'config' | 'state'> & Partial<Pick<QuarryContext, 'metrics'>>;

export interface AnswerReportMail {
  subject: string;
  text: string;
  html: string;
}

/** A monitor's report of a period: per model, the answers, mentions, visibility, citations and share of voice. */
export function renderAnswerReport(
  monitor: MonitorRow,
  title: string,
  period: { start: string; end: string },
  figures: Figures[],
  models: readonly AnswerModel[],
  link: string,
): AnswerReportMail {
  const nameOf = (id: number) => models.find((m) => m.id === id)?.name ?? `model ${id}`;
  const rows = figures.map((f) => ({
    model: nameOf(f.model_id),
    cells: [
      f.answers,
      f.mentions,
      `${f.visibility}%`,
      f.domain_citations,
      f.share_of_voice === null ? '—' : `${f.share_of_voice}%`,
      f.average_position ?? '—',
    ].map(String),
    top: f.cited_urls.slice(0, 3).map((u) => u.url),
  }));
  const head = ['Model', 'Answers', 'Mentions', 'Visibility', 'Domain citations', 'Share of voice', 'Avg. position'];
  const subject = `${title}: ${monitor.brand} in AI answers, ${period.start} to ${period.end}`;
  const text = [
    subject,
    '',
    ...rows.map(
      (r) => `${r.model}: ${r.cells.map((c, i) => `${head[i + 1].toLowerCase()} ${c}`).join(', ')}${r.top.length ? `; most cited: ${r.top.join(' ')}` : ''}`,
    ),
    '',
    `Details: ${link}`,
    'Sandbox models answer from the sandbox web (demo data).',
  ].join('\n');
  const html = `<!DOCTYPE html><html><body style="font-family:sans-serif">
<h1 style="font-size:18px">${escapeHtml(subject)}</h1>
<table cellpadding="6" style="border-collapse:collapse"><thead><tr>${head.map((h) => `<th align="left">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr><td>${escapeHtml(r.model)}</td>${r.cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>
<p><a href="${escapeHtml(link)}">The monitor’s figures</a></p></body></html>`;
  return { subject, text, html };
}

export class AnswerReports {
  private readonly mailer: ReportMailer;
  private readonly deliveries: ReportDeliveries;

  constructor(
    private readonly ctx: ReportsContext,
    private readonly store: AnswerMonitorStore,
    private readonly models: readonly AnswerModel[],
  ) {
    this.mailer = new ReportMailer(ctx.config);
    this.deliveries = new ReportDeliveries(ctx.state.db, 'answer_report_deliveries', ['monitor_id', 'type', 'period_start'], ctx.metrics);
  }

  /** Sends every report whose period ended (or today's alert) and was not sent yet; answers how many were sent. */
  async runDue(nowMs: number): Promise<number> {
    let sent = 0;
    for (const monitor of await this.store.live()) {
      const types = parseJsonList<number>(monitor.reports_active);
      for (const type of types) {
        if (type === REPORT_TYPES.weekly || type === REPORT_TYPES.monthly) {
          const period = lastEndedPeriod(type, nowMs);
          if (period.endMs <= monitor.created_at * 1000) continue;
          if (await this.deliver(monitor, type, period, nowMs, () => this.periodic(monitor, type, period))) sent++;
        } else if (type === REPORT_TYPES.rankChange) {
          const today = utcDay(nowMs);
          const alert = await this.alert(monitor, today);
          if (alert && (await this.deliver(monitor, type, { start: today }, nowMs, () => Promise.resolve(alert)))) sent++;
        }
      }
    }
    return sent;
  }

  private async figures(monitor: MonitorRow, from: string, to: string): Promise<Figures[]> {
    const models = parseJsonList<number>(monitor.models);
    return monitorFigures(await this.store.results({ monitorId: monitor.id, from, to, models }), models).models;
  }

  private link(monitor: MonitorRow): string {
    return `${this.ctx.config.publicUrl}/v3/answer-tool/monitor/${monitor.id}?share_token=${monitor.share_token}`;
  }

  private async periodic(monitor: MonitorRow, type: number, period: ReportPeriod): Promise<AnswerReportMail> {
    const title = type === REPORT_TYPES.weekly ? 'Weekly AI answer report' : 'Monthly AI answer report';
    return renderAnswerReport(monitor, title, period, await this.figures(monitor, period.start, period.end), this.models, this.link(monitor));
  }

  /** Today's alert, or null when no model's visibility moved enough since yesterday. */
  private async alert(monitor: MonitorRow, today: string): Promise<AnswerReportMail | null> {
    const yesterday = utcDay(Date.parse(`${today}T00:00:00Z`) - DAY);
    const before = new Map((await this.figures(monitor, yesterday, yesterday)).map((f) => [f.model_id, f]));
    const now = await this.figures(monitor, today, today);
    const moved = now.filter((f) => {
      const b = before.get(f.model_id);
      return b !== undefined && b.answers > 0 && f.answers > 0 && Math.abs(f.visibility - b.visibility) >= ALERT_POINTS;
    });
    if (moved.length === 0) return null;
    return renderAnswerReport(monitor, 'AI answer visibility alert', { start: today, end: today }, moved, this.models, this.link(monitor));
  }

  /** Claims (monitor, type, period), sends to the account's address, records the outcome; true when sent. */
  private async deliver(
    monitor: MonitorRow,
    type: number,
    period: Pick<ReportPeriod, 'start'>,
    nowMs: number,
    compose: () => Promise<AnswerReportMail>,
  ): Promise<boolean> {
    const db = this.ctx.state.db;
    const key = { monitor_id: monitor.id, type, period_start: period.start };
    const outcome = await this.deliveries.deliver(key, nowMs, this.mailer, async () => {
      const account = await db.selectFrom('accounts').select('email').where('id', '=', monitor.account_id).executeTakeFirstOrThrow();
      const mail = await compose();
      const domain = this.mailer.domain();
      return {
        message: {
          from: `Quarry answer reports <reports@${domain}>`,
          to: [account.email],
          messageId: `<answer-report.${monitor.id}.${type}.${period.start}@${domain}>`,
          ...mail,
        },
        outboxName: `${period.start}-answers-${monitor.id}-${type}`,
      };
    });
    return outcome === 'sent';
  }

  close(): void {
    this.mailer.close();
  }
}
