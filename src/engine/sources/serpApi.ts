/**
 * SerpApi's Google Search API (https://serpapi.com/search-api): one GET of
 * `/search.json?engine=google&q=…&api_key=…` answering the page as JSON, mapped here to our
 * neutral SERP form (fetchedSerp.ts).
 *
 * Its documented answers (https://serpapi.com/api-status-and-error-codes): 200 with the
 * page, or with `{ "error": "…" }` when the search ran but failed (an empty result page is
 * such an "error": "Google hasn't returned any results for this query."); 400 a bad
 * parameter, 401 a wrong key, 403 a deleted account, 429 the hourly throughput limit or
 * the account's searches run out, 500/503 its own failure. The 429 of throughput and its
 * 5xx are retried with backoff; the 429 of an exhausted account and the others are not.
 *
 * Mapped members: `organic_results` (title, link, snippet, date), `ads` (by
 * `block_position` top or bottom), `answer_box` (featured snippet), `knowledge_graph`,
 * `local_results.places`, `top_stories`, `inline_videos`, `inline_images`,
 * `shopping_results`/`inline_shopping`, `related_questions` and `related_searches`.
 * SerpApi does not say where features sit between organic results, so they take the slots
 * Google's page usually gives them (the same slots as the sandbox's serpFeatures.ts).
 */
import type { ProviderHttpOptions, Verdict } from './providerHttp.js';
import { exchange } from './providerHttp.js';
import { httpUrl, list, record, text, type FetchedBlock, type FetchedMember, type FetchedSerp } from './fetchedSerp.js';
import type { ProviderSerpQuery, SerpFetcher } from './providerSerp.js';

export interface SerpApiOptions {
  apiKey: string;
  /** Default https://serpapi.com */
  baseUrl: string;
  http: ProviderHttpOptions;
  /** Price of one search (US dollars), counted against the daily budget. */
  costPerSearch: number;
}

/** The empty page's "error" (SerpApi's wording): a SERP without results, not a failure. */
const NO_RESULTS = /hasn't returned any results/i;
/** The 429 of an account without searches left: waiting an hour does not help. */
const OUT_OF_SEARCHES = /run out of searches|searches for the month/i;

export function serpApiFetcher(options: SerpApiOptions): SerpFetcher {
  return {
    name: 'serpapi',
    estimate: () => options.costPerSearch,
    async fetch(query: ProviderSerpQuery) {
      const params = new URLSearchParams({
        engine: 'google',
        q: query.keyword,
        google_domain: query.engineDomain,
        num: '100',
        api_key: options.apiKey,
      });
      if (query.countryCode) params.set('gl', query.countryCode.toLowerCase());
      if (query.languageCode) params.set('hl', query.languageCode);
      // A city, region or state is searched from there; a country is the gl parameter alone.
      if (query.canonicalLocation) params.set('location', query.canonicalLocation);
      if (query.page > 0) params.set('start', String(query.page * 100));
      params.set('device', query.platform === 2 ? 'mobile' : 'desktop');
      const url = `${options.baseUrl.replace(/\/+$/, '')}/search.json?${params.toString()}`;
      const serp = await exchange('serpapi', { url, method: 'GET', headers: { accept: 'application/json' } }, options.http, readSerpApi);
      return { serp, cost: options.costPerSearch };
    },
  };
}

export function readSerpApi(status: number, body: unknown): Verdict<FetchedSerp> {
  const b = record(body);
  const error = text(b.error);
  if (status === 429) {
    const message = error ?? 'rate limit (HTTP 429)';
    return { ok: false, retry: OUT_OF_SEARCHES.test(message) ? false : 'rate-limited', message };
  }
  if (status >= 500) return { ok: false, retry: 'failed', message: error ?? `HTTP ${status}` };
  if (status !== 200) return { ok: false, retry: false, message: error ?? `HTTP ${status}` };
  if (error !== null) {
    if (NO_RESULTS.test(error)) return { ok: true, value: mapSerpApi({ ...b, organic_results: [] }) };
    return { ok: false, retry: false, message: error };
  }
  if (body === null || typeof body !== 'object') return { ok: false, retry: 'failed', message: 'the answer is not JSON' };
  return { ok: true, value: mapSerpApi(b) };
}

/** Slots (organic results above) of features whose place SerpApi does not give. */
const SLOT: Record<string, number> = {
  ADV_TOP: 0,
  FEATURED_SNIPPET: 0,
  LOCAL_PACK: 0,
  SHOP_RESULTS: 0,
  KNO_GRAPH: 0,
  TOP_STORIES: 1,
  SIMILAR_QUESTIONS: 2,
  VIDEO_PACK: 3,
  IMG_PACK: 4,
  ADV_BOTTOM: Number.MAX_SAFE_INTEGER,
  SIMILAR_QUERIES: Number.MAX_SAFE_INTEGER,
};

export function mapSerpApi(b: Record<string, unknown>): FetchedSerp {
  const features: Extract<FetchedBlock, { kind: 'feature' }>[] = [];
  const feature = (type: string, members: FetchedMember[], lead: { url?: string | null; title?: string | null; desc?: string | null } = {}) => {
    if (members.length === 0 && !lead.title && !lead.url) return;
    features.push({
      kind: 'feature',
      type,
      column: type === 'KNO_GRAPH' ? 'side' : 'main',
      url: lead.url ?? null,
      title: lead.title ?? null,
      desc: lead.desc ?? null,
      members,
    });
  };
  const pageMember = (type: string, v: unknown, titleKey = 'title', descKey = 'snippet'): FetchedMember | null => {
    const r = record(v);
    const title = text(r[titleKey]) ?? text(r.title);
    if (title === null) return null;
    return { type, url: httpUrl(r.link), title, desc: text(r[descKey]) ?? text(r.description) };
  };
  const members = (type: string, values: unknown, titleKey?: string, descKey?: string) =>
    list(values)
      .map((v) => pageMember(type, v, titleKey, descKey))
      .filter((m): m is FetchedMember => m !== null);

  const ads = list(b.ads).map(record);
  feature(
    'ADV_TOP',
    members(
      'ADV',
      ads.filter((a) => a.block_position !== 'bottom'),
      'title',
      'description',
    ),
  );
  const answer = record(b.answer_box);
  if (Object.keys(answer).length > 0) {
    feature('FEATURED_SNIPPET', [], {
      url: httpUrl(answer.link),
      title: text(answer.title) ?? text(answer.answer),
      desc: text(answer.snippet) ?? text(answer.answer),
    });
  }
  feature('LOCAL_PACK', members('PLACE', record(b.local_results).places ?? b.local_results, 'title', 'address'));
  feature('SHOP_RESULTS', members('SHOP', list(b.shopping_results).length > 0 ? b.shopping_results : b.inline_shopping, 'title', 'source'));
  const kg = record(b.knowledge_graph);
  if (text(kg.title) !== null) feature('KNO_GRAPH', [], { url: httpUrl(kg.website), title: text(kg.title), desc: text(kg.description) });
  feature('TOP_STORIES', members('STORY', b.top_stories, 'title', 'source'));
  feature(
    'SIMILAR_QUESTIONS',
    list(b.related_questions)
      .map(record)
      .map((q): FetchedMember | null => (text(q.question) === null ? null : { type: 'QUESTION', url: null, title: text(q.question)!, desc: null }))
      .filter((m): m is FetchedMember => m !== null),
  );
  feature('VIDEO_PACK', members('VIDEO', b.inline_videos, 'title', 'channel'));
  feature(
    'IMG_PACK',
    list(b.inline_images)
      .map(record)
      .map((i) => ({ type: 'IMAGE', url: httpUrl(i.source) ?? httpUrl(i.link), title: text(i.title) ?? text(i.source_name) ?? '', desc: null }))
      .filter((m) => m.title !== '' || m.url !== null),
  );
  feature(
    'ADV_BOTTOM',
    members(
      'ADV',
      ads.filter((a) => a.block_position === 'bottom'),
      'title',
      'description',
    ),
  );
  feature(
    'SIMILAR_QUERIES',
    list(b.related_searches)
      .map(record)
      .map((q): FetchedMember | null => (text(q.query) === null ? null : { type: 'QUERY', url: null, title: text(q.query)!, desc: null }))
      .filter((m): m is FetchedMember => m !== null),
  );

  const organic: FetchedBlock[] = [];
  for (const r of list(b.organic_results).map(record)) {
    const url = httpUrl(r.link);
    const title = text(r.title);
    if (url === null || title === null) continue;
    organic.push({ kind: 'organic', url, title, desc: text(r.snippet), date: isoDate(r.date) });
  }
  const blocks: FetchedBlock[] = [];
  let f = 0;
  const ordered = features.map((x, i) => ({ x, i })).sort((a, b2) => SLOT[a.x.type] - SLOT[b2.x.type] || a.i - b2.i);
  const pushUpTo = (above: number) => {
    while (f < ordered.length && SLOT[ordered[f].x.type] <= above) blocks.push(ordered[f++].x);
  };
  organic.forEach((o, i) => {
    pushUpTo(i);
    blocks.push(o);
  });
  pushUpTo(Number.MAX_SAFE_INTEGER);
  const info = record(b.search_information);
  const total = typeof info.total_results === 'number' && Number.isFinite(info.total_results) ? Math.max(0, Math.round(info.total_results)) : null;
  return { sourceUrl: httpUrl(record(b.search_metadata).google_url), totalResults: total, blocks };
}

/** A result's date as YYYY-MM-DD when SerpApi shows an absolute one ("Mar 4, 2024"); relative dates ("3 days ago") are left out. */
function isoDate(value: unknown): string | null {
  const t = text(value);
  if (t === null || /ago$/i.test(t)) return null;
  const ms = Date.parse(`${t} UTC`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}
