/** The parts of API answers the screens read (the SDK's generated types describe them in full). */
export interface KeywordItem {
  _id: string;
  kw: string;
  sv: number;
  cpc: number | null;
  ppc?: number | null;
  seo: number | null;
  msv?: [number, number, number][];
  position?: number;
  url?: string;
}

export interface SerpItem {
  type: string;
  url: string | null;
  title: string | null;
  desc?: string | null;
  domain?: string | null;
  topRank?: number | null;
  ctr?: number | null;
  visPart?: number;
  positionToFold?: { status: string };
  m?: { linkindex?: { v?: { CitationFlow?: number; TrustFlow?: number } }; authority?: { v?: { pda?: number; upa?: number } } };
  items?: SerpItem[];
}

export interface Serp {
  _id: string;
  kw: string;
  rank: number;
  items: SerpItem[];
  serp_snapshot_id?: string | null;
  serpFeaturesImpact?: number;
  location: { _id: number; label: string };
}

export interface KeywordList {
  _id: string;
  name: string;
  keyword_ids: string[];
  created_at: number;
  updated_at: number;
}

export interface Tracking {
  _id: string;
  domain: string;
  location: { _id: number; label: string; code?: string };
  platform_id: 1 | 2;
  count: number;
  created_at: number;
}

export interface TrackedKeyword {
  _id: string;
  kw: string;
  sv: number;
  position: number | null;
  url: string | null;
  checked_at: string | null;
  tag_ids: string[];
}

export interface LocationOption {
  _id: number;
  label: string;
  type: number;
}

export interface Annotation {
  _id: string;
  date: string;
  content: { text: string; keywords_count: number; avg: number; platformId: number };
  nonShareable: boolean;
}

export interface Tag {
  _id: string;
  name: string;
  color: string;
  created_at: number;
}

export interface Report {
  _id: string;
  type: 0 | 1 | 2;
  emails: string[];
  name: string;
  min_change: number | null;
  created_at: number;
}

/** The dashboard's own preview of a report's next e-mail (src/dashboard/routes.ts). */
export interface ReportPreview {
  period: { start: string; end: string };
  would_send: boolean;
  to: string[];
  subject: string;
  html: string;
  text: string;
}
