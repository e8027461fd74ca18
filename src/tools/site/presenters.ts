/** Engine results of the site tool as the answers' types (schemas.ts). */
import { createHash } from 'node:crypto';
import type { BacklinkProfile, HostRankStats, ResolvedTarget, SiteCompetitor, SiteOverview, TopContentItem } from '../../engine/index.js';
import { hexId } from '../../engine/index.js';
import { classifyAnchor } from '../../engine/links/anchorClass.js';
import type { SiteBacklinkProfileBody, SiteCompetitorsBody, SiteMetricsBody, SiteTopContentBody } from './schemas.js';

/** A 24-hex id of a rank-statistics record: stable for (host, location, index date). */
function rankDistId(s: HostRankStats): string {
  return createHash('sha1').update(`${s.host}|${s.locationId}|${s.date}`).digest('hex').slice(0, 24);
}

export function presentRankDist(s: HostRankStats): SiteMetricsBody['rankDist'][number] {
  return {
    _id: rankDistId(s),
    domain: s.host,
    bucket: 0,
    lid: s.locationId,
    visibility: {},
    rank: {},
    updated_at: Date.parse(`${s.date}T00:00:00Z`) / 1000,
    metrics_absolute: { [s.date.slice(0, 7)]: { organic: s.organic } },
  };
}

/** The overview: `urlId` on URL lookups, `domainId` on domain and subdomain lookups, as the reference's notes say. */
export function presentOverview(o: SiteOverview, rankStats: readonly HostRankStats[]): SiteMetricsBody {
  return {
    ...(o.urlType === 'URL' ? { urlId: o.urlId } : { domainId: o.domainId }),
    domain: o.domain,
    url: o.url,
    authority: o.authority,
    linkindex: o.linkindex,
    social: o.social,
    topRank: o.topRank ?? {},
    topRankHistory: o.topRankHistory,
    linkindexHistory: o.linkindexHistory,
    socialHistory: o.socialHistory,
    rankDist: rankStats.map(presentRankDist),
  };
}

/** The backlink profile under the reference's `linkindex…` names, each anchor classified toward the target's root domain. */
export function presentBacklinkProfile(p: BacklinkProfile, rootDomain: string): SiteBacklinkProfileBody {
  return {
    urlId: p.urlId,
    linkindex: p.linkindex,
    linkindexBackLinkCalendar: p.backLinkCalendar,
    linkindexRefDomains: p.refDomains,
    linkindexAnchors: p.anchors.map((a) => ({
      anchorText: a.anchorText,
      refDomains: a.refDomains,
      deletedLinks: a.deletedLinks,
      noFollowLinks: a.noFollowLinks,
      totalLinks: a.totalLinks,
      ...classifyAnchor(a.anchorText, rootDomain),
      citationFlow: a.citationFlow,
    })),
  };
}

/** Top content: each page's social value is its share count and its Open Graph title and description (pages carry no image). */
export function presentTopContent(top: { urlId: string; topContent: TopContentItem[] }): SiteTopContentBody {
  return {
    urlId: top.urlId,
    topContent: top.topContent.map((p) => ({
      url: p.url,
      citationFlow: p.citationFlow,
      trustFlow: p.trustFlow,
      refDomains: p.refDomains,
      extBackLinks: p.extBackLinks,
      social: { l: p.social, og: { title: p.title || null, description: p.description || null, image: null } },
    })),
  };
}

/** Competitors; `id` is the root domain's id (all zeros when the index does not know the domain). */
export function presentCompetitors(target: ResolvedTarget, source: string, competitors: SiteCompetitor[]): SiteCompetitorsBody {
  return { id: hexId(target.rootDomainId ?? 0), source, competitors };
}
