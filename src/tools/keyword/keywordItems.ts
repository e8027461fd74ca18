/**
 * Keyword items as the API shows them (DESIGN.md §5), the narrow view of the research
 * engine that the keyword tool's free operations need, and their CSV form.
 */
import { languageById, ANY_LANGUAGE } from '../../locations/languages.js';
import type { LocationRegistry } from '../../locations/registry.js';
import { shortLocation } from '../shared/presenters.js';

export interface KeywordItem {
  _id: string;
  kw: string;
  /** Location id (0 = anywhere). */
  lid: number;
  sv: number;
  /** Monthly search volume history: [year, month, searches], oldest first. */
  msv: [number, number, number][];
  cpc: number;
  ppc: number;
  seo: number | null;
  seo_ts: number | null;
  ts: number;
  [extra: string]: unknown;
}

/** A keyword as the engine knows it: the API item plus its language. */
export interface CatalogKeyword {
  item: KeywordItem;
  languageId: number;
}

export interface KeywordCatalog {
  /** The keywords with these ids, in the order asked; unknown ids are left out. */
  byIds(ids: readonly string[]): CatalogKeyword[];
}

/** A keyword item with its `language` object and short `location`, as exports and lists show it. */
export function presentKeyword(k: CatalogKeyword, locations: LocationRegistry) {
  const loc = locations.get(k.item.lid);
  return {
    ...k.item,
    language: languageById(k.languageId) ?? ANY_LANGUAGE,
    location: loc ? shortLocation(loc) : { _id: k.item.lid, label: String(k.item.lid), code: '' },
  };
}

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

/** One CSV row of a keyword: numbers as numbers, `seo` empty when unknown, `msv` as JSON. */
export function keywordCsvRow(item: KeywordItem, fields: readonly KeywordCsvField[]): (string | number)[] {
  return fields.map((f) => {
    switch (f) {
      case 'msv':
        return JSON.stringify(item.msv);
      case 'seo':
        return item.seo ?? '';
      default:
        return item[f];
    }
  });
}
