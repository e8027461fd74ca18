/**
 * The rank-tracking email report (weekly or monthly): subject, HTML and plain-text
 * bodies and the rank chart as an inline (CID) image, ready for nodemailer's
 * `sendMail({ to, subject, html, text, attachments })`. Plain data in, no storage access.
 *
 * @example
 * const mail = renderRankReport({ type: 0, tracking, period: { start: '2026-11-15', end: '2026-11-21' }, keywords });
 * await transport.sendMail({ from, to: report.emails, ...mail });
 */
import type { Attachment } from 'nodemailer/lib/mailer/index.js';
import { baseClickThroughRate } from '../engine/search/clickThroughCurve.js';
import { renderRankChart, type RankPoint } from './rankChart.js';

export interface RankReportKeyword {
  kw: string;
  /** Monthly search volume; null when unknown. */
  sv: number | null;
  /** The tracked domain's URL ranking at the end of the period. */
  url: string | null;
  /** Positions over the period (null: not ranking), any order; the earliest is the start. */
  history: readonly RankPoint[];
}

export interface RankReportInput {
  /** 0 weekly, 1 monthly (the mail's own codes; stored reports use REPORT_TYPES). */
  type: 0 | 1;
  /** The report's own name, shown above the domain when set. */
  name?: string | null;
  tracking: { domain: string; location: { label: string; code: string }; platform_id: number };
  /** `YYYY-MM-DD`, inclusive. */
  period: { start: string; end: string };
  keywords: readonly RankReportKeyword[];
  /** Keywords drawn in the chart (the highest-volume ones that ranked); default 5. */
  chartKeywords?: number;
  /** Rows of the positions table; default 100, the rest summarised in one line. */
  maxRows?: number;
  /** Link to the tracking in the app (http or https). */
  trackingUrl?: string | null;
  /** Where the data comes from, shown as a badge when set (e.g. "Sandbox data"). */
  dataLabel?: string | null;
}

export interface KeywordMovement {
  kw: string;
  sv: number | null;
  url: string | null;
  start: number | null;
  current: number | null;
  /** Places gained (positive) or lost (negative) since the start; null when either end is unranked. */
  change: number | null;
}

export interface RankPeriodSummary {
  keywords: number;
  /** Mean current position of the ranking keywords, 1 decimal; null when none ranks. */
  averagePosition: number | null;
  averagePositionAtStart: number | null;
  /** Percent of the clicks the keywords would get all at position 1 (CTR-weighted), 1 decimal. */
  visibility: number;
  visibilityAtStart: number;
  top3: number;
  top10: number;
  top100: number;
  improved: number;
  declined: number;
  entered: number;
  dropped: number;
  /** Up to three biggest gains and losses. */
  topGains: KeywordMovement[];
  topLosses: KeywordMovement[];
  rows: KeywordMovement[];
}

export interface RankReportEmail {
  subject: string;
  html: string;
  text: string;
  attachments: Attachment[];
}

/** Content id of the inline chart image. */
export const RANK_CHART_CID = 'rank-chart@quarry';

const ranked = (p: number | null | undefined): p is number => typeof p === 'number' && Number.isFinite(p) && p >= 1 && p <= 100;
const round1 = (x: number) => Math.round(x * 10) / 10;

function endsOf(history: readonly RankPoint[]): { start: number | null; current: number | null } {
  const sorted = [...history].filter((p) => Number.isFinite(Date.parse(p.date))).sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  const start = sorted[0]?.position ?? null;
  const current = sorted[sorted.length - 1]?.position ?? null;
  return { start: ranked(start) ? start : null, current: ranked(current) ? current : null };
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : round1(values.reduce((a, b) => a + b, 0) / values.length);
}

/**
 * Visibility as rank trackers define it: the clicks the keywords' positions earn on the
 * CTR curve (SISTRIX 2020, see clickThroughCurve.ts) over the clicks they would earn all
 * at position 1, in percent.
 */
function visibility(positions: (number | null)[]): number {
  if (positions.length === 0) return 0;
  const earned = positions.reduce<number>((sum, p) => sum + (ranked(p) ? baseClickThroughRate(p) : 0), 0);
  return round1((100 * earned) / (positions.length * baseClickThroughRate(1)));
}

/** Figures of a tracking over a period, from each keyword's first and last position. */
export function summariseRankPeriod(keywords: readonly RankReportKeyword[]): RankPeriodSummary {
  const rows: KeywordMovement[] = keywords.map((k) => {
    const { start, current } = endsOf(k.history);
    return { kw: k.kw, sv: k.sv, url: k.url, start, current, change: start !== null && current !== null ? start - current : null };
  });
  rows.sort((a, b) => (a.current ?? 1e9) - (b.current ?? 1e9) || (b.sv ?? -1) - (a.sv ?? -1) || a.kw.localeCompare(b.kw));
  const current = rows.map((r) => r.current);
  const start = rows.map((r) => r.start);
  const moved = rows.filter((r) => r.change !== null && r.change !== 0);
  return {
    keywords: rows.length,
    averagePosition: mean(current.filter(ranked)),
    averagePositionAtStart: mean(start.filter(ranked)),
    visibility: visibility(current),
    visibilityAtStart: visibility(start),
    top3: current.filter((p) => ranked(p) && p <= 3).length,
    top10: current.filter((p) => ranked(p) && p <= 10).length,
    top100: current.filter(ranked).length,
    improved: moved.filter((r) => r.change! > 0).length,
    declined: moved.filter((r) => r.change! < 0).length,
    entered: rows.filter((r) => r.start === null && r.current !== null).length,
    dropped: rows.filter((r) => r.start !== null && r.current === null).length,
    topGains: moved
      .filter((r) => r.change! > 0)
      .sort((a, b) => b.change! - a.change!)
      .slice(0, 3),
    topLosses: moved
      .filter((r) => r.change! < 0)
      .sort((a, b) => a.change! - b.change!)
      .slice(0, 3),
    rows,
  };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** Only web links become `href`s; anything else (javascript:, data:) is shown as text. */
function safeHttpUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

/** Header values on one line: a newline in a keyword or domain must not start a new header. */
function oneLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

const integer = new Intl.NumberFormat('en-US');
const platformName = (id: number) => (id === 2 ? 'Mobile' : 'Desktop');
const kindName = (type: 0 | 1) => (type === 1 ? 'Monthly' : 'Weekly');

function changeText(r: KeywordMovement): string {
  if (r.start === null && r.current !== null) return 'new';
  if (r.start !== null && r.current === null) return 'lost';
  if (r.change === null || r.change === 0) return '–';
  return r.change > 0 ? `▲ ${r.change}` : `▼ ${-r.change}`;
}

function changeColor(r: KeywordMovement): string {
  if ((r.change ?? 0) > 0 || (r.start === null && r.current !== null)) return '#188038';
  if ((r.change ?? 0) < 0 || (r.start !== null && r.current === null)) return '#d93025';
  return '#5f6368';
}

const positionText = (p: number | null) => (p === null ? '>100' : String(p));
const signed = (x: number) => (x > 0 ? `+${x}` : String(x));

function chartSeries(input: RankReportInput): { series: RankPoint[][]; labels: string[] } {
  const count = Math.max(0, Math.min(8, input.chartKeywords ?? 5));
  const chosen = input.keywords
    .filter((k) => k.history.some((p) => ranked(p.position)))
    .slice()
    .sort((a, b) => (b.sv ?? -1) - (a.sv ?? -1) || a.kw.localeCompare(b.kw))
    .slice(0, count);
  return { series: chosen.map((k) => [...k.history]), labels: chosen.map((k) => k.kw) };
}

function summaryCell(label: string, value: string, note: string): string {
  return (
    `<td style="padding:12px;border:1px solid #e8eaed;border-radius:8px;text-align:center;width:33%">` +
    `<div style="font-size:12px;color:#5f6368">${escapeHtml(label)}</div>` +
    `<div style="font-size:24px;font-weight:bold;color:#202124;margin:4px 0">${escapeHtml(value)}</div>` +
    `<div style="font-size:12px;color:#5f6368">${escapeHtml(note)}</div></td>`
  );
}

function moversHtml(title: string, rows: KeywordMovement[]): string {
  if (rows.length === 0) return '';
  const items = rows
    .map(
      (r) =>
        `<li><span style="color:${changeColor(r)};font-weight:bold">${escapeHtml(changeText(r))}</span> ${escapeHtml(r.kw)} (now ${escapeHtml(positionText(r.current))})</li>`,
    )
    .join('');
  return `<p style="margin:12px 0 4px;font-weight:bold">${escapeHtml(title)}</p><ul style="margin:0;padding-left:20px;font-size:14px">${items}</ul>`;
}

/** Renders the report email for a tracking and period. */
export function renderRankReport(input: RankReportInput): RankReportEmail {
  const { tracking, period } = input;
  const summary = summariseRankPeriod(input.keywords);
  const kind = kindName(input.type);
  const platform = platformName(tracking.platform_id);
  const where = `${tracking.location.label}, ${platform}`;
  const periodText = `${period.start} – ${period.end}`;
  const subject = oneLine(`${kind} rank report: ${tracking.domain} — ${where} (${periodText})`);
  const maxRows = Math.max(1, input.maxRows ?? 100);
  const rows = summary.rows.slice(0, maxRows);
  const hidden = summary.rows.length - rows.length;
  const link = safeHttpUrl(input.trackingUrl);

  const { series, labels } = chartSeries(input);
  const attachments: Attachment[] = [];
  if (series.length > 0) {
    attachments.push({
      filename: 'rank-chart.png',
      content: renderRankChart(series, { labels, width: 600, height: 300 }),
      contentType: 'image/png',
      cid: RANK_CHART_CID,
    });
  }

  const avg = summary.averagePosition === null ? '–' : String(summary.averagePosition);
  const avgNote =
    summary.averagePosition !== null && summary.averagePositionAtStart !== null ? `was ${summary.averagePositionAtStart} at the start` : 'of ranking keywords';
  const visNote = `${signed(round1(summary.visibility - summary.visibilityAtStart))} points since the start`;

  const tableRows = rows
    .map((r) => {
      const url = safeHttpUrl(r.url);
      const urlCell = url ? `<a href="${escapeHtml(url)}" style="color:#1a0dab;text-decoration:none">${escapeHtml(r.url ?? '')}</a>` : escapeHtml(r.url ?? '–');
      return (
        `<tr><td style="padding:6px 8px;border-top:1px solid #e8eaed">${escapeHtml(r.kw)}</td>` +
        `<td style="padding:6px 8px;border-top:1px solid #e8eaed;text-align:right;font-weight:bold">${escapeHtml(positionText(r.current))}</td>` +
        `<td style="padding:6px 8px;border-top:1px solid #e8eaed;text-align:right;color:${changeColor(r)}">${escapeHtml(changeText(r))}</td>` +
        `<td style="padding:6px 8px;border-top:1px solid #e8eaed;word-break:break-all;font-size:12px">${urlCell}</td>` +
        `<td style="padding:6px 8px;border-top:1px solid #e8eaed;text-align:right">${r.sv === null ? '–' : integer.format(r.sv)}</td></tr>`
      );
    })
    .join('');

  const badge = input.dataLabel
    ? `<span style="display:inline-block;margin-left:8px;padding:2px 10px;border:1px solid #f9ab00;border-radius:12px;background:#fef7e0;color:#8a4b00;font-size:12px;font-weight:bold">${escapeHtml(input.dataLabel)}</span>`
    : '';
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body style="margin:0;padding:0;background:#f1f3f4;font-family:Arial,Helvetica,sans-serif;color:#202124">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px">` +
    `<table role="presentation" width="640" cellpadding="0" cellspacing="0" style="max-width:640px;background:#ffffff;border-radius:8px"><tr><td style="padding:24px">` +
    `<div style="font-size:13px;color:#5f6368">${escapeHtml(input.name ? `${kind} rank report · ${input.name}` : `${kind} rank report`)}${badge}</div>` +
    `<h1 style="font-size:24px;margin:6px 0 4px">${escapeHtml(tracking.domain)}</h1>` +
    `<div style="font-size:14px;color:#5f6368">${escapeHtml(`${tracking.location.label} (${tracking.location.code.toUpperCase()}) · ${platform} · ${periodText}`)}</div>` +
    `<table role="presentation" width="100%" cellspacing="8" style="margin:16px -8px 0"><tr>` +
    summaryCell('Average position', avg, avgNote) +
    summaryCell('Visibility', `${summary.visibility}%`, visNote) +
    summaryCell('Keywords tracked', integer.format(summary.keywords), `${summary.improved} up · ${summary.declined} down`) +
    `</tr><tr>` +
    summaryCell('Top 3', integer.format(summary.top3), 'positions 1–3') +
    summaryCell('Top 10', integer.format(summary.top10), 'positions 1–10') +
    summaryCell('Top 100', integer.format(summary.top100), `${summary.entered} new · ${summary.dropped} lost`) +
    `</tr></table>` +
    moversHtml('Biggest gains', summary.topGains) +
    moversHtml('Biggest losses', summary.topLosses) +
    (attachments.length > 0
      ? `<p style="margin:20px 0 8px;font-weight:bold">Positions over the period</p><img src="cid:${RANK_CHART_CID}" width="600" style="max-width:100%;height:auto;display:block" alt="${escapeHtml(`Rank chart: ${labels.join(', ')}`)}">`
      : '') +
    `<p style="margin:20px 0 8px;font-weight:bold">Positions</p>` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="font-size:14px;border-collapse:collapse">` +
    `<tr style="color:#5f6368;font-size:12px;text-align:left"><th style="padding:6px 8px">Keyword</th><th style="padding:6px 8px;text-align:right">Position</th><th style="padding:6px 8px;text-align:right">Change</th><th style="padding:6px 8px">Ranking URL</th><th style="padding:6px 8px;text-align:right">Volume</th></tr>` +
    tableRows +
    `</table>` +
    (hidden > 0 ? `<p style="font-size:13px;color:#5f6368">…and ${integer.format(hidden)} more keywords.</p>` : '') +
    (link ? `<p style="margin-top:20px"><a href="${escapeHtml(link)}" style="color:#1a73e8">Open the tracking</a></p>` : '') +
    `</td></tr></table></td></tr></table></body></html>`;

  const textLines = [
    `${kind} rank report${input.name ? ` · ${input.name}` : ''}${input.dataLabel ? ` [${input.dataLabel}]` : ''}`,
    tracking.domain,
    `${tracking.location.label} (${tracking.location.code.toUpperCase()}) · ${platform} · ${periodText}`,
    '',
    `Average position: ${avg} (${avgNote})`,
    `Visibility: ${summary.visibility}% (${visNote})`,
    `Keywords: ${summary.keywords} · top 3: ${summary.top3} · top 10: ${summary.top10} · top 100: ${summary.top100}`,
    `Movers: ${summary.improved} up, ${summary.declined} down, ${summary.entered} new, ${summary.dropped} lost`,
    '',
    'Keyword | Position | Change | Ranking URL | Volume',
    ...rows.map(
      (r) => `${oneLine(r.kw)} | ${positionText(r.current)} | ${changeText(r)} | ${oneLine(r.url ?? '–')} | ${r.sv === null ? '–' : integer.format(r.sv)}`,
    ),
    ...(hidden > 0 ? [`…and ${integer.format(hidden)} more keywords.`] : []),
    ...(link ? ['', `Open the tracking: ${link}`] : []),
  ];
  return { subject, html, text: textLines.join('\n') + '\n', attachments };
}
