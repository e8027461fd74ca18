/**
 * What a link-index provider (Majestic, DataForSEO Backlinks) and an authority provider
 * (Moz, DataForSEO) answer, in one neutral form the tools present: the contract's
 * `linkindex` fields under their own (Majestic's) names, backlinks, referring domains,
 * anchors, the new/lost calendar, top pages and monthly history. A figure the provider does
 * not give is `null` — never a stand-in number (docs/decisions.md, "Real link data").
 */
import type { LinkIndexMetrics } from '../../links/backlinkTypes.js';
import { detectTargetType, type TargetType } from '../../links/targets.js';
import { parseTarget } from '../../links/urls.js';

export type { TargetType } from '../../links/targets.js';

/** The contract's item info with each figure the provider may lack as null; `Status` and `ItemType` are always said. */
export type IndexItemInfo = { Status: string; ItemType: number } & {
  [K in Exclude<keyof LinkIndexMetrics, 'Status' | 'ItemType'>]: LinkIndexMetrics[K] | null;
};

/** A target as providers take it: the canonical text of a root domain, a host or a URL. */
export interface LinkTarget {
  /** `example.com`, `blog.example.com` or `https://example.com/page`. */
  name: string;
  type: TargetType;
  rootDomain: string;
  host: string;
}

/** Majestic's ItemType codes, which the contract keeps: 1 root domain, 2 subdomain, 3 URL. */
export const ITEM_TYPE: Record<TargetType, number> = { RootDomain: 1, SubDomain: 2, URL: 3 };

/** Parses what a user typed into a provider target (type auto-detected as the sandbox does); null when it names no domain. */
export function linkTarget(input: string, type?: TargetType): LinkTarget | null {
  const parsed = parseTarget(input);
  if (!parsed) return null;
  const t = type ?? detectTargetType(parsed);
  const name = t === 'RootDomain' ? parsed.rootDomain : t === 'SubDomain' ? parsed.host : parsed.url;
  return { name, type: t, rootDomain: parsed.rootDomain, host: parsed.host };
}

/** A backlink as a provider lists it. */
export interface ProviderBacklink {
  sourceUrl: string;
  targetUrl: string;
  /** Title of the linking page. */
  title: string | null;
  anchor: string;
  type: 'text' | 'image' | 'redirect' | 'frame' | 'mention';
  alt: boolean;
  nofollow: boolean;
  image: boolean;
  redirect: boolean;
  frame: boolean;
  deleted: boolean;
  /** YYYY-MM-DD */
  firstSeen: string | null;
  lastSeen: string | null;
  /** When the link was lost (YYYY-MM-DD), while `deleted`. */
  lostOn: string | null;
  reasonLost: string | null;
  sourceCitationFlow: number | null;
  sourceTrustFlow: number | null;
  targetCitationFlow: number | null;
  targetTrustFlow: number | null;
  lang: string | null;
  internalLinks: number | null;
  externalLinks: number | null;
}

/** Which links of a target a list holds (the contract's `source`): 0 all, 1 new (30 days), 2 lost (90 days). */
export type LinkListSource = 0 | 1 | 2;

/** A page of a target's backlinks, in the provider's order, and how many the whole list holds (null when the provider does not say). */
export interface BacklinkPage {
  total: number | null;
  links: ProviderBacklink[];
  /** Rows the provider answered, unreadable ones included (the next page starts after them); absent in answers stored before it was kept. */
  rows?: number;
}

/** Where a walk through a backlinks list stands: an offset, or (DataForSEO past 20,000) the token its last page answered. */
export interface ListCursor {
  offset: number;
  token: string | null;
}

export interface RefDomainRow {
  domain: string;
  matchedLinks: number | null;
  citationFlow: number | null;
  trustFlow: number | null;
}

export interface AnchorRow {
  anchorText: string;
  refDomains: number | null;
  totalLinks: number | null;
  noFollowLinks: number | null;
  deletedLinks: number | null;
  citationFlow: number | null;
}

export interface CalendarRow {
  Date: string;
  NewLinks: number;
  LostLinks: number;
}

export interface TopPageRow {
  url: string;
  citationFlow: number | null;
  trustFlow: number | null;
  refDomains: number | null;
  extBackLinks: number | null;
  title: string | null;
}

/** The link index of a target at one month. */
export interface HistoryRow {
  /** YYYY-MM */
  month: string;
  refDomains: number | null;
  refIps: number | null;
  refSubnets: number | null;
  citationFlow: number | null;
  trustFlow: number | null;
}

/** Authority figures of a URL: domain authority of its root domain, page authority of the URL, spam score (0–100 where given). */
export interface AuthorityFigures {
  pda: number | null;
  upa: number | null;
  spam: number | null;
}

/** An organic competitor of a domain. */
export interface CompetitorRow {
  domain: string;
  /** Similarity 0–100. */
  score: number | null;
}

/** A domain's organic ranking statistics in one market (DataForSEO Labs domain_rank_overview), as bought on `day` (YYYY-MM-DD). */
export interface RankOverview {
  day: string;
  /** Labs' `metrics.organic` counters under their own names (`pos_1` … `pos_91_100`, `etv`, `count`, …). */
  organic: Record<string, number>;
}

/** A provider call's value and what the provider charged for it (US dollars). */
export interface Bought<T> {
  value: T;
  cost: number;
}
