/** The Serp object and its items (DESIGN.md §5). */
import type { KeywordOpportunities } from './contentTypes.js';
import type { IntentLabel } from './searchIntent.js';
import type { Platform } from './serpFeatures.js';
import type { Box, PositionToFold } from './serpLayout.js';

export interface ShortLocation {
  _id: number;
  label: string;
  code: string;
}

/**
 * The metric groups of a result; a group is left out when nobody has its data (a provider
 * answering nothing for the URL; social counts with link providers, which give none). A
 * figure the provider does not give is null (DataForSEO has no CitationFlow or TrustFlow).
 */
export interface SerpItemMetrics {
  linkindex?: { v: { CitationFlow: number | null; TrustFlow: number | null; RefDomains: number | null; ExtBackLinks: number | null }; ts: number };
  authority?: { v: { pda: number | null; upa: number | null; spam?: number }; ts: number };
  social?: { v: { l: number }; ts: number };
}

/** A member of a pack (an ad, a place, a story, a question, ...). */
export interface SerpPackMember {
  type: string;
  url: string | null;
  title: string;
  desc: string | null;
  domain: string | null;
  /** Keyword id of a query member (similar questions and queries). */
  mId?: string;
}

export interface SerpItem {
  type: string;
  url: string | null;
  title: string | null;
  desc: string | null;
  domain: string | null;
  /** Keyword id, for query items only. */
  mId?: string;
  topRank: number | null;
  /** 1-based organic position (organic items only). */
  position?: number;
  size: Box;
  screenCoverage: number;
  visPart: number;
  ctr: number | null;
  positionToFold: PositionToFold;
  m: SerpItemMetrics | null;
  items: SerpPackMember[];
}

export interface Serp {
  _id: string;
  kw: string;
  mId: string;
  page: number;
  location_id: number;
  location: ShortLocation;
  platform_id: 1 | 2;
  items: SerpItem[];
  /** Keyword difficulty 0–100. */
  rank: number;
  rank_updated_at: number;
  created_at: number;
  /** CTR per organic position of this page, in order. */
  ctr: number[];
  /** Estimated number of results the engine reports ("About N results"). */
  results: number;
  /** Organic results on this page. */
  serp_results: number;
  serp_snapshot_id: string | null;
  serp_source_url: string;
  serpFeaturesImpact: number;
}

/** A SERP lookup: a keyword in a location, language, platform and page (searchEngine.ts serp). */
export interface SerpQuery {
  kw: string;
  locationId?: number;
  languageId?: number;
  platform?: Platform;
  page?: number;
  /** YYYY-MM-DD: the day the SERP stands for (a stored snapshot's date); default: the clock's day. */
  date?: string;
}

export interface KeywordDetail {
  serp: Serp;
  kwOpps: KeywordOpportunities;
  searchIntent: Record<string, IntentLabel[] | null>;
  contentTypes: string[];
  serpFeatures: string[];
}
