/** The spec's link-tool URL metrics (`linkindex.v`) from a stored `entity_metrics` row. */
import type { EntityMetricsTable } from '../researchSchema.js';
import type { TargetType } from './targets.js';
import type { LinkIndexMetrics } from './backlinkTypes.js';

/** Majestic-style ItemType codes: 1 root domain, 2 subdomain, 3 URL. */
const ITEM_TYPE: Record<TargetType, number> = { RootDomain: 1, SubDomain: 2, URL: 3 };

/** A stored `entity_metrics` row (counters read by name). */
export type MetricsRow = EntityMetricsTable & Record<string, number>;

/** All zeros (Status NotFound) for targets the index does not know. */
export function emptyLinkIndex(type: TargetType): LinkIndexMetrics {
  return linkIndexOf(null, type);
}

export function linkIndexOf(m: MetricsRow | null, type: TargetType): LinkIndexMetrics {
  const n = (key: string): number => (m ? m[key] : 0);
  const s = (key: string): string => String(n(key));
  return {
    Status: m ? 'Found' : 'NotFound',
    ExtBackLinks: n('ext_backlinks'),
    RefDomains: n('ref_domains'),
    ACRank: n('ac_rank'),
    RefIPs: n('ref_ips'),
    ItemType: ITEM_TYPE[type],
    RefSubNets: n('ref_subnets'),
    CitationFlow: n('citation_flow'),
    TrustFlow: n('trust_flow'),
    // TrustMetric is the historical name of the same trust score; we report TrustFlow.
    TrustMetric: n('trust_flow'),
    IndexedURLs: n('indexed_urls'),
    RefDomainsEDU: n('ref_domains_edu'),
    ExtBackLinksEDU: n('ext_backlinks_edu'),
    RefDomainsGOV: n('ref_domains_gov'),
    ExtBackLinksGOV: n('ext_backlinks_gov'),
    RefDomainsEDU_Exact: n('ref_domains_edu_exact'),
    ExtBackLinksEDU_Exact: n('ext_backlinks_edu_exact'),
    RefDomainsGOV_Exact: n('ref_domains_gov_exact'),
    ExtBackLinksGOV_Exact: n('ext_backlinks_gov_exact'),
    NonUniqueLinkTypeHomepages: s('nu_homepages'),
    NonUniqueLinkTypeIndirect: s('nu_indirect'),
    NonUniqueLinkTypeDeleted: s('nu_deleted'),
    NonUniqueLinkTypeNoFollow: s('nu_nofollow'),
    NonUniqueLinkTypeProtocolHTTPS: s('nu_https'),
    NonUniqueLinkTypeFrame: s('nu_frame'),
    NonUniqueLinkTypeImageLink: s('nu_image'),
    NonUniqueLinkTypeRedirect: s('nu_redirect'),
    NonUniqueLinkTypeTextLink: s('nu_text'),
    TotalNonUniqueLinks: s('total_non_unique'),
    OutLinksInternal: s('out_internal'),
    OutLinksExternal: s('out_external'),
    OutDomainsExternal: s('out_domains_external'),
  };
}
