/**
 * Imports keyword metrics from a Google Ads Keyword Planner export: columns "Keyword",
 * "Avg. monthly searches", "Searches: Jan 2024"-style monthly columns, "Competition
 * (indexed value)", "Top of page bid (low range)", "Top of page bid (high range)".
 *
 * Imported keywords land in the same tables as sandbox ones and are served the same way:
 * - a new keyword gets `origin = 'import'`, its monthly searches in `keyword_history` for
 *   the location (they override the derived history), a market share of 1 for that
 *   location and, as global volume, the average monthly searches;
 * - an existing keyword keeps its global volume; its share for the location becomes
 *   searches / global volume (capped at 1) and the imported months are stored.
 * - ppc = Competition (indexed value) (0–100); cpc = midpoint of the top-of-page bid
 *   range (Google's documented proxy for what advertisers pay for the top of the page);
 *   a new keyword whose export leaves them empty has them unknown (answered null, never 0),
 *   an existing one keeps what it had.
 * - stored rank indexes are deleted (markets are ranked again on next use).
 *
 * Example: `await importKeywordsCsv('planner.csv', { locationId: 2840, languageId: 1000, store })`.
 */
import type { ResearchStore } from '../researchStore.js';
import { UNKNOWN_FIGURE } from '../search/keywordMetrics.js';
import { deleteStoredRankIndexes } from '../search/searchStore.js';
import { hash32 } from '../world/random.js';
import { columnIndex, parseLooseNumber, readCsvTable } from './csvFile.js';
import { ImportError } from './importError.js';

export interface KeywordImportOptions {
  locationId: number;
  languageId: number;
  store: ResearchStore;
}

export interface KeywordImportResult {
  imported: number;
  created: number;
  updated: number;
  skipped: number;
  months: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Normalised keyword text: trimmed, lower-case, single spaces. */
export function normalizeKeyword(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** Intent hints from the words of a keyword (the same labels the generator uses). */
export function intentHints(keyword: string): string {
  const hints = new Set<string>();
  if (/\b(buy|cheap|price|prices|deal|deals|sale|discount|coupon|order|kaufen|günstig|acheter|pas cher)\b/.test(keyword)) hints.add('transactional');
  if (/\b(best|top|review|reviews|vs|versus|compare|comparison|test|vergleich|meilleur|avis|comparatif)\b/.test(keyword)) hints.add('commercial');
  if (/\b(how|what|why|when|where|which|who|guide|tips|tutorial|was|wie|comment|pourquoi)\b/.test(keyword)) hints.add('informational');
  if (/^(how|what|why|when|where|which|who|is|are|can|does|do|was|wie|welche|comment|pourquoi|qu)\b/.test(keyword)) hints.add('question');
  if (/\b(near me|in der nähe|près de moi)\b/.test(keyword)) hints.add('local');
  if (hints.size === 0) hints.add('informational');
  return [...hints].join(',');
}

/** One row of the export, read and checked before anything is written. */
interface PlannerRow {
  kw: string;
  average: number;
  cpc: number | null;
  ppc: number | null;
  months: { year: number; month: number; searches: number }[];
}

export async function importKeywordsCsv(file: string, options: KeywordImportOptions): Promise<KeywordImportResult> {
  const { header, rows } = readCsvTable(
    file,
    (cells) => cells.some((c) => c.toLowerCase() === 'keyword'),
    'a Keyword Planner export (a header row with a "Keyword" column)',
  );
  const kwCol = columnIndex(header, 'Keyword');
  const avgCol = columnIndex(header, 'Avg. monthly searches', 'Avg. Monthly Searches (exact match only)');
  const compCol = columnIndex(header, 'Competition (indexed value)');
  const lowCol = columnIndex(header, 'Top of page bid (low range)');
  const highCol = columnIndex(header, 'Top of page bid (high range)');
  const monthCols: { index: number; year: number; month: number }[] = [];
  header.forEach((h, index) => {
    const m = /^searches:\s*([a-z]{3})\w*\s+(\d{4})$/i.exec(h);
    if (m && MONTHS.includes(m[1].toLowerCase())) monthCols.push({ index, year: Number(m[2]), month: MONTHS.indexOf(m[1].toLowerCase()) + 1 });
  });
  // The format is checked before anything is written: an export without searches would import nothing
  // and still cost the markets their rank indexes.
  if (avgCol < 0 && monthCols.length === 0) {
    throw new ImportError(`${file}: not a Keyword Planner export: it has no "Avg. monthly searches" or "Searches: <Mon YYYY>" column; nothing was imported`);
  }
  const result: KeywordImportResult = { imported: 0, created: 0, updated: 0, skipped: 0, months: 0 };
  const parsed: PlannerRow[] = [];
  for (const row of rows) {
    const kw = normalizeKeyword(row[kwCol] ?? '');
    const months = monthCols
      .map((c) => ({ year: c.year, month: c.month, searches: parseLooseNumber(row[c.index]) }))
      .filter((m): m is { year: number; month: number; searches: number } => m.searches !== null)
      .sort((a, b) => a.year - b.year || a.month - b.month);
    let average = avgCol >= 0 ? parseLooseNumber(row[avgCol]) : null;
    if (average === null && months.length > 0) average = months.slice(-12).reduce((s, m) => s + m.searches, 0) / Math.min(12, months.length);
    if (kw === '' || average === null) {
      result.skipped++;
      continue;
    }
    const competition = compCol >= 0 ? parseLooseNumber(row[compCol]) : null;
    const low = lowCol >= 0 ? parseLooseNumber(row[lowCol]) : null;
    const high = highCol >= 0 ? parseLooseNumber(row[highCol]) : null;
    const cpc = low !== null && high !== null ? Math.round(((low + high) / 2) * 100) / 100 : (high ?? low);
    const ppc = competition === null ? null : Math.max(0, Math.min(100, Math.round(competition)));
    parsed.push({ kw, average, cpc, ppc, months });
  }
  if (parsed.length === 0) throw new ImportError(`${file}: none of its ${rows.length} rows has a keyword with searches; nothing was imported`);
  const raw = options.store.raw;
  const find = raw.prepare('SELECT id, volume FROM keywords WHERE kw = ? AND language_id = ?');
  const nextId = raw.prepare('SELECT COALESCE(MAX(id), 0) + 1 FROM keywords').pluck();
  const insert = raw.prepare(`INSERT INTO keywords (id, kw, language_id, niche_id, head, kind, intent, volume, trend, noise_seed, cpc, ppc, origin)
    VALUES (?, ?, ?, NULL, ?, 'import', ?, ?, 1, ?, ?, ?, 'import')`);
  const update = raw.prepare('UPDATE keywords SET cpc = COALESCE(?, cpc), ppc = COALESCE(?, ppc) WHERE id = ?');
  const market = raw.prepare('INSERT OR REPLACE INTO keyword_markets (keyword_id, location_id, share) VALUES (?, ?, ?)');
  const history = raw.prepare('INSERT OR REPLACE INTO keyword_history (keyword_id, location_id, year, month, searches) VALUES (?, ?, ?, ?, ?)');
  raw.transaction(() => {
    for (const { kw, average, cpc, ppc, months } of parsed) {
      const existing = find.get(kw, options.languageId) as { id: number; volume: number } | undefined;
      let id: number;
      if (existing) {
        id = existing.id;
        update.run(cpc, ppc, id);
        if (options.locationId !== 0) market.run(id, options.locationId, Math.min(1, average / Math.max(1, existing.volume)));
        result.updated++;
      } else {
        id = nextId.get() as number;
        // A bid or competition the export leaves empty is a figure nobody has: stored as unknown (answered null), never 0.
        const seed = hash32(`${options.languageId}:${kw}`);
        insert.run(id, kw, options.languageId, kw, intentHints(kw), Math.round(average), seed, cpc ?? UNKNOWN_FIGURE, ppc ?? UNKNOWN_FIGURE);
        if (options.locationId !== 0) market.run(id, options.locationId, 1);
        result.created++;
      }
      for (const m of months) history.run(id, options.locationId, m.year, m.month, Math.round(m.searches));
      result.months += months.length;
      result.imported++;
    }
    raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
    deleteStoredRankIndexes(raw);
    raw.prepare("INSERT OR IGNORE INTO world_meta (key, value) VALUES ('state', 'ready'), ('origin', 'import')").run();
  })();
  return result;
}
