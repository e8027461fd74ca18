/**
 * The rank tool's tables (src/rank): trackings, their keywords and daily checks, Search
 * Console imports, reports and their deliveries, tags and chart annotations.
 */
import type { ColumnType, Generated } from 'kysely';

/** Rank trackings: a domain's positions for a location and platform (rank tool). */
export interface RankTrackingsTable {
  id: string;
  account_id: string;
  /** Host without a leading `www.`; its subdomains rank for it too. */
  domain: string;
  location_id: number;
  platform_id: number;
  created_at: number;
  /** 0 or 1: deleted trackings stay listable with `is_with_deleted`. */
  is_deleted: number;
  deleted_at: number | null;
  /** 0 or 1: whether the tracking's reports are sent at all (each report's type shows in `reports_active`). */
  reports_active: number;
  share_token: string;
  /** JSON `{place_id, ludocid, name, address}` (local-SEO settings), null when unset. */
  tracking_config: string | null;
}

export interface RankTrackedKeywordsTable {
  id: string;
  tracking_id: string;
  account_id: string;
  kw: string;
  location_id: number;
  platform_id: number;
  /** Monthly search volume when the keyword was added (estimated visits, reports). */
  sv: number | null;
  created_at: number;
  /** YYYY-MM-DD (UTC) of creation: the first day that gets a check. */
  first_day: string;
  /** The last day up to which every day has a check; null before the first check. */
  checked_through: string | null;
}

/**
 * Per tracking, day and position, the sums of its checks that the stats read (migration
 * 0075; kept by triggers on rank_checks, never written by the service).
 */
export interface RankCheckDaysTable {
  tracking_id: string;
  day: string;
  /** 1–100, or 0 for checks not in the top 100. */
  position: number;
  /** Checks. */
  n: number;
  /** Sum of the keywords' search volumes over the checks without measured clicks. */
  sv: number;
  /** Sum of the measured clicks, over `clicks_n` checks. */
  clicks: number;
  clicks_n: number;
}

/** One position check per tracked keyword and UTC day. */
export interface RankChecksTable {
  keyword_id: string;
  day: string;
  tracking_id: string;
  /** 1–100, or null when the domain is not in the top 100. */
  position: number | null;
  url: string | null;
  /** JSON: size, screenCoverage, visPart, positionToFold of the ranking item, and `urls`: the domain's URLs in the top 100. */
  visual: string | null;
  /** JSON array of the SERP feature types present. */
  features: string;
  serp_snapshot_id: string | null;
  checked_ms: number;
  /** Clicks Search Console measured for the keyword that day (a period's daily mean for an aggregated export); null for SERP checks. */
  clicks: ColumnType<number | null, number | null | undefined, number | null>;
  impressions: ColumnType<number | null, number | null | undefined, number | null>;
  /** 'search-console' when a Search Console import created the check; null for Quarry's own SERP checks. */
  source: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Resume state of `quarry import search-console` runs (one per file and tracking). */
export interface SearchConsoleImportsTable {
  id: Generated<number>;
  tracking_id: string;
  file_key: string;
  records_done: number;
  /** running or done. */
  status: string;
  started_at: number;
  updated_at: number;
}

/** (keyword, day) checks an unfinished Search Console import has written (cleared when it is done). */
export interface SearchConsoleWrittenTable {
  import_id: number;
  keyword_id: string;
  day: string;
}

export interface RankReportsTable {
  id: string;
  account_id: string;
  tracking_id: string;
  /** 0 rank-change alert, 1 weekly, 2 monthly (the reference's numbers; migration 0009). */
  type: number;
  /** JSON array of addresses. */
  emails: string;
  name: string | null;
  /** JSON array of integer trigger types, as the client sent them. */
  triggers: string;
  /** Places an alert's keyword must move; null: the default. */
  min_change: number | null;
  created_at: number;
}

/** Coloured labels of a tracking, assigned to its keywords. */
export interface RankTagsTable {
  id: string;
  account_id: string;
  tracking_id: string;
  name: string;
  color: string;
  /** E-mail of the account that created it. */
  creator: string;
  created_at: number;
}

export interface RankKeywordTagsTable {
  keyword_id: string;
  tag_id: string;
  tracking_id: string;
}

/** Chart markers of a tracking: a user's note (type 0) or a recorded change (1 keywords added, 2 removed, 3 domain changed). */
export interface RankAnnotationsTable {
  id: string;
  account_id: string;
  tracking_id: string;
  /** YYYY-MM-DD. */
  date: string;
  type: number;
  text: string | null;
  /** Keywords added (positive) or removed (negative). */
  keywords_count: number | null;
  /** Average position of the tracking's ranking keywords at the change. */
  avg: number | null;
  platform_id: number;
  non_shareable: number;
  creator: string;
  created_at: number;
}

/**
 * How far a report mail's delivery got (rank/reportDeliveries.ts): the columns that the rank
 * tool's deliveries and the answer tool's (answers.ts) share, since one module records both.
 */
export interface DeliveryProgress {
  status: 'sending' | 'accepting' | 'sent' | 'failed';
  attempts: number;
  claimed_ms: number;
  sent_ms: number | null;
  message_id: string | null;
  error: string | null;
}

/** The periods a report was claimed and sent for: the primary key makes sending once-only. */
export interface RankReportDeliveriesTable extends DeliveryProgress {
  report_id: string;
  /** YYYY-MM-DD: first day of the period. */
  period_start: string;
}
