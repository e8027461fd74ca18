/**
 * The site tool's answers in real mode (a link-index provider configured, issue 24): the
 * overview, backlink profile, top content and competitors from the link-index provider
 * (Majestic or DataForSEO Backlinks), the authority provider (Moz or DataForSEO) and
 * DataForSEO Labs for organic competitors — never the sandbox's index. A figure no provider
 * gives is null; an answer no provider can give is empty (docs/decisions.md, "Site tool in
 * real mode"): the overview's `topRankHistory` and `socialHistory`, `social`, and its
 * `rankDist` and the competitors without DataForSEO credentials. `rankDist` is DataForSEO Labs'
 * `domain_rank_overview` of the site in the default market (docs/decisions.md, "rankDist in
 * real mode").
 *
 * Ids are the md5 of the target's canonical name (24 hex digits), as the link tool's real
 * answers use: `domainId` the root domain's, `urlId` the URL's, host's or domain's.
 */
import { classifyAnchor } from '../../engine/links/anchorClass.js';
import type { LinkData } from '../../engine/sources/links/linkData.js';
import { linkTarget, type LinkTarget } from '../../engine/sources/links/linkTypes.js';
import { md5Hex } from '../../lib/ids.js';
import { notFoundInfo } from '../link/realLinks.js';
import { presentRankDist } from './presenters.js';
import type { SiteBacklinkProfileBody, SiteCompetitorsBody, SiteMetricsBody, SiteTopContentBody } from './schemas.js';

/** Rows of each backlink-profile list and of top content, and days of the calendar: the sandbox's sizes. */
export const PROFILE_ROWS = 50;
export const CALENDAR_DAYS = 90;
/** Competitors listed, and the start of the monthly history (the contract's "since 2016"). */
export const COMPETITORS = 20;
const HISTORY_SINCE = '2016-01-01';

export interface RealSiteOptions {
  data: LinkData;
  /** TopRank of a root domain from the imported rank lists (Common Crawl, Tranco); null when none holds it. */
  importedRank: (domain: string) => number | null;
  /** Language code DataForSEO Labs takes for a location (`en` for 2840). */
  languageOf: (locationId: number) => string;
  /** The market of the overview's ranking statistics (the SERP tool's default, 2840). */
  rankLocation: number;
}

export const realId = (name: string): string => md5Hex(name).slice(0, 24);

/** Top pages are a domain's or a host's: a URL asks for its root domain's. */
function siteOf(target: LinkTarget): LinkTarget {
  if (target.type !== 'URL') return target;
  return { name: target.rootDomain, type: 'RootDomain', rootDomain: target.rootDomain, host: target.host };
}

export class RealSite {
  constructor(private readonly options: RealSiteOptions) {}

  /** The overview: item info and authority as the providers gave them, the monthly history where the provider keeps one. */
  async overview(target: LinkTarget): Promise<SiteMetricsBody> {
    const { data, importedRank, languageOf, rankLocation } = this.options;
    // Labs ranks domains and hosts ("without https:// and www."): a URL's ranking statistics are its host's, as in the sandbox.
    const ranked = target.type === 'RootDomain' ? target.rootDomain : target.host.replace(/^www\./, '');
    const [[found], [authority], history, ranks] = await Promise.all([
      data.itemInfo([target]),
      data.authority([target]),
      data.history(target, HISTORY_SINCE),
      data.rankOverview(ranked, rankLocation, languageOf(rankLocation)),
    ]);
    const info = found ?? notFoundInfo(target);
    const linkindexHistory: SiteMetricsBody['linkindexHistory'] = {};
    for (const h of history) {
      // The provider's history holds no rank of the domain among all others: rank is null.
      linkindexHistory[h.month] = {
        rank: null,
        refIps: h.refIps,
        refSubnets: h.refSubnets,
        refDomains: h.refDomains,
        citationFlow: h.citationFlow,
        trustFlow: h.trustFlow,
      };
    }
    return {
      ...(target.type === 'URL' ? { urlId: realId(target.name) } : { domainId: realId(target.rootDomain) }),
      domain: target.rootDomain,
      url: target.name,
      authority: { pda: authority?.pda ?? null, upa: authority?.upa ?? null },
      linkindex: {
        Status: info.Status,
        CitationFlow: info.CitationFlow,
        TrustFlow: info.TrustFlow,
        RefIPs: info.RefIPs,
        RefSubNets: info.RefSubNets,
        ItemType: info.ItemType,
      },
      // No provider counts social shares.
      social: null,
      topRank: importedRank(target.rootDomain) ?? {},
      // The imported rank lists are one snapshot each, not a monthly series.
      topRankHistory: {},
      linkindexHistory,
      socialHistory: {},
      // Labs' organic counters as given, for the month they were bought; none without a DataForSEO account or when Labs ranks nothing of the site.
      rankDist: ranks ? [presentRankDist({ locationId: rankLocation, host: ranked, date: ranks.day, organic: ranks.organic })] : [],
    };
  }

  /** Item info, the new/lost calendar, top referring domains and anchors, each as the provider gave it. */
  async backlinkProfile(target: LinkTarget): Promise<SiteBacklinkProfileBody> {
    const { data, importedRank } = this.options;
    const [[info], calendar, refDomains, anchors] = await Promise.all([
      data.itemInfo([target]),
      data.calendar(target, CALENDAR_DAYS),
      data.refDomains(target, PROFILE_ROWS),
      data.anchors(target, PROFILE_ROWS),
    ]);
    return {
      urlId: realId(target.name),
      linkindex: info ?? notFoundInfo(target),
      linkindexBackLinkCalendar: calendar.map((c) => ({ Date: c.Date, NewLinks: c.NewLinks, LostLinks: c.LostLinks })),
      linkindexRefDomains: refDomains.map((r) => ({
        domain: r.domain,
        topRank: importedRank(r.domain),
        matchedLinks: r.matchedLinks,
        citationFlow: r.citationFlow,
        trustFlow: r.trustFlow,
      })),
      linkindexAnchors: anchors.map((a) => ({
        anchorText: a.anchorText,
        refDomains: a.refDomains,
        deletedLinks: a.deletedLinks,
        noFollowLinks: a.noFollowLinks,
        totalLinks: a.totalLinks,
        ...classifyAnchor(a.anchorText, target.rootDomain),
        citationFlow: a.citationFlow,
      })),
    };
  }

  /** The site's pages with the most links, as the provider ranks them; a page's title is its Open Graph title when the provider gives one. */
  async topContent(target: LinkTarget): Promise<SiteTopContentBody> {
    const pages = await this.options.data.topPages(siteOf(target), PROFILE_ROWS);
    return {
      urlId: realId(target.name),
      topContent: pages.map((p) => ({
        url: p.url,
        citationFlow: p.citationFlow,
        trustFlow: p.trustFlow,
        refDomains: p.refDomains,
        extBackLinks: p.extBackLinks,
        social: { l: null, og: p.title === null ? null : { title: p.title, description: null, image: null } },
      })),
    };
  }

  /**
   * Organic competitors of the root domain in a market (DataForSEO Labs), with each one's
   * referring IPs from the link index (one batch) and TopRank from the imported lists; an
   * empty list when no provider configured gives competitors (Majestic alone).
   */
  async competitors(target: LinkTarget, source: string, locationId: number): Promise<SiteCompetitorsBody> {
    const { data, importedRank, languageOf } = this.options;
    const rows = (await data.competitors(target.rootDomain, locationId, languageOf(locationId), COMPETITORS)) ?? [];
    const targets = rows.map((r) => linkTarget(r.domain, 'RootDomain')).filter((t): t is LinkTarget => t !== null);
    const infos = targets.length > 0 ? await data.itemInfo(targets) : [];
    const refIps = new Map(targets.map((t, i) => [t.name, infos[i]?.RefIPs ?? null]));
    return {
      id: realId(target.rootDomain),
      source,
      competitors: rows.map((r) => ({
        domainId: realId(r.domain),
        domain: r.domain,
        topRank: importedRank(r.domain),
        social: null,
        refIps: refIps.get(r.domain) ?? null,
        score: r.score,
      })),
    };
  }
}
