/**
 * DataForSEO's Backlinks API v3 (https://docs.dataforseo.com/v3/backlinks-overview/) as a
 * link index and an authority source, and DataForSEO Labs' `competitors_domain` for organic
 * competitors. Same transport as its SERP and keyword APIs (dataForSeo.ts): HTTP Basic with
 * the API login, a JSON array of one task in, `{ status_code, cost, tasks: [{ result }] }`
 * out, the answer's `cost` settled against the budget.
 *
 * Endpoints (all `…/live`): `summary` (item info), `bulk_pages_summary` (up to 1,000 targets
 * of at most 100 root domains a call: SERP metrics and authority), `backlinks` (lists,
 * `offset` up to 20,000 then `search_after_token`), `referring_domains`, `anchors`,
 * `timeseries_new_lost_summary` (the daily calendar), `domain_pages_summary` (top pages),
 * `history` (monthly) and `dataforseo_labs/google/competitors_domain`. `rank_scale:
 * one_hundred` puts DataForSEO's rank on 0–100, the scale of `pda`/`upa`.
 *
 * DataForSEO has no CitationFlow or TrustFlow (nor Majestic's ACRank, IndexedURLs, the EDU
 * and GOV referring-domain counts): those figures are null (docs/decisions.md).
 */
import { exchange, type ProviderHttpOptions } from '../providerHttp.js';
import { auth, readTask } from '../dataForSeo.js';
import { httpUrl, list, record, text } from '../fetchedSerp.js';
import {
  ITEM_TYPE,
  type AnchorRow,
  type AuthorityFigures,
  type BacklinkPage,
  type Bought,
  type CalendarRow,
  type CompetitorRow,
  type RankOverview,
  type HistoryRow,
  type IndexItemInfo,
  type LinkListSource,
  type LinkTarget,
  type ListCursor,
  type ProviderBacklink,
  type RefDomainRow,
  type TopPageRow,
} from './linkTypes.js';

export interface DataForSeoBacklinksOptions {
  login: string;
  password: string;
  baseUrl: string;
  http: ProviderHttpOptions;
  /** Dollars reserved before a call (settled at the answer's `cost`). */
  estimate: number;
  today: () => string;
}

/** Targets one bulk_pages_summary takes, and the root domains among them (DataForSEO's limits). */
export const DFS_BULK_TARGETS = 1_000;
export const DFS_BULK_ROOT_DOMAINS = 100;
/** Rows one backlinks call answers, and the deepest `offset` (beyond it, `search_after_token`). */
export const DFS_BACKLINKS_PER_CALL = 1_000;
export const DFS_MAX_OFFSET = 20_000;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int = (v: unknown): number | null => (num(v) === null ? null : Math.max(0, Math.round(num(v)!)));
const day = (v: unknown): string | null => {
  const t = text(v);
  return t !== null && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : null;
};
const countIn = (obj: unknown, key: string): number | null => {
  const r = record(obj);
  // A count of links of a kind: absent from the provider's breakdown means none of that kind were seen.
  return Object.keys(r).length === 0 ? null : (int(r[key]) ?? 0);
};
const asText = (n: number | null): string | null => (n === null ? null : String(n));

/** A target as DataForSEO takes it: a domain or subdomain without scheme or `www.`, a page as an absolute URL. */
export function dfsTarget(t: LinkTarget): string {
  return t.type === 'URL' ? t.name : t.name.replace(/^www\./, '');
}

/** A summary (summary, bulk_pages_summary, domain_pages_summary row) as the contract's item info. */
export function itemInfoOfSummary(s: Record<string, unknown>, type: LinkTarget['type']): IndexItemInfo {
  const backlinks = int(s.backlinks);
  const found = backlinks !== null && (backlinks > 0 || (int(s.referring_domains) ?? 0) > 0);
  return {
    Status: found ? 'Found' : 'NotFound',
    ExtBackLinks: backlinks,
    RefDomains: int(s.referring_domains),
    ACRank: null,
    RefIPs: int(s.referring_ips),
    ItemType: ITEM_TYPE[type],
    RefSubNets: int(s.referring_subnets),
    CitationFlow: null,
    TrustFlow: null,
    TrustMetric: null,
    IndexedURLs: int(s.crawled_pages),
    RefDomainsEDU: null,
    ExtBackLinksEDU: countIn(s.referring_links_tld, 'edu'),
    RefDomainsGOV: null,
    ExtBackLinksGOV: countIn(s.referring_links_tld, 'gov'),
    RefDomainsEDU_Exact: null,
    ExtBackLinksEDU_Exact: countIn(s.referring_links_tld, 'edu'),
    RefDomainsGOV_Exact: null,
    ExtBackLinksGOV_Exact: countIn(s.referring_links_tld, 'gov'),
    NonUniqueLinkTypeHomepages: null,
    NonUniqueLinkTypeIndirect: null,
    NonUniqueLinkTypeDeleted: null,
    NonUniqueLinkTypeNoFollow: asText(countIn(s.referring_links_attributes, 'nofollow')),
    NonUniqueLinkTypeProtocolHTTPS: null,
    NonUniqueLinkTypeFrame: null,
    NonUniqueLinkTypeImageLink: asText(countIn(s.referring_links_types, 'image')),
    NonUniqueLinkTypeRedirect: asText(countIn(s.referring_links_types, 'redirect')),
    NonUniqueLinkTypeTextLink: asText(countIn(s.referring_links_types, 'anchor')),
    TotalNonUniqueLinks: asText(backlinks),
    OutLinksInternal: asText(int(s.internal_links_count)),
    OutLinksExternal: asText(int(s.external_links_count)),
    OutDomainsExternal: null,
  };
}

/** One backlinks item as a backlink: `source` ← url_from, `target` ← url_to, nofollow ← !dofollow, dates ← the date part of first_seen/last_seen. */
export function backlinkOfItem(item: unknown): ProviderBacklink | null {
  const r = record(item);
  const sourceUrl = httpUrl(r.url_from);
  const targetUrl = httpUrl(r.url_to);
  if (sourceUrl === null || targetUrl === null) return null;
  const kind = text(r.item_type) ?? 'anchor';
  const deleted = r.is_lost === true;
  return {
    sourceUrl,
    targetUrl,
    title: text(r.page_from_title),
    anchor: typeof r.anchor === 'string' ? r.anchor : '',
    type: kind === 'image' ? 'image' : kind === 'redirect' ? 'redirect' : 'text',
    alt: text(r.alt) !== null,
    nofollow: r.dofollow === false,
    image: kind === 'image',
    redirect: kind === 'redirect',
    frame: false,
    deleted,
    firstSeen: day(r.first_seen),
    lastSeen: day(r.last_seen),
    lostOn: deleted ? day(r.last_seen) : null,
    reasonLost: null,
    sourceCitationFlow: null,
    sourceTrustFlow: null,
    targetCitationFlow: null,
    targetTrustFlow: null,
    lang: text(r.page_from_language),
    internalLinks: int(r.page_from_internal_links),
    externalLinks: int(r.page_from_external_links),
  };
}

const daysBefore = (today: string, days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** A cursor into a backlinks list: an offset, or past 20,000 the token DataForSEO answered. */
export type DfsCursor = ListCursor;

export class DataForSeoBacklinksClient {
  readonly name = 'dataforseo' as const;

  constructor(private readonly options: DataForSeoBacklinksOptions) {}

  private async task(path: string, task: Record<string, unknown>): Promise<Bought<Record<string, unknown>>> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/v3/${path}/live`;
    const answer = await exchange(
      'dataforseo',
      { url, method: 'POST', headers: auth(this.options), body: JSON.stringify([task]) },
      this.options.http,
      readTask,
    );
    return { value: record(answer.result[0]), cost: answer.cost };
  }

  /** The item info of one target (summary). */
  async itemInfo(target: LinkTarget): Promise<Bought<IndexItemInfo>> {
    const { value, cost } = await this.task('backlinks/summary', {
      target: dfsTarget(target),
      include_subdomains: target.type === 'RootDomain',
      rank_scale: 'one_hundred',
    });
    return { value: itemInfoOfSummary(value, target.type), cost };
  }

  /**
   * Summaries of many targets in one call (bulk_pages_summary): the item info and the rank
   * (0–100) of each, in the targets' order; null for a target DataForSEO answered nothing of.
   */
  async bulkSummaries(targets: readonly LinkTarget[]): Promise<Bought<({ info: IndexItemInfo; rank: number | null } | null)[]>> {
    const { value, cost } = await this.task('backlinks/bulk_pages_summary', { targets: targets.map(dfsTarget), rank_scale: 'one_hundred' });
    const byUrl = new Map<string, Record<string, unknown>>();
    for (const item of list(value.items).map(record)) {
      const url = text(item.url);
      if (url !== null) byUrl.set(comparable(url), item);
    }
    return {
      value: targets.map((t) => {
        const s = byUrl.get(comparable(dfsTarget(t)));
        return s ? { info: itemInfoOfSummary(s, t.type), rank: num(s.rank) } : null;
      }),
      cost,
    };
  }

  /** Authority of URLs from one bulk call: pda ← the rank of the URL's root domain, upa ← the rank of the URL. */
  async authority(urls: readonly LinkTarget[]): Promise<Bought<(AuthorityFigures | null)[]>> {
    const roots = [...new Set(urls.map((u) => u.rootDomain))].map((d) => ({ name: d, type: 'RootDomain' as const, rootDomain: d, host: d }));
    const { value, cost } = await this.bulkSummaries([...urls, ...roots]);
    const rootRank = new Map(roots.map((r, i) => [r.rootDomain, value[urls.length + i]?.rank ?? null]));
    return {
      value: urls.map((u, i) => {
        const page = value[i];
        const pda = rootRank.get(u.rootDomain) ?? null;
        return page === null && pda === null ? null : { pda, upa: page?.rank ?? null, spam: null };
      }),
      cost,
    };
  }

  /** A page of backlinks: all (live and lost), new (first seen in the last 30 days) or lost (in the last 90). */
  async backlinks(
    target: LinkTarget,
    source: LinkListSource,
    perDomain: boolean,
    cursor: DfsCursor,
    limit: number,
  ): Promise<Bought<BacklinkPage & { next: string | null }>> {
    const task: Record<string, unknown> = {
      target: dfsTarget(target),
      mode: perDomain ? 'one_per_domain' : 'as_is',
      limit: Math.min(limit, DFS_BACKLINKS_PER_CALL),
      backlinks_status_type: source === 2 ? 'lost' : 'all',
      rank_scale: 'one_hundred',
      order_by: ['rank,desc'],
    };
    // A request with a token must repeat every other parameter of the request before it
    // (DataForSEO's search_after_token): the head is asked without `offset` (its default, 0), so
    // the walk's token requests, which carry none, repeat it exactly. An explicit `offset: 0` on
    // the first request made the second one differ from it.
    if (cursor.token !== null) task.search_after_token = cursor.token;
    else if (cursor.offset > 0) task.offset = cursor.offset;
    const today = this.options.today();
    if (source === 1) task.filters = ['first_seen', '>', `${daysBefore(today, 31)} 00:00:00 +00:00`];
    if (source === 2) task.filters = ['last_seen', '>', `${daysBefore(today, 91)} 00:00:00 +00:00`];
    const { value, cost } = await this.task('backlinks/backlinks', task);
    return {
      value: {
        total: int(value.total_count),
        rows: list(value.items).length,
        links: list(value.items)
          .map(backlinkOfItem)
          .filter((l): l is ProviderBacklink => l !== null),
        next: text(value.search_after_token),
      },
      cost,
    };
  }

  /** Referring domains with the most backlinks (`matchedLinks` ← backlinks). */
  async refDomains(target: LinkTarget, limit: number): Promise<Bought<RefDomainRow[]>> {
    const { value, cost } = await this.task('backlinks/referring_domains', { target: dfsTarget(target), limit, order_by: ['backlinks,desc'] });
    return {
      value: list(value.items)
        .map(record)
        .map((r) => ({ domain: text(r.domain) ?? '', matchedLinks: int(r.backlinks), citationFlow: null, trustFlow: null }))
        .filter((r) => r.domain !== ''),
      cost,
    };
  }

  /** Anchors used by the most referring domains. */
  async anchors(target: LinkTarget, limit: number): Promise<Bought<AnchorRow[]>> {
    const { value, cost } = await this.task('backlinks/anchors', { target: dfsTarget(target), limit, order_by: ['referring_domains,desc'] });
    return {
      value: list(value.items)
        .map(record)
        .map((r) => ({
          anchorText: typeof r.anchor === 'string' ? r.anchor : '',
          refDomains: int(r.referring_domains),
          totalLinks: int(r.backlinks),
          noFollowLinks: countIn(r.referring_links_attributes, 'nofollow'),
          deletedLinks: null,
          citationFlow: null,
        })),
      cost,
    };
  }

  /** New and lost backlinks per day over the last `days` days. */
  async calendar(target: LinkTarget, days: number): Promise<Bought<CalendarRow[]>> {
    const today = this.options.today();
    const { value, cost } = await this.task('backlinks/timeseries_new_lost_summary', {
      target: dfsTarget(target),
      date_from: daysBefore(today, days - 1),
      date_to: today,
      group_range: 'day',
    });
    return {
      value: list(value.items)
        .map(record)
        .map((r) => ({ Date: day(r.date) ?? '', NewLinks: int(r.new_backlinks) ?? 0, LostLinks: int(r.lost_backlinks) ?? 0 }))
        .filter((r) => r.Date !== ''),
      cost,
    };
  }

  /** The pages of a domain with the most backlinks. */
  async topPages(target: LinkTarget, limit: number): Promise<Bought<TopPageRow[]>> {
    const { value, cost } = await this.task('backlinks/domain_pages_summary', { target: dfsTarget(target), limit, order_by: ['backlinks,desc'] });
    return {
      value: list(value.items)
        .map(record)
        .map((r) => ({
          url: httpUrl(r.url) ?? '',
          citationFlow: null,
          trustFlow: null,
          refDomains: int(r.referring_domains),
          extBackLinks: int(r.backlinks),
          title: null,
        }))
        .filter((r) => r.url !== ''),
      cost,
    };
  }

  /** The root domain's link index per month (history): referring domains, IPs and subnets. */
  async history(target: LinkTarget, since: string): Promise<Bought<HistoryRow[]>> {
    const { value, cost } = await this.task('backlinks/history', { target: target.rootDomain, date_from: since });
    return {
      value: list(value.items)
        .map(record)
        .map((r) => ({
          month: (day(r.date) ?? '').slice(0, 7),
          refDomains: int(r.referring_domains),
          refIps: int(r.referring_ips),
          refSubnets: int(r.referring_subnets),
          citationFlow: null,
          trustFlow: null,
        }))
        .filter((r) => r.month !== ''),
      cost,
    };
  }

  /**
   * Organic competitors of a domain (DataForSEO Labs, Google, the given market): the domains
   * ranking for the same keywords, most shared first. The score is the share of the target's
   * ranking keywords a competitor also ranks for (its `intersections` over the target's own
   * keyword count, which Labs lists as the target's own row), 0–100.
   */
  async competitors(domain: string, locationCode: number, languageCode: string, limit: number): Promise<Bought<CompetitorRow[]>> {
    const { value, cost } = await this.task('dataforseo_labs/google/competitors_domain', {
      target: domain,
      location_code: locationCode,
      language_code: languageCode,
      limit: limit + 1,
    });
    const items = list(value.items).map(record);
    const own = items.find((r) => text(r.domain) === domain);
    const ownCount = int(own?.intersections) ?? null;
    return {
      value: items
        .filter((r) => text(r.domain) !== null && text(r.domain) !== domain)
        .slice(0, limit)
        .map((r) => {
          const shared = int(r.intersections);
          return { domain: text(r.domain)!, score: shared === null || !ownCount ? null : Math.min(100, Math.round((100 * shared) / ownCount)) };
        }),
      cost,
    };
  }

  /**
   * A domain's organic ranking statistics in a market (Labs `domain_rank_overview`): its
   * `metrics.organic` counters as given (position bands `pos_1` … `pos_91_100`, `etv`, `count`,
   * `estimated_paid_traffic_cost`, `is_new`/`is_up`/`is_down`/`is_lost`); null when Labs holds
   * no rankings of it.
   */
  async rankOverview(domain: string, locationCode: number, languageCode: string): Promise<Bought<RankOverview | null>> {
    const { value, cost } = await this.task('dataforseo_labs/google/domain_rank_overview', {
      target: domain,
      location_code: locationCode,
      language_code: languageCode,
    });
    const organic = record(record(record(list(value.items)[0]).metrics).organic);
    const figures: Record<string, number> = {};
    for (const [name, v] of Object.entries(organic)) if (typeof v === 'number' && Number.isFinite(v)) figures[name] = v;
    return { value: Object.keys(figures).length === 0 ? null : { day: this.options.today(), organic: figures }, cost };
  }
}

/** How DataForSEO's `url` of a bulk row and a target we sent compare: case, scheme-less trailing slash and `www.` aside. */
function comparable(u: string): string {
  return u
    .trim()
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/\/+$/, '');
}
