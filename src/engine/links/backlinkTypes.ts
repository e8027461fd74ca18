/**
 * The shapes the `links` engine service answers with: backlink filters, backlink items
 * and rows, pages of backlinks, link index metrics, backlink profiles, top content and
 * export suggestions.
 */
import type { TargetType } from './targets.js';

/** Filters of backlink lists and exports (the spec's export filter object plus list options). */
export interface BacklinkFilter {
  /** 0 all, 1 new (first seen in the last 30 days), 2 lost (deleted, last seen in the last 90 days). */
  source?: 0 | 1 | 2;
  /** 1 = only the strongest link of each referring root domain. */
  linksPerDomain?: 0 | 1;
  targetAnchorText?: string;
  targetHrefText?: string;
  linkType?: string;
  noFollow?: boolean;
  liveLinks?: boolean;
  minCitationFlow?: number;
  maxCitationFlow?: number;
  minTrustFlow?: number;
  maxTrustFlow?: number;
  minTopRank?: number;
  maxTopRank?: number;
  minLinkStrength?: number;
  maxLinkStrength?: number;
  flagTextLink?: boolean;
  flagImageLink?: boolean;
  flagFrameLink?: boolean;
  flagRedirectLink?: boolean;
  flagMentionLink?: boolean;
}

/** A backlink as the API shows it (DESIGN.md §5, "Backlinks"). */
export interface BacklinkItem {
  _id: string;
  domainId: string;
  source: string;
  target: string;
  title: string;
  type: 'text' | 'image' | 'redirect' | 'frame' | 'mention';
  anchor: string;
  alt: string;
  first_seen: string;
  last_seen: string;
  last_crawl: string;
  deleted: boolean;
  reason_lost: string | null;
  source_cf: number;
  source_tf: number;
  target_cf: number;
  target_tf: number;
  no_follow: boolean;
  image: boolean;
  redirect: boolean;
  frame: boolean;
  lang: string | null;
  internal_links: number;
  external_links: number;
  ls: number;
}

/** The fields of a backlink in the order lists and export columns show them. */
export const BACKLINK_FIELDS = [
  '_id',
  'domainId',
  'source',
  'target',
  'title',
  'type',
  'anchor',
  'alt',
  'first_seen',
  'last_seen',
  'last_crawl',
  'deleted',
  'reason_lost',
  'source_cf',
  'source_tf',
  'target_cf',
  'target_tf',
  'no_follow',
  'image',
  'redirect',
  'frame',
  'lang',
  'internal_links',
  'external_links',
  'ls',
] as const satisfies readonly (keyof BacklinkItem)[];

/** A backlink as an array of its `BACKLINK_FIELDS` values (what CSV exports stream). */
export type BacklinkRow = BacklinkValues<typeof BACKLINK_FIELDS>;
type BacklinkValues<Fields extends readonly (keyof BacklinkItem)[]> = { -readonly [I in keyof Fields]: BacklinkItem[Fields[I]] };

export interface BacklinkPage {
  meta: { url_type: TargetType; available_links: number };
  links: BacklinkItem[];
}

/** The spec's link-tool URL metrics `v` object. */
export interface LinkIndexMetrics {
  Status: string;
  ExtBackLinks: number;
  RefDomains: number;
  ACRank: number;
  RefIPs: number;
  ItemType: number;
  RefSubNets: number;
  CitationFlow: number;
  TrustFlow: number;
  TrustMetric: number;
  IndexedURLs: number;
  RefDomainsEDU: number;
  ExtBackLinksEDU: number;
  RefDomainsGOV: number;
  ExtBackLinksGOV: number;
  RefDomainsEDU_Exact: number;
  ExtBackLinksEDU_Exact: number;
  RefDomainsGOV_Exact: number;
  ExtBackLinksGOV_Exact: number;
  NonUniqueLinkTypeHomepages: string;
  NonUniqueLinkTypeIndirect: string;
  NonUniqueLinkTypeDeleted: string;
  NonUniqueLinkTypeNoFollow: string;
  NonUniqueLinkTypeProtocolHTTPS: string;
  NonUniqueLinkTypeFrame: string;
  NonUniqueLinkTypeImageLink: string;
  NonUniqueLinkTypeRedirect: string;
  NonUniqueLinkTypeTextLink: string;
  TotalNonUniqueLinks: string;
  OutLinksInternal: string;
  OutLinksExternal: string;
  OutDomainsExternal: string;
}

export interface ExportSuggestion {
  url: string;
  type: TargetType;
  refDomains: number;
  backLinks: number;
}

export interface BacklinkProfile {
  urlId: string;
  linkindex: LinkIndexMetrics;
  backLinkCalendar: { Date: string; NewLinks: number; LostLinks: number }[];
  refDomains: { domain: string; topRank: number; matchedLinks: number; citationFlow: number; trustFlow: number }[];
  anchors: { anchorText: string; refDomains: number; totalLinks: number; noFollowLinks: number; deletedLinks: number; class: string; citationFlow: number }[];
}

export interface TopContentItem {
  url: string;
  citationFlow: number;
  trustFlow: number;
  refDomains: number;
  extBackLinks: number;
  /** Social shares of the page. */
  social: number;
  title: string;
  description: string;
}
