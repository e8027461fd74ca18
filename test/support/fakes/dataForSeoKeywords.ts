/**
 * A fake of DataForSEO's keyword endpoints over a fake keyword web (keywordWeb.ts):
 *
 * - Keywords Data, Google Ads: `POST /v3/keywords_data/google_ads/search_volume/live` and
 *   `.../keywords_for_keywords/live` (docs.dataforseo.com/v3/keywords_data/google_ads/
 *   search_volume/live/ and keywords_for_keywords/live/; the result fields as DataForSEO's
 *   Python client documents them, dataforseo/PythonClient
 *   docs/keywords_data_google_ads_search_volume_live_result_info.md: keyword, location_code,
 *   language_code, search_partners, competition "HIGH"/"MEDIUM"/"LOW", competition_index
 *   0–100, search_volume, low_top_of_page_bid, high_top_of_page_bid, cpc, monthly_searches
 *   [{ year, month, search_volume }] newest first; null where Google Ads has no data, and a
 *   keyword without data left out of the result);
 * - Labs: `POST /v3/dataforseo_labs/google/ranked_keywords/live`
 *   (docs.dataforseo.com/v3/dataforseo_labs/google/ranked_keywords/live/: a result `{ target,
 *   location_code, language_code, total_count, items_count, items }`, each item `{ se_type,
 *   keyword_data: { keyword, keyword_info: { search_volume, cpc, competition 0–1,
 *   competition_level, monthly_searches }, keyword_properties: { keyword_difficulty } },
 *   ranked_serp_element: { serp_item: { type: "organic", rank_group, rank_absolute, domain,
 *   title, url } } }`).
 *
 * The envelope is DataForSEO's (`{ version, status_code: 20000, status_message: "Ok.", time,
 * cost, tasks_count, tasks_error, tasks: [{ id, status_code, status_message, time, cost,
 * result_count, path, data, result }] }`), errors as it answers them (HTTP 401 for wrong
 * credentials; dfsError() of dataForSeoBacklinks.ts for its in-body codes).
 * The same file answers the SERP API's Google Organic live advanced from the fake's rankings.
 * `startFakeDataForSeo` serves these beside the Backlinks fake, as one DataForSEO account does.
 */
import { startFakeUpstream, type Answer, type FakeUpstream, type FakeUpstreamOptions, type Recorded } from './upstream.js';
import type { FakeKeywordWeb } from './keywordWeb.js';
import type { FakeLinkWeb } from './linkWeb.js';
import { dataForSeoBacklinksAnswer } from './dataForSeoBacklinks.js';

/** `cost` of one Keywords Data task (Google Ads live: $0.075 per task in DataForSEO's price list). */
export const FAKE_KEYWORDS_COST = 0.075;
/** `cost` of a Labs ranked_keywords task: $0.01 per task plus $0.0001 per item returned. */
export const labsCost = (items: number) => 0.01 + 0.0001 * items;

function envelope(path: string[], data: unknown, result: unknown[] | null, cost: number): Answer {
  return {
    json: {
      version: '0.1.20261101',
      status_code: 20000,
      status_message: 'Ok.',
      time: '0.4213 sec.',
      cost,
      tasks_count: 1,
      tasks_error: 0,
      tasks: [
        {
          id: '11271120-1535-0367-0000-5d4bd1a2b3c4',
          status_code: 20000,
          status_message: 'Ok.',
          time: '0.3561 sec.',
          cost,
          result_count: result?.length ?? 0,
          path,
          data,
          result,
        },
      ],
    },
  };
}

type Task = { keywords?: string[]; target?: string; location_code?: number; language_code?: string; limit?: number };

function volumeRow(web: FakeKeywordWeb, kw: string, task: Task) {
  const k = web.keywords[kw];
  if (!k) return null;
  return {
    keyword: kw,
    spell: null,
    location_code: task.location_code ?? null,
    language_code: task.language_code ?? null,
    search_partners: false,
    competition: k.competition,
    competition_index: k.competition_index,
    search_volume: k.search_volume,
    low_top_of_page_bid: k.cpc === null ? null : Math.round(k.cpc * 45) / 100,
    high_top_of_page_bid: k.cpc === null ? null : Math.round(k.cpc * 160) / 100,
    cpc: k.cpc,
    monthly_searches: k.monthly_searches,
  };
}

function rankedItem(web: FakeKeywordWeb, domain: string, r: FakeKeywordWeb['rankings'][string][number], task: Task) {
  const k = web.keywords[r.kw];
  return {
    se_type: 'google',
    keyword_data: {
      se_type: 'google',
      keyword: r.kw,
      location_code: task.location_code ?? 2840,
      language_code: task.language_code ?? 'en',
      keyword_info: {
        se_type: 'google',
        last_updated_time: '2026-11-20 08:14:31 +00:00',
        competition: k?.competition_index === null || k === undefined ? null : k.competition_index / 100,
        competition_level: k?.competition ?? null,
        cpc: k?.cpc ?? null,
        search_volume: k?.search_volume ?? null,
        monthly_searches: k?.monthly_searches ?? null,
      },
      // DataForSEO's own difficulty: Quarry keeps one difficulty per keyword, market and day of its own.
      keyword_properties: { se_type: 'google', keyword_difficulty: 77 },
    },
    ranked_serp_element: {
      se_type: 'google',
      serp_item: {
        se_type: 'google',
        type: 'organic',
        rank_group: r.rank,
        rank_absolute: r.rank + 1,
        position: 'left',
        domain: new URL(r.url).hostname,
        title: r.title,
        url: r.url,
      },
      check_url: `https://www.google.com/search?q=${encodeURIComponent(r.kw)}&num=100&hl=en&gl=US`,
      se_results_count: 1_340_000_000,
      is_lost: false,
      last_updated_time: '2026-11-20 08:14:31 +00:00',
    },
    target: domain,
  };
}

/**
 * A Google Organic SERP (`POST /v3/serp/google/organic/live/advanced`,
 * docs.dataforseo.com/v3/serp/google/organic/live/advanced/: a result `{ keyword, type,
 * se_domain, location_code, language_code, check_url, datetime, se_results_count,
 * items_count, items: [{ type: "organic", rank_group, rank_absolute, domain, title, url,
 * description, … }] }`): the keyword's rankings of the fake web, in rank order.
 */
function serpAnswer(web: FakeKeywordWeb, task: Task & { keyword?: string }): Answer {
  const kw = String(task.keyword ?? '');
  const organic = Object.values(web.rankings)
    .flat()
    .filter((r) => r.kw === kw)
    .sort((a, b) => a.rank - b.rank);
  const items = organic.map((r, i) => ({
    type: 'organic',
    rank_group: i + 1,
    rank_absolute: i + 1,
    position: 'left',
    xpath: `/html[1]/body[1]/div[${i + 1}]`,
    domain: new URL(r.url).hostname,
    title: r.title,
    url: r.url,
    breadcrumb: r.url,
    description: `${r.title}.`,
  }));
  const result = {
    keyword: kw,
    type: 'organic',
    se_domain: 'google.com',
    location_code: task.location_code ?? 2840,
    language_code: task.language_code ?? 'en',
    check_url: `https://www.google.com/search?q=${encodeURIComponent(kw)}&num=100&hl=en&gl=US`,
    datetime: '2026-11-22 12:00:00 +00:00',
    se_results_count: items.length === 0 ? 0 : 2_150_000_000,
    items_count: items.length,
    items,
  };
  return envelope(['v3', 'serp', 'google', 'organic', 'live', 'advanced'], task, [result], 0.002);
}

/** The answer to a keyword request, or null when the path is not a keyword endpoint. */
export function dataForSeoKeywordsAnswer(web: FakeKeywordWeb, login: string, password: string, req: Recorded): Answer | null {
  const serp = req.url.pathname === '/v3/serp/google/organic/live/advanced';
  const m = /^\/v3\/(keywords_data\/google_ads\/(search_volume|keywords_for_keywords)|dataforseo_labs\/google\/ranked_keywords)\/live$/.exec(req.url.pathname);
  if (!m && !serp) return null;
  if (req.headers.authorization !== `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`) {
    return { status: 401, json: { status_code: 40100, status_message: 'You are not authorized to access this resource. Use the correct credentials.' } };
  }
  const task = (JSON.parse(req.body) as Task[])[0];
  if (!m) return serpAnswer(web, task);
  const path = ['v3', ...m[1].split('/'), 'live'];
  if (m[2] === 'search_volume') {
    const rows = (task.keywords ?? []).map((kw) => volumeRow(web, kw, task)).filter((r) => r !== null);
    return envelope(path, task, rows, FAKE_KEYWORDS_COST);
  }
  if (m[2] === 'keywords_for_keywords') {
    // Google Ads answers the seed itself among its ideas.
    const seed = task.keywords?.[0] ?? '';
    const rows = [seed, ...(web.ideas[seed] ?? [])].map((kw) => volumeRow(web, kw, task)).filter((r) => r !== null);
    return envelope(path, task, rows, FAKE_KEYWORDS_COST);
  }
  const target = String(task.target ?? '').replace(/^www\./, '');
  const rankings = web.rankings[target] ?? [];
  const items = rankings.slice(0, task.limit ?? 100).map((r) => rankedItem(web, target, r, task));
  return envelope(
    path,
    task,
    [
      {
        se_type: 'google',
        target,
        location_code: task.location_code ?? 2840,
        language_code: task.language_code ?? 'en',
        total_count: rankings.length,
        items_count: items.length,
        items,
      },
    ],
    labsCost(items.length),
  );
}

/**
 * One DataForSEO account's fake: keyword endpoints from `keywords`, Backlinks and Labs
 * competitors from `links` (dataForSeoBacklinks.ts), anything else 404 as DataForSEO answers.
 */
export async function startFakeDataForSeo(
  webs: { keywords: FakeKeywordWeb; links: FakeLinkWeb },
  login: string,
  password: string,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> {
  const fake = await startFakeUpstream(options);
  fake.setDefault((req) => dataForSeoKeywordsAnswer(webs.keywords, login, password, req) ?? dataForSeoBacklinksAnswer(webs.links, login, password, req));
  return fake;
}
