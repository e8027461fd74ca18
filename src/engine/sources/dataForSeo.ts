/**
 * DataForSEO's v3 API (https://docs.dataforseo.com/v3/): the Google Organic SERP API
 * (`POST /v3/serp/google/organic/live/advanced`) and the Keywords Data search volume
 * (`POST /v3/keywords_data/google_ads/search_volume/live`, ideas from
 * `.../keywords_for_keywords/live`). HTTP Basic authentication with the account's API
 * login and password; a JSON array of tasks in, `{ status_code, cost, tasks: [{ status_code,
 * result: [...] }] }` out.
 *
 * Its documented answers (https://docs.dataforseo.com/v3/appendix/errors): HTTP 200 for
 * almost everything, with the outcome in `status_code` at the request and at the task
 * level (20000 ok); HTTP 401 wrong credentials, 402 no balance, 404 no such endpoint, 500
 * its failure. Internal codes: 40202 / 40209 the per-minute rate and concurrency limits
 * (retried with backoff, like an HTTP 429 and a 5xx / 5xxxx), 40203 the account's own cost
 * limit, 40102 "No Search Results" (an empty page, not a failure); any other 4xxxx is final.
 */
import type { KeywordData, KeywordSource, RankedKeyword } from './types.js';
import { exchange, type ProviderHttpOptions, type Verdict } from './providerHttp.js';
import { httpUrl, list, record, text, type FetchedBlock, type FetchedMember, type FetchedSerp } from './fetchedSerp.js';
import type { ProviderSerpQuery, SerpFetcher } from './providerSerp.js';

export interface DataForSeoOptions {
  login: string;
  password: string;
  /** Default https://api.dataforseo.com */
  baseUrl: string;
  http: ProviderHttpOptions;
  /** Dollars reserved from the daily budget before a call; settled at the answer's `cost`. */
  estimate: number;
}

const RATE_LIMITED = new Set([40202, 40209]);
const KEYWORDS_PATH = '/v3/keywords_data/google_ads/';
const LABS_PATH = '/v3/dataforseo_labs/google/';
const NO_RESULTS = 40102;

export function auth(options: Pick<DataForSeoOptions, 'login' | 'password'>): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${options.login}:${options.password}`).toString('base64')}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
}

/** The first task's result list and the request's cost, or why not. */
export function readTask(status: number, body: unknown): Verdict<{ result: unknown[]; cost: number; empty: boolean }> {
  const b = record(body);
  const message = text(b.status_message) ?? `HTTP ${status}`;
  if (status === 429) return { ok: false, retry: 'rate-limited', message };
  if (status >= 500) return { ok: false, retry: 'failed', message };
  if (status !== 200) return { ok: false, retry: false, message };
  const code = typeof b.status_code === 'number' ? b.status_code : NaN;
  if (Number.isNaN(code)) return { ok: false, retry: 'failed', message: 'the answer is not DataForSEO JSON' };
  const verdictOf = (c: number, m: string): Verdict<never> | null => {
    if (c === 20000) return null;
    if (RATE_LIMITED.has(c)) return { ok: false, retry: 'rate-limited', message: `${c} ${m}` };
    if (c >= 50000) return { ok: false, retry: 'failed', message: `${c} ${m}` };
    return { ok: false, retry: false, message: `${c} ${m}` };
  };
  const top = verdictOf(code, message);
  if (top) return top;
  const task = record(list(b.tasks)[0]);
  const taskCode = typeof task.status_code === 'number' ? task.status_code : NaN;
  const cost = typeof b.cost === 'number' && Number.isFinite(b.cost) && b.cost >= 0 ? b.cost : 0;
  if (taskCode === NO_RESULTS) return { ok: true, value: { result: [], cost, empty: true } };
  if (Number.isNaN(taskCode)) return { ok: false, retry: 'failed', message: 'the answer holds no task' };
  const taskVerdict = verdictOf(taskCode, text(task.status_message) ?? '');
  if (taskVerdict) return taskVerdict;
  return { ok: true, value: { result: list(task.result), cost, empty: false } };
}

/** What a live SERP is asked for: the search, its place (a Google Ads location id), device (2 mobile) and language. */
export interface LiveSerpQuery {
  keyword: string;
  locationId: number;
  platform: number;
  languageCode: string | null;
}

/**
 * One task of the Google Organic SERP API, live advanced, for the SERP tool's pages and the AI
 * Overviews alike; `settings` adds to the task (a depth, the overview's loading).
 */
export function liveSerp(
  options: Pick<DataForSeoOptions, 'login' | 'password' | 'baseUrl'>,
  http: ProviderHttpOptions,
  query: LiveSerpQuery,
  settings: Record<string, unknown>,
): Promise<{ result: unknown[]; cost: number; empty: boolean }> {
  const task: Record<string, unknown> = {
    keyword: query.keyword,
    location_code: query.locationId,
    device: query.platform === 2 ? 'mobile' : 'desktop',
    ...settings,
  };
  if (query.languageCode) task.language_code = query.languageCode;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/v3/serp/google/organic/live/advanced`;
  return exchange('dataforseo', { url, method: 'POST', headers: auth(options), body: JSON.stringify([task]) }, http, readTask);
}

export function dataForSeoSerpFetcher(options: DataForSeoOptions): SerpFetcher {
  return {
    name: 'dataforseo',
    estimate: () => options.estimate,
    async fetch(query: ProviderSerpQuery) {
      const answer = await liveSerp(options, options.http, query, { depth: 100 * (query.page + 1) });
      return { serp: mapDataForSeoSerp(record(answer.result[0]), query.page), cost: answer.cost };
    },
  };
}

/** Our block type of each DataForSEO feature element, and its members' type. */
const FEATURES: Record<string, { type: string; member: string }> = {
  featured_snippet: { type: 'FEATURED_SNIPPET', member: 'LINK' },
  knowledge_graph: { type: 'KNO_GRAPH', member: 'LINK' },
  top_stories: { type: 'TOP_STORIES', member: 'STORY' },
  video: { type: 'VIDEO_PACK', member: 'VIDEO' },
  images: { type: 'IMG_PACK', member: 'IMAGE' },
  shopping: { type: 'SHOP_RESULTS', member: 'SHOP' },
  popular_products: { type: 'SHOP_RESULTS', member: 'SHOP' },
  people_also_ask: { type: 'SIMILAR_QUESTIONS', member: 'QUESTION' },
  related_searches: { type: 'SIMILAR_QUERIES', member: 'QUERY' },
};

/**
 * A DataForSEO SERP result as our blocks, in page order (`rank_absolute`). Consecutive
 * `paid` elements form one ad block (top before the first organic result, bottom after),
 * consecutive `local_pack` elements one map pack. Page `page` keeps the organic results of
 * that hundred (`rank_group`); features are kept on the first page only, as the sandbox does.
 */
export function mapDataForSeoSerp(result: Record<string, unknown>, page: number): FetchedSerp {
  const items = list(result.items)
    .map(record)
    .sort((a, b) => num(a.rank_absolute) - num(b.rank_absolute));
  const blocks: FetchedBlock[] = [];
  let seenOrganic = false;
  let group = null as { type: string; block: Extract<FetchedBlock, { kind: 'feature' }> } | null;
  const lo = page * 100;
  const hi = (page + 1) * 100;
  for (const item of items) {
    const type = text(item.type) ?? '';
    if (type === 'organic') {
      group = null;
      const rank = num(item.rank_group);
      const url = httpUrl(item.url);
      const title = text(item.title);
      if (rank <= lo || rank > hi || url === null || title === null) continue;
      seenOrganic = true;
      blocks.push({ kind: 'organic', url, title, desc: text(item.description), date: isoDay(item.timestamp) });
      continue;
    }
    if (page > 0) continue;
    if (type === 'paid' || type === 'local_pack') {
      const blockType = type === 'local_pack' ? 'LOCAL_PACK' : seenOrganic ? 'ADV_BOTTOM' : 'ADV_TOP';
      const member: FetchedMember | null =
        text(item.title) === null
          ? null
          : { type: type === 'paid' ? 'ADV' : 'PLACE', url: httpUrl(item.url), title: text(item.title)!, desc: text(item.description) };
      if (!member) continue;
      if (group?.type !== blockType) {
        group = { type: blockType, block: { kind: 'feature', type: blockType, column: 'main', url: null, title: null, desc: null, members: [] } };
        blocks.push(group.block);
      }
      group.block.members.push(member);
      continue;
    }
    group = null;
    const feature = FEATURES[type];
    if (!feature) continue;
    const members: FetchedMember[] = list(item.items)
      .map((m): FetchedMember | null => {
        if (typeof m === 'string') return text(m) === null ? null : { type: feature.member, url: null, title: text(m)!, desc: null };
        const r = record(m);
        const title = text(r.title) ?? text(r.alt);
        return title === null
          ? null
          : {
              type: feature.member,
              url: feature.member === 'QUESTION' ? null : httpUrl(r.url),
              title,
              desc: feature.member === 'QUESTION' ? null : text(r.description),
            };
      })
      .filter((m): m is FetchedMember => m !== null);
    const lead = type === 'featured_snippet' || type === 'knowledge_graph';
    if (!lead && members.length === 0) continue;
    blocks.push({
      kind: 'feature',
      type: feature.type,
      column: type === 'knowledge_graph' ? 'side' : 'main',
      url: lead ? httpUrl(item.url) : null,
      title: lead ? (text(item.title) ?? text(item.featured_title)) : null,
      desc: lead ? text(item.description) : null,
      members: lead ? [] : members,
    });
  }
  const total = num(result.se_results_count);
  return { sourceUrl: httpUrl(result.check_url), totalResults: total > 0 ? total : null, blocks };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** "2024-03-04 10:00:00 +00:00" → 2024-03-04. */
function isoDay(v: unknown): string | null {
  const t = text(v);
  return t !== null && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : null;
}

/**
 * Keyword metrics from Google Ads through DataForSEO's Keywords Data API: search volume
 * (the last twelve months' average), CPC, competition index (0–100) and monthly searches,
 * per location and language. One task takes up to 1,000 keywords (the API's limit).
 */
export class DataForSeoKeywordSource implements KeywordSource {
  readonly name = 'dataforseo' as const;
  static readonly MAX_KEYWORDS_PER_TASK = 1_000;

  constructor(
    private readonly options: DataForSeoOptions,
    /** Spends the budget around a call (keywordFill.ts): reserve, call, settle or refund. */
    private readonly spend: <T>(estimate: number, call: () => Promise<{ value: T; cost: number }>) => Promise<T>,
    /** A location id → its language code and whether it is a place providers take. */
    private readonly languageCode: (locationId: number, languageId: number) => string | null,
  ) {}

  async keywordData(keywords: readonly string[], locationId: number, languageId: number): Promise<KeywordData[]> {
    const out: KeywordData[] = [];
    for (let i = 0; i < keywords.length; i += DataForSeoKeywordSource.MAX_KEYWORDS_PER_TASK) {
      const batch = keywords.slice(i, i + DataForSeoKeywordSource.MAX_KEYWORDS_PER_TASK);
      const rows = await this.task('search_volume', { keywords: batch }, locationId, languageId);
      out.push(...rows.map(keywordDataOf).filter((k): k is KeywordData => k !== null));
    }
    return out;
  }

  /** Ideas from Google Ads' keyword planner (`keywords_for_keywords`), with their metrics, by volume. */
  async ideas(seed: string, locationId: number, languageId: number, limit: number): Promise<KeywordData[]> {
    const rows = await this.task('keywords_for_keywords', { keywords: [seed] }, locationId, languageId);
    return rows
      .map((r) => keywordDataOf(r))
      .filter((k): k is KeywordData => k !== null && k.kw !== seed)
      .sort((a, b) => b.volume - a.volume || a.kw.localeCompare(b.kw))
      .slice(0, limit);
  }

  /**
   * The keywords a target ranks for, from DataForSEO Labs' ranking database
   * (`dataforseo_labs/google/ranked_keywords/live`, organic results, best positions first):
   * position ← `rank_group`, url ← the result's `url`, metrics ← `keyword_info` (its
   * `competition` is 0–1: ×100 is Google Ads' competition index). Labs' own
   * `keyword_difficulty` is not used: a keyword has one difficulty, Quarry's (difficultyBook.ts).
   */
  async rankedKeywords(target: string, locationId: number, languageId: number, limit: number): Promise<{ total: number; keywords: RankedKeyword[] }> {
    const fields = { target, item_types: ['organic'], limit: Math.max(1, Math.min(limit, 1_000)), order_by: ['ranked_serp_element.serp_item.rank_group,asc'] };
    const result = record((await this.task('ranked_keywords', fields, locationId || 2840, languageId, LABS_PATH))[0]);
    const keywords = list(result.items)
      .map(record)
      .map((item): RankedKeyword | null => {
        const data = record(item.keyword_data);
        const serp = record(record(item.ranked_serp_element).serp_item);
        const kw = text(data.keyword)?.toLowerCase().replace(/\s+/g, ' ') ?? null;
        const url = httpUrl(serp.url);
        const position = typeof serp.rank_group === 'number' && serp.rank_group >= 1 ? Math.round(serp.rank_group) : null;
        if (kw === null || url === null || position === null) return null;
        const info = record(data.keyword_info);
        const competition = typeof info.competition === 'number' && Number.isFinite(info.competition) ? Math.round(info.competition * 100) : null;
        return { kw, position, url, data: keywordDataOf({ ...info, keyword: kw, competition_index: competition }) };
      })
      .filter((k): k is RankedKeyword => k !== null);
    const total = typeof result.total_count === 'number' && result.total_count >= keywords.length ? result.total_count : keywords.length;
    return { total, keywords };
  }

  private task(endpoint: string, fields: Record<string, unknown>, locationId: number, languageId: number, base = KEYWORDS_PATH): Promise<unknown[]> {
    const task: Record<string, unknown> = { ...fields };
    if (locationId !== 0) task.location_code = locationId;
    const lang = this.languageCode(locationId, languageId);
    if (lang) task.language_code = lang;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}${base}${endpoint}/live`;
    return this.spend(this.options.estimate, async () => {
      const answer = await exchange(
        'dataforseo',
        { url, method: 'POST', headers: auth(this.options), body: JSON.stringify([task]) },
        this.options.http,
        readTask,
      );
      return { value: answer.result, cost: answer.cost };
    });
  }
}

/** One Keywords Data result row as KeywordData; null without a keyword or a volume. */
export function keywordDataOf(row: unknown): KeywordData | null {
  const r = record(row);
  const kw = text(r.keyword)?.toLowerCase().replace(/\s+/g, ' ') ?? null;
  if (kw === null || typeof r.search_volume !== 'number' || !Number.isFinite(r.search_volume)) return null;
  const index =
    typeof r.competition_index === 'number' && Number.isFinite(r.competition_index) ? Math.max(0, Math.min(100, Math.round(r.competition_index))) : null;
  const cpc = typeof r.cpc === 'number' && Number.isFinite(r.cpc) && r.cpc >= 0 ? Math.round(r.cpc * 100) / 100 : null;
  const history = list(r.monthly_searches)
    .map(record)
    .filter(
      (m) =>
        Number.isInteger(m.year) && Number.isInteger(m.month) && (m.month as number) >= 1 && (m.month as number) <= 12 && typeof m.search_volume === 'number',
    )
    .map((m) => ({ year: m.year as number, month: m.month as number, searches: Math.max(0, Math.round(m.search_volume as number)) }))
    .sort((a, b) => a.year - b.year || a.month - b.month);
  return { kw, volume: Math.max(0, Math.round(r.search_volume)), cpc, competition: index, history };
}
