/**
 * A fake of DataForSEO's Backlinks API v3 and Labs `competitors_domain` and
 * `domain_rank_overview` (`POST /v3/backlinks/<function>/live`, `POST
 * /v3/dataforseo_labs/google/{competitors_domain,domain_rank_overview}/live`)
 * over a fake link web (linkWeb.ts). Built from DataForSEO's documentation (docs.dataforseo.com
 * /v3/backlinks-overview and the field lists of its TypeScript client, dataforseo/TypeScriptClient
 * docs/classes/Backlinks*LiveItem.md) and genuine answers recorded in
 * petercsiba/plugin-intelligence (backend/batch_jobs/dataforseo_request_examples.md, April
 * 2024): the envelope `{ version, status_code: 20000, status_message: "Ok.", time, cost,
 * tasks_count, tasks_error, tasks: [{ id, status_code, status_message, time, cost,
 * result_count, path, data, result }] }` and a `backlinks/backlinks/live` item (type
 * "backlink", domain_from, url_from, url_to, is_new, is_lost, rank, page_from_title,
 * first_seen "2024-03-26 02:46:50 +00:00", last_seen, item_type, dofollow, anchor, …).
 * Errors as DataForSEO answers them: HTTP 401 for wrong credentials, `status_code` 40202 in
 * an HTTP 200 for the per-minute rate limit.
 */
import { startFakeUpstream, type Answer, type FakeUpstream, type FakeUpstreamOptions, type Recorded } from './upstream.js';
import { fakeRoot, linksTo, type FakeLinkWeb } from './linkWeb.js';

/** A Labs task's one result: the task's search engine, target and market, and its items. */
function labsResult(target: string, task: Record<string, unknown>, items: unknown[]): unknown[] {
  const market = { location_code: task.location_code, language_code: task.language_code };
  return [{ se_type: 'google', target, ...market, total_count: items.length, items_count: items.length, items }];
}

/** What one task costs in the fake (its `cost`, which the client settles at). */
export const FAKE_DFS_COST = 0.02003;

function envelope(path: string[], data: unknown, result: unknown[] | null, cost = FAKE_DFS_COST): Answer {
  return {
    json: {
      version: '0.1.20261101',
      status_code: 20000,
      status_message: 'Ok.',
      time: '0.3877 sec.',
      cost,
      tasks_count: 1,
      tasks_error: 0,
      tasks: [
        {
          id: '11220355-7763-0265-0000-22d65296b79d',
          status_code: 20000,
          status_message: 'Ok.',
          time: '0.3191 sec.',
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

/** DataForSEO's own error envelope (HTTP 200, the code in `status_code`). */
export function dfsError(code: number, message: string): Answer {
  return { json: { version: '0.1.20261101', status_code: code, status_message: message, time: '0 sec.', cost: 0, tasks_count: 0, tasks_error: 1, tasks: [] } };
}

const stamp = (day: string | null) => (day === null ? null : `${day} 00:00:00 +00:00`);
const summaryOf = (web: FakeLinkWeb, name: string) => {
  const it = web.items[name];
  // DataForSEO's rank (0–100 with rank_scale one_hundred): a page's own, a domain's as a whole.
  const rank = (/^https?:\/\//.test(name) ? web.authority[name]?.pa : web.authority[name]?.da) ?? 0;
  if (!it) return { rank: 0, backlinks: 0, referring_domains: 0, referring_main_domains: 0, referring_ips: 0, referring_subnets: 0 };
  return {
    first_seen: '2019-11-09 08:34:11 +00:00',
    lost_date: null,
    rank,
    backlinks: it.ExtBackLinks,
    backlinks_spam_score: 3,
    crawled_pages: it.IndexedURLs,
    internal_links_count: it.OutLinksInternal,
    external_links_count: it.OutLinksExternal,
    broken_backlinks: 12,
    broken_pages: 3,
    referring_domains: it.RefDomains,
    referring_domains_nofollow: Math.round(it.RefDomains / 9),
    referring_main_domains: Math.round(it.RefDomains * 0.9),
    referring_main_domains_nofollow: Math.round(it.RefDomains / 10),
    referring_ips: it.RefIPs,
    referring_subnets: it.RefSubNets,
    referring_pages: Math.round(it.ExtBackLinks * 0.7),
    referring_pages_nofollow: Math.round(it.ExtBackLinks / 12),
    referring_links_tld: { com: Math.round(it.ExtBackLinks * 0.6), edu: it.ExtBackLinksEDU, gov: it.ExtBackLinksGOV },
    referring_links_types: {
      anchor: it.NonUniqueLinkTypeTextLink,
      image: it.NonUniqueLinkTypeImageLink,
      redirect: it.NonUniqueLinkTypeRedirect,
      canonical: 11,
    },
    referring_links_attributes: { nofollow: it.NonUniqueLinkTypeNoFollow, noopener: 120 },
    referring_links_platform_types: { cms: 1_200, blogs: 800 },
    referring_links_semantic_locations: { article: 5_000, '': 900 },
    referring_links_countries: { US: 9_000, '': 300 },
  };
};

/**
 * Paging of `backlinks/backlinks/live` as DataForSEO documents it (dataforseo/PythonClient
 * docs/BacklinksBacklinksLiveRequestInfo.md and BacklinksBacklinksLiveResultInfo.md, the
 * fields of docs.dataforseo.com/v3/backlinks/backlinks/live): `offset` "the maximum value is
 * 20,000, use the search_after_token if you would like to offset more results"; the answer to
 * each request carries a `search_after_token`, "by specifying the unique search_after_token value
 * from the response array, you will get the subsequent results of the initial task;
 * search_after_token values are unique for each subsequent task. Note: if the
 * search_after_token is specified in the request, all other parameters should be identical to
 * the previous request". The fake's token is opaque to the client but carries where the next
 * results start and the other parameters of the request that got it; a request whose other
 * parameters differ, an offset past 20,000 or a token it never gave is refused with DataForSEO's
 * 40501 (Invalid Field, docs.dataforseo.com/v3/appendix/errors; the wording is the fake's).
 */
export const DFS_FAKE_MAX_OFFSET = 20_000;

/** The parameters a token must be used with: the task's own, but the token. */
const otherParameters = (task: Record<string, unknown>) =>
  JSON.stringify(
    Object.entries(task)
      .filter(([k]) => k !== 'search_after_token')
      .sort(([a], [b]) => a.localeCompare(b)),
  );

let tokensGiven = 0;

/** A token for the results after `next` of this request (unique per answer, as DataForSEO's). */
function searchAfterToken(task: Record<string, unknown>, next: number): string {
  return Buffer.from(JSON.stringify({ next, params: otherParameters(task), n: ++tokensGiven })).toString('base64url');
}

/** Where a backlinks request's results start: after its token's answer, or at its offset. */
function pagePosition(task: Record<string, unknown>): { start: number } | { error: Answer } {
  const invalid = (field: string) => ({ error: dfsError(40501, `Invalid Field: '${field}'.`) });
  if (typeof task.search_after_token === 'string') {
    let token: { next?: unknown; params?: unknown };
    try {
      token = JSON.parse(Buffer.from(task.search_after_token, 'base64url').toString('utf8')) as typeof token;
    } catch {
      return invalid('search_after_token');
    }
    if (typeof token.next !== 'number' || token.params !== otherParameters(task)) return invalid('search_after_token');
    return { start: token.next };
  }
  const offset = Number(task.offset ?? 0);
  if (!Number.isInteger(offset) || offset < 0 || offset > DFS_FAKE_MAX_OFFSET) return invalid('offset');
  return { start: offset };
}

/** The answer to one Backlinks/Labs request. */
export function dataForSeoBacklinksAnswer(web: FakeLinkWeb, login: string, password: string, req: Recorded): Answer {
  if (req.headers.authorization !== `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`) {
    return { status: 401, json: { status_code: 40100, status_message: 'You are not authorized to access this resource. Use the correct credentials.' } };
  }
  const m = /^\/v3\/(backlinks\/[a-z_]+|dataforseo_labs\/google\/(?:competitors_domain|domain_rank_overview))\/live$/.exec(req.url.pathname);
  if (!m) return { status: 404, json: { status_code: 40400, status_message: 'Not Found.' } };
  const task = (JSON.parse(req.body) as Record<string, unknown>[])[0];
  const fn = m[1];
  const path = ['v3', ...fn.split('/'), 'live'];
  const target = String(task.target ?? '');
  if (fn === 'backlinks/summary') return envelope(path, task, [{ target, ...summaryOf(web, target) }]);
  if (fn === 'backlinks/bulk_pages_summary') {
    const targets = task.targets as string[];
    const items = targets.filter((t) => web.items[t] || web.authority[t]).map((t) => ({ type: 'backlinks_bulk_pages_summary', url: t, ...summaryOf(web, t) }));
    return envelope(path, task, [{ total_count: items.length, items_count: items.length, items }], 0.02 + items.length * 0.00003);
  }
  if (fn === 'backlinks/backlinks') {
    const at = pagePosition(task);
    if ('error' in at) return at.error;
    let links = linksTo(web, target).length > 0 ? linksTo(web, target) : linksTo(web, `www.${target}`);
    if (task.backlinks_status_type === 'lost') links = links.filter((l) => l.lostOn !== null);
    const f = task.filters as [string, string, string] | undefined;
    if (f) links = links.filter((l) => (f[0] === 'first_seen' ? `${l.firstSeen} 00:00:00 +00:00` > f[2] : `${l.lastSeen} 00:00:00 +00:00` > f[2]));
    if (task.mode === 'one_per_domain') {
      const seen = new Set<string>();
      links = links.filter((l) => !seen.has(fakeRoot(l.source)) && seen.add(fakeRoot(l.source)) !== undefined);
    }
    const limit = Number(task.limit ?? 100);
    const items = links.slice(at.start, at.start + limit).map((l) => ({
      type: 'backlink',
      domain_from: l.source.split('/')[2],
      url_from: l.source,
      url_from_https: l.source.startsWith('https:'),
      domain_to: l.target.split('/')[2],
      url_to: l.target,
      url_to_https: true,
      tld_from: l.source.split('/')[2].split('.').pop(),
      is_new: false,
      is_lost: l.lostOn !== null,
      backlink_spam_score: 0,
      rank: 128,
      page_from_rank: l.sourceCitationFlow,
      domain_from_rank: l.sourceTrustFlow,
      page_from_external_links: 10,
      page_from_internal_links: 43,
      page_from_size: 94_781,
      page_from_encoding: 'utf-8',
      page_from_language: 'en',
      page_from_title: l.sourceTitle,
      page_from_status_code: 200,
      first_seen: `${l.firstSeen} 02:46:50 +00:00`,
      prev_seen: null,
      last_seen: `${l.lastSeen} 02:46:50 +00:00`,
      item_type: l.image ? 'image' : 'anchor',
      attributes: l.nofollow ? ['nofollow'] : ['noopener'],
      dofollow: !l.nofollow,
      original: true,
      alt: l.image ? l.anchor : null,
      image_url: l.image ? `${l.source}/logo.png` : null,
      anchor: l.image ? null : l.anchor,
      text_pre: null,
      text_post: null,
      semantic_location: 'article',
      links_count: 1,
      group_count: 0,
      is_broken: false,
      url_to_status_code: null,
      url_to_spam_score: null,
      url_to_redirect_target: null,
      is_indirect_link: false,
      indirect_link_path: null,
    }));
    return envelope(path, task, [
      {
        target,
        mode: task.mode,
        custom_mode: null,
        total_count: links.length,
        items_count: items.length,
        items,
        search_after_token: searchAfterToken(task, at.start + items.length),
      },
    ]);
  }
  if (fn === 'backlinks/referring_domains') {
    const byDomain = new Map<string, number>();
    for (const l of linksTo(web, target)) byDomain.set(fakeRoot(l.source), (byDomain.get(fakeRoot(l.source)) ?? 0) + 1);
    const items = [...byDomain].map(([domain, n]) => ({
      type: 'backlinks_referring_domains',
      domain,
      rank: 300,
      backlinks: n,
      first_seen: '2019-04-02 10:00:00 +00:00',
      lost_date: null,
      referring_domains: 900,
      referring_pages: n,
    }));
    return envelope(path, task, [{ target, total_count: items.length, items_count: items.length, items }]);
  }
  if (fn === 'backlinks/anchors') {
    const byAnchor = new Map<string, { n: number; domains: Set<string>; nofollow: number }>();
    for (const l of linksTo(web, target)) {
      const a = byAnchor.get(l.anchor) ?? { n: 0, domains: new Set<string>(), nofollow: 0 };
      a.n++;
      a.domains.add(fakeRoot(l.source));
      if (l.nofollow) a.nofollow++;
      byAnchor.set(l.anchor, a);
    }
    const items = [...byAnchor].map(([anchor, a]) => ({
      type: 'backlinks_anchors',
      anchor,
      rank: 120,
      backlinks: a.n,
      first_seen: '2019-04-02 10:00:00 +00:00',
      lost_date: null,
      referring_domains: a.domains.size,
      referring_main_domains: a.domains.size,
      referring_links_attributes: a.nofollow > 0 ? { nofollow: a.nofollow } : { noopener: 1 },
    }));
    return envelope(path, task, [{ target, total_count: items.length, items_count: items.length, items }]);
  }
  if (fn === 'backlinks/timeseries_new_lost_summary') {
    const days = web.calendar[target] ?? {};
    const items = Object.entries(days)
      .filter(([d]) => d >= String(task.date_from))
      .map(([d, c]) => ({
        type: 'backlinks_timeseries_new_lost_summary',
        date: stamp(d),
        new_backlinks: c.new,
        lost_backlinks: c.lost,
        new_referring_domains: c.new,
        lost_referring_domains: c.lost,
      }));
    return envelope(path, task, [{ target, date_from: task.date_from, date_to: task.date_to, group_range: 'day', items_count: items.length, items }]);
  }
  if (fn === 'backlinks/domain_pages_summary') {
    const items = Object.keys(web.items)
      .filter((name) => /^https?:\/\//.test(name) && fakeRoot(name) === target)
      .map((url) => ({ type: 'backlinks_domain_pages_summary', url, ...summaryOf(web, url) }));
    return envelope(path, task, [{ target, total_count: items.length, items_count: items.length, items }]);
  }
  if (fn === 'backlinks/history') {
    const s = summaryOf(web, target);
    const items = ['2026-09-01', '2026-10-01', '2026-11-01'].map((d, i) => ({
      type: 'backlinks_history',
      date: stamp(d),
      rank: s.rank,
      backlinks: s.backlinks - (2 - i) * 1000,
      referring_domains: s.referring_domains - (2 - i) * 100,
      referring_main_domains: s.referring_main_domains,
      referring_ips: s.referring_ips - (2 - i) * 50,
      referring_subnets: s.referring_subnets - (2 - i) * 20,
      new_backlinks: 1000,
      lost_backlinks: 0,
    }));
    return envelope(path, task, [{ target, date_from: task.date_from, items_count: items.length, items }]);
  }
  if (fn === 'dataforseo_labs/google/competitors_domain') {
    const shared = web.competitors[target] ?? {};
    const items = Object.entries(shared).map(([domain, intersections]) => ({
      se_type: 'google',
      domain,
      avg_position: 14.2,
      sum_position: intersections * 14,
      intersections,
      full_domain_metrics: { organic: { pos_1: 120, etv: 52_000.5, count: intersections } },
      metrics: { organic: { pos_1: 40, etv: 21_000.2, count: intersections } },
      competitor_metrics: { organic: { pos_1: 30, etv: 9_000.7, count: intersections } },
    }));
    return envelope(path, task, labsResult(target, task, items));
  }
  if (fn === 'dataforseo_labs/google/domain_rank_overview') {
    // The result's `items` hold one item per search engine type with `metrics` by kind of result
    // (DataforseoLabsGoogleDomainRankOverviewLiveItem.md, DataforseoLabsMetricsInfo.md in
    // dataforseo/TypeScriptClient docs); a domain Labs has no rankings of answers no item.
    const organic = web.rankOverview[target.replace(/^www\./, '')];
    const items = organic
      ? [
          {
            se_type: 'google',
            location_code: task.location_code,
            language_code: task.language_code,
            metrics: { organic, paid: { pos_1: 12, pos_2_3: 4, pos_4_10: 0, etv: 3_120.4, count: 16, estimated_paid_traffic_cost: 9_311.2 } },
          },
        ]
      : [];
    return envelope(path, task, labsResult(target, task, items), 0.0101);
  }
  return { status: 404, json: { status_code: 40400, status_message: 'Not Found.' } };
}

/** A running DataForSEO Backlinks fake answering about `web` to the given API login. */
export async function startFakeDataForSeoBacklinks(
  web: FakeLinkWeb,
  login: string,
  password: string,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> {
  const fake = await startFakeUpstream(options);
  fake.setDefault((req) => dataForSeoBacklinksAnswer(web, login, password, req));
  return fake;
}
