/**
 * The rank-change alert (report type 0): the keywords of a tracking that moved at least
 * `min_change` places between the two latest daily checks. Plain data in, mail parts out.
 */
import { escapeHtml } from '../render/rankReportEmail.js';

/** Places a keyword must move before an alert mentions it, when the report sets no trigger. */
export const DEFAULT_MIN_CHANGE = 5;
/** An unranked keyword counts as standing just below the tracked depth. */
export const UNRANKED = 101;

export interface AlertMove {
  kw: string;
  from: number | null;
  to: number | null;
  url: string | null;
}

export interface RankChangeAlertInput {
  name?: string | null;
  tracking: { domain: string; location: { label: string; code: string }; platform_id: number };
  /** The day compared with the day before, `YYYY-MM-DD`. */
  date: string;
  minChange: number;
  moves: readonly AlertMove[];
}

/** Places gained (positive) or lost (negative), unranked counted as position 101. */
export const changeOf = (m: { from: number | null; to: number | null }) => (m.from ?? UNRANKED) - (m.to ?? UNRANKED);

const position = (p: number | null) => (p === null ? '>100' : String(p));
const oneLine = (v: string) => v.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();

export function renderRankChangeAlert(input: RankChangeAlertInput): { subject: string; html: string; text: string } {
  const { tracking } = input;
  const platform = tracking.platform_id === 2 ? 'Mobile' : 'Desktop';
  const moves = [...input.moves].sort((a, b) => Math.abs(changeOf(b)) - Math.abs(changeOf(a)) || a.kw.localeCompare(b.kw));
  const count = `${moves.length} keyword${moves.length === 1 ? '' : 's'}`;
  const subject = oneLine(`Rank change alert: ${tracking.domain} — ${count} moved ${input.minChange}+ places (${input.date})`);
  const where = `${tracking.location.label} (${tracking.location.code.toUpperCase()}) · ${platform} · ${input.date}`;
  const sign = (c: number) => (c > 0 ? `▲ ${c}` : `▼ ${-c}`);
  const text = [
    `Rank change alert${input.name ? ` · ${input.name}` : ''}`,
    tracking.domain,
    where,
    '',
    'Keyword | Yesterday | Today | Change | Ranking URL',
    ...moves.map((m) => `${oneLine(m.kw)} | ${position(m.from)} | ${position(m.to)} | ${sign(changeOf(m))} | ${oneLine(m.url ?? '–')}`),
  ].join('\n');
  const rows = moves
    .map(
      (m) =>
        `<tr><td style="padding:4px 8px">${escapeHtml(m.kw)}</td><td style="padding:4px 8px;text-align:right">${position(m.from)}</td>` +
        `<td style="padding:4px 8px;text-align:right;font-weight:bold">${position(m.to)}</td>` +
        `<td style="padding:4px 8px;text-align:right;color:${changeOf(m) > 0 ? '#188038' : '#d93025'}">${escapeHtml(sign(changeOf(m)))}</td>` +
        `<td style="padding:4px 8px;font-size:12px;word-break:break-all">${escapeHtml(m.url ?? '–')}</td></tr>`,
    )
    .join('');
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:Arial,Helvetica,sans-serif;color:#202124">` +
    `<div style="font-size:13px;color:#5f6368">${escapeHtml(input.name ? `Rank change alert · ${input.name}` : 'Rank change alert')}</div>` +
    `<h1 style="font-size:22px;margin:6px 0">${escapeHtml(tracking.domain)}</h1><div style="color:#5f6368">${escapeHtml(where)}</div>` +
    `<table style="margin-top:16px;border-collapse:collapse;font-size:14px"><tr style="color:#5f6368;font-size:12px;text-align:left">` +
    `<th style="padding:4px 8px">Keyword</th><th style="padding:4px 8px">Yesterday</th><th style="padding:4px 8px">Today</th><th style="padding:4px 8px">Change</th><th style="padding:4px 8px">Ranking URL</th></tr>` +
    rows +
    `</table></body></html>`;
  return { subject, html, text: text + '\n' };
}
