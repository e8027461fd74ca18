/** The CSV form of keyword items (exports and list detail). */
import type { KeywordItem } from '../../engine/search/index.js';

/** The export columns of the contract, in their canonical order. */
export const KEYWORD_CSV_FIELDS = ['kw', 'sv', 'lid', 'cpc', 'ppc', 'seo', 'msv'] as const;
export type KeywordCsvField = (typeof KEYWORD_CSV_FIELDS)[number];

/**
 * Parses the `fields` parameter ("kw,sv,msv"): known names, in the order given, without
 * repeats; undefined or empty means every column. Returns null when a name is unknown.
 */
export function parseCsvFields(fields: string | undefined): KeywordCsvField[] | null {
  if (fields === undefined || fields.trim() === '') return [...KEYWORD_CSV_FIELDS];
  const out: KeywordCsvField[] = [];
  for (const raw of fields.split(',')) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    if (!(KEYWORD_CSV_FIELDS as readonly string[]).includes(name)) return null;
    if (!out.includes(name as KeywordCsvField)) out.push(name as KeywordCsvField);
  }
  return out.length > 0 ? out : null;
}

/** One CSV row of a keyword: numbers as numbers, an unknown figure (`sv`, `cpc`, `ppc`, `seo`) empty, `msv` as JSON. */
export function keywordCsvRow(item: KeywordItem, fields: readonly KeywordCsvField[]): (string | number)[] {
  return fields.map((f) => {
    switch (f) {
      case 'msv':
        return JSON.stringify(item.msv);
      default:
        return item[f] ?? '';
    }
  });
}
