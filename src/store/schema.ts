/**
 * The state store: one typed description of every table that holds precious account
 * data (accounts, keys, usage, cache, histories, ...). The research store (sandbox web,
 * imported data) is described separately in engine/researchSchema.ts and lives in its
 * own file, because it can always be rebuilt and this one never can.
 *
 * Timestamps ending in `_ms` are milliseconds; `created_at`-style columns without the
 * suffix are Unix seconds, as the API shows them.
 */
import type { ColumnType, Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, so an operator can tell keys apart. */
  prefix: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** Admitted requests inside a burst window, per subject, client class and pool. */
export interface BurstEventsTable {
  id: Generated<number>;
  subject: string;
  client_class: string;
  pool: string;
  at_ms: number;
}

/** Use of a quota pool in its current period. */
export interface QuotaUsageTable {
  account_id: string;
  pool: string;
  /** Daily pools: when the period started (first counted request). Monthly pools: start of the UTC month. */
  period_start_ms: number;
  period_end_ms: number;
  used: number;
}

export interface RequestCacheTable {
  account_id: string;
  cache_key: string;
  status: number;
  content_type: string;
  body: string;
  created_ms: number;
  /** 1: written by an earlier release in a shape the API no longer answers (see migration 0010). */
  stale: number;
}

/** Per-account cooldowns, such as one keyword import per 30 s. */
export interface CooldownsTable {
  account_id: string;
  name: string;
  last_ms: number;
}

/** Charges admitted and not yet committed or released (see SqlitePolicyStore.releaseInFlight). */
export interface InflightChargesTable {
  id: Generated<number>;
  account_id: string;
  client_class: string;
  pool: string;
  reserved: number;
  burst_event_id: number;
  started_period: number;
  cooldown_name: string | null;
  cooldown_previous_ms: number | null;
  created_ms: number;
}

/** Per-account, per-tool request history (capped; see policy/history.ts). */
export interface HistoryTable {
  seq: Generated<number>;
  account_id: string;
  tool: string;
  entry: string;
  created_ms: number;
}

/**
 * Lookups that unlock or discount later requests (competitor-domain needs a recent
 * competitor-keywords lookup; site-tool profiles need a recent overview; gap analysis
 * charges a competitor once per 24 h). Kept apart from the capped history, which may
 * forget a lookup long before its 24 hours are over.
 */
export interface LookupsTable {
  account_id: string;
  kind: string;
  lookup_key: string;
  /** What a later request needs to know of the lookup (JSON), e.g. the query behind a SERP id. */
  data: string | null;
  created_ms: number;
  expires_ms: number;
}

export interface KvTable {
  key: string;
  value: string;
}

/** A SERP bought from an upstream provider, kept for its day (engine/sources). */
export interface ProviderSerpsTable {
  provider: string;
  query_key: string;
  /** YYYY-MM-DD (UTC) the SERP was fetched on. */
  day: string;
  /** The provider's answer mapped to our neutral form (JSON). */
  body: string;
  created_ms: number;
}

/** A provider's spend on one UTC day, in US dollars (engine/sources). */
export interface ProviderSpendTable {
  provider: string;
  day: string;
  spent: number;
  calls: number;
}

export interface StateDatabase {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  burst_events: BurstEventsTable;
  quota_usage: QuotaUsageTable;
  request_cache: RequestCacheTable;
  cooldowns: CooldownsTable;
  inflight_charges: InflightChargesTable;
  history: HistoryTable;
  lookups: LookupsTable;
  kv: KvTable;
  keyword_lists: KeywordListsTable;
  keyword_list_items: KeywordListItemsTable;
  favourite_lists: FavouriteListsTable;
  favourite_links: FavouriteLinksTable;
  jobs: JobsTable;
  rank_trackings: RankTrackingsTable;
  rank_tracked_keywords: RankTrackedKeywordsTable;
  rank_checks: RankChecksTable;
  rank_check_days: RankCheckDaysTable;
  rank_reports: RankReportsTable;
  rank_report_deliveries: RankReportDeliveriesTable;
  rank_tags: RankTagsTable;
  rank_keyword_tags: RankKeywordTagsTable;
  rank_annotations: RankAnnotationsTable;
  web_sessions: WebSessionsTable;
  provider_serps: ProviderSerpsTable;
  provider_spend: ProviderSpendTable;
  search_console_imports: SearchConsoleImportsTable;
  search_console_written: SearchConsoleWrittenTable;
  export_chunks: ExportChunksTable;
  answer_monitors: AnswerMonitorsTable;
  answer_prompts: AnswerPromptsTable;
  answer_results: AnswerResultsTable;
  answer_texts: AnswerTextsTable;
  answer_report_deliveries: AnswerReportDeliveriesTable;
  keyword_difficulty: KeywordDifficultyTable;
  provider_answers: ProviderAnswersTable;
  export_pages: ExportPagesTable;
  served_links: ServedLinksTable;
}

/** A backlink a link-index provider served to an account in GET /link-tool/links (store/servedLinks.ts, migration 0088). */
export interface ServedLinksTable {
  account_id: string;
  /** The link's `_id` as served (tools/link/realLinks.ts). */
  link_id: string;
  /** Root domain of the target it was served for: the favourite list it goes to. */
  domain: string;
  /** JSON of the BackLink as served. */
  body: string;
  /** When it was last served (the service's clock, ms). */
  served_ms: number;
}

/** A page of backlinks a real-mode export collected from the provider (tools/link/providerExport.ts, migration 0085). */
export interface ExportPagesTable {
  job_id: string;
  /** 0, 1, 2… in the order they were read. */
  page: number;
  /** JSON array of the page's rows that matched the export's filter, as the CSV writes them. */
  rows: string;
  row_count: number;
  /** JSON of where the next page starts (ListCursor); null when this page was the list's last. */
  next_cursor: string | null;
  /** The provider's count of the whole list, as this page's answer said it; null when it gave none. */
  total: number | null;
}

/** A link-index or authority provider's answer and when it was bought (engine/sources/providerAnswers.ts). */
export interface ProviderAnswersTable {
  provider: string;
  /** What the answer is (item info, authority, a backlinks page…): each kind has its freshness. */
  kind: string;
  key: string;
  /** JSON; null while only claimed. */
  body: string | null;
  /** When it was bought (the service's clock, ms); 0 while never. */
  fetched_ms: number;
  /** Lease of the process buying it now (wall-clock ms); 0 when none. */
  claimed_ms: number;
  claim: string | null;
}

/** The first difficulty computed for a keyword in a market on a UTC day (engine/sources/difficultyBook.ts). */
export interface KeywordDifficultyTable {
  kw: string;
  /** The market (country, or 2840 for anywhere). */
  location_id: number;
  /** YYYY-MM-DD */
  day: string;
  seo: number;
  /** When the difficulty was computed (Unix seconds): a rank index's build, a SERP's fetch. */
  seo_ts: number;
}

/**
 * The scale mode's export files (src/jobs/postgresExportFiles.ts): a file's bytes in order of
 * `seq`; `attempt` is the writing attempt's tag until the file is finished, then ''.
 */
export interface ExportChunksTable {
  file_name: string;
  attempt: string;
  seq: number;
  data: Buffer;
}

export type Timestamp = ColumnType<number, number, number>;

/** Saved keyword lists (keyword tool). */
export interface KeywordListsTable {
  id: string;
  account_id: string;
  name: string;
  creator: string;
  created_at: number;
  updated_at: number;
  /** The keyword ids the list holds (migration 0094), kept with them: the stored-id quota sums these. */
  item_count: Generated<number>;
}

/** The keywords of a list, in the order they were added. */
export interface KeywordListItemsTable {
  list_id: string;
  keyword_id: string;
  seq: number;
}

/**
 * The durable job queue (src/jobs): backlink exports, rank crawls, email reports.
 * `state` is the queue's own lifecycle (queued, running, completed, failed, expired);
 * `stage` is a handler's finer phase within running (an export's collecting/writing).
 * A running job belongs to `lease_owner` until `lease_expires_ms`; after that it is
 * claimable again, because its worker is presumed dead.
 */
export interface JobsTable {
  seq: Generated<number>;
  id: string;
  kind: string;
  account_id: string;
  idempotency_key: string | null;
  /** JSON */
  payload: string;
  state: string;
  stage: string | null;
  attempts: number;
  max_attempts: number;
  progress_done: number;
  progress_total: number | null;
  /** JSON */
  result: string | null;
  error: string | null;
  created_ms: number;
  started_ms: number | null;
  heartbeat_ms: number | null;
  completed_ms: number | null;
  run_after_ms: number;
  lease_owner: string | null;
  lease_expires_ms: number | null;
}

/** Favourite-link lists: one per account and target root domain (link tool). */
export interface FavouriteListsTable {
  id: string;
  account_id: string;
  domain: string;
  created_at: number;
  updated_at: number;
  /** Order of the account's list updates: breaks ties of `updated_at`, which is in whole seconds. */
  update_seq: Generated<number>;
}

export interface FavouriteLinksTable {
  list_id: string;
  link_id: string;
  added_at: number;
  /** JSON of a provider's link as it was served when favourited (migration 0088); null for a sandbox link, read from the index. */
  body: ColumnType<string | null, string | null | undefined, string | null>;
}

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

/** The periods a report was claimed and sent for: the primary key makes sending once-only. */
export interface RankReportDeliveriesTable {
  report_id: string;
  /** YYYY-MM-DD: first day of the period. */
  period_start: string;
  /** How far a delivery got (rank/reportDeliveries.ts). */
  status: 'sending' | 'accepting' | 'sent' | 'failed';
  attempts: number;
  claimed_ms: number;
  sent_ms: number | null;
  message_id: string | null;
  error: string | null;
}

/** Sessions of the web dashboard: the cookie token is stored only as its SHA-256. */
export interface WebSessionsTable {
  token_hash: string;
  account_id: string;
  /** SHA-256 of the API key the session was opened with (api_keys.key_hash). */
  key_hash: string;
  /** The session's anti-CSRF token, sent back by the dashboard in a header on every write. */
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** A brand watched in AI answers (answer tool, migration 0050). */
export interface AnswerMonitorsTable {
  id: string;
  account_id: string;
  brand: string;
  /** JSON array of other names that count as the brand. */
  brand_variations: string;
  /** Host without a leading `www.`; citations of its subdomains count too. */
  domain: string;
  location_id: number;
  language_id: number;
  platform_id: number;
  /** JSON array of model ids asked. */
  models: string;
  /** JSON array of report types sent (0 alert, 1 weekly, 2 monthly). */
  reports_active: string;
  /** JSON object of the dashboard's display flags, kept as set. */
  display: string;
  status_notifications: number;
  share_token: string;
  created_at: number;
  is_deleted: number;
  deleted_at: number | null;
  /** 1 while a settings change waits for the next check. */
  pending_changes: number;
  last_check_ms: number | null;
  /** 1 when a model failed in the latest check. */
  last_check_failed: number;
}

export interface AnswerPromptsTable {
  id: string;
  monitor_id: string;
  account_id: string;
  prompt: string;
  /** The prompt normalised (case, spaces): one per monitor, and the key of the answers bought for it. */
  prompt_key: string;
  created_at: number;
}

/** A prompt's result from one model on one UTC day (the latest attempt). */
export interface AnswerResultsTable {
  prompt_id: string;
  monitor_id: string;
  model_id: number;
  day: string;
  /** ok or failed. */
  status: string;
  error: string | null;
  /** The answer's row in answer_texts (model_key, query_key, day); null when failed. */
  answer_model: string | null;
  answer_query: string | null;
  /** JSON: what the monitor found in the answer (answers/analysis.ts). */
  analysis: string | null;
  attempts: number;
  checked_ms: number;
}

/** An answer bought from a model, shared by everyone who asks the same prompt that day. */
export interface AnswerTextsTable {
  model_key: string;
  query_key: string;
  day: string;
  /** buying (a claim on the purchase) or ready. */
  state: string;
  /** JSON `{text, citations: [{url, title, domain}]}` once ready. */
  body: string | null;
  claimed_ms: number;
}

export interface AnswerReportDeliveriesTable {
  monitor_id: string;
  type: number;
  period_start: string;
  /** How far a delivery got (rank/reportDeliveries.ts). */
  status: 'sending' | 'accepting' | 'sent' | 'failed';
  attempts: number;
  claimed_ms: number;
  sent_ms: number | null;
  message_id: string | null;
  error: string | null;
}
