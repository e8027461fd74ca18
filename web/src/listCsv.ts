/**
 * The CSV the dashboard saves for a keyword list: for people and spreadsheets, with readable
 * headers and the search volume history one column per month (oldest first), built from the
 * list's JSON. The API's own CSV (GET /keyword-tool/lists/{id} as text/csv) stays as the
 * contract has it: the columns its `fields` name (kw, sv, lid, cpc, ppc, seo, msv), msv in one
 * cell, for programs that ask for those fields by name.
 */
import type { KeywordItem } from './types';

type ListKeyword = KeywordItem & { lid?: number; location?: { label?: string; _id?: number } };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One CSV field: quoted when it must be; text a spreadsheet would run as a formula is defused. */
function field(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function listCsv(keywords: ListKeyword[]): string {
  // Every month any keyword has, as year * 12 + month, in order.
  const months = [...new Set(keywords.flatMap((k) => (k.msv ?? []).map(([y, m]) => y * 12 + (m - 1))))].sort((a, b) => a - b);
  const header = [
    'Keyword',
    'Location',
    'Search volume',
    'Keyword difficulty',
    'CPC (USD)',
    'PPC competition',
    ...months.map((n) => `${MONTHS[n % 12]} ${Math.floor(n / 12)}`),
  ];
  const lines = [header.map(field).join(',')];
  for (const k of keywords) {
    const byMonth = new Map((k.msv ?? []).map(([y, m, v]) => [y * 12 + (m - 1), v]));
    lines.push(
      [k.kw, k.location?.label ?? k.lid ?? '', k.sv, k.seo, k.cpc, k.ppc, ...months.map((n) => byMonth.get(n))]
        .map((v) => field(v as string | number | null))
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
