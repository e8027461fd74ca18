/**
 * Engine results and stored records turned into the /keyword-tool answers (schemas.ts).
 */
import type { KeywordItem } from '../../engine/search/index.js';
import type { SearchEngine } from '../../engine/search/index.js';
import { ANY_LANGUAGE, languageById } from '../../locations/languages.js';
import type { LocationRegistry } from '../../locations/registry.js';
import type { Plan } from '../../policy/plans.js';
import { POOLS, type PoolName } from '../../policy/pools.js';
import type { KeywordListRecord } from '../../store/keywordLists.js';
import { shortLocation } from '../common/presenters.js';
import type { KeywordToolList, KeywordToolRequest, Limit } from './schemas.js';

/** A keyword as the engine resolves it: the API item plus the language it was looked up in. */
export type KeywordWithLanguage = KeywordItem & { languageId: number };

/** A keyword item with its `language` object and short `location`, as exports and lists show it. */
export function presentKeyword(k: KeywordWithLanguage, locations: LocationRegistry) {
  const { languageId, ...item } = k;
  const loc = locations.get(item.lid);
  return {
    ...item,
    language: languageById(languageId) ?? ANY_LANGUAGE,
    location: loc ? shortLocation(loc) : { _id: item.lid, label: String(item.lid), code: '' },
  };
}

/** A stored list as list-all and create answer it. */
export function presentList(list: KeywordListRecord): KeywordToolList {
  return { ...list, __v: 0 };
}

/** A keyword-tool history entry as stored by the paid operations (see their `history`). */
interface StoredKeywordRequest {
  t: number;
  _id?: string;
  kw?: string;
  /** t 0: the `language_id` asked (0: the location's main language). */
  language?: number;
  location: { _id: number; label: string; code: string | null };
  rank?: number | null;
  rank_ts?: number | null;
  url?: string;
  domain?: string;
  competitors?: string[];
  page?: number;
  created: number;
}

/**
 * A history entry as the reference shows it: `language` the language the lookup ran in (a
 * Language object: the stored id resolved as the lookup resolved it), and `lid` the location
 * id, a string on competitor lookups (t 1) and an integer on gap analyses (t 2).
 */
export function presentKeywordRequest(raw: unknown, search: SearchEngine): KeywordToolRequest {
  const { language, ...entry } = raw as StoredKeywordRequest;
  const out: KeywordToolRequest = { ...entry };
  if (language !== undefined) out.language = search.languageFor(entry.location._id, language);
  if (entry.t === 1) out.lid = String(entry.location._id);
  if (entry.t === 2) out.lid = entry.location._id;
  return out;
}

/** The limits a plan comparison shows, in order: name, tooltip and each plan's value. */
const COMPARED: { name: string; tooltip: string; value: (p: Plan) => number }[] = [
  { name: 'related-keywords-rows', tooltip: 'Keywords per related-keywords lookup and per keyword import', value: (p) => p.relatedKeywordsRows },
  { name: 'competitor-keywords-rows', tooltip: 'Keywords per competitor-keywords lookup', value: (p) => p.competitorKeywordsRows },
  { name: 'tracked-keywords', tooltip: 'Keywords tracked across all rank trackings', value: (p) => p.trackedKeywords },
  { name: 'reqs-per-short-period', tooltip: 'Requests per burst window, per quota pool', value: (p) => p.reqsPerShortPeriod },
  ...POOLS.map((pool: PoolName) => ({
    name: pool,
    tooltip: pool === 'links' ? 'Backlink rows per calendar month' : 'Lookups per 24-hour period',
    value: (p: Plan) => p.pools[pool],
  })),
];

/**
 * `limit_options`: the configured plans compared limit by limit, plans sharing a value
 * grouped in one entry (plan order kept), values as text like the reference's.
 */
export function limitOptions(plans: readonly Plan[]): Limit['limit_options'] {
  return COMPARED.map(({ name, tooltip, value }) => {
    const groups = new Map<number, string[]>();
    for (const plan of plans) {
      const v = value(plan);
      const names = groups.get(v) ?? [];
      names.push(plan.name);
      groups.set(v, names);
    }
    const limits = [...groups].map(([v, names]) => ({ plan: names.length === 1 ? names[0] : names, value: String(v), color: '' }));
    return { name, tooltip, limits };
  });
}
