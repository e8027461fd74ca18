/**
 * The state store: one typed description of every table that holds precious account
 * data (accounts, keys, usage, cache, histories, ...). The research store (sandbox web,
 * imported data) is described separately in engine/researchSchema.ts and lives in its
 * own file, because it can always be rebuilt and this one never can.
 *
 * Each table's row is described in tables/, one file a concept; this module puts them together
 * as the database Kysely queries.
 *
 * Timestamps ending in `_ms` are milliseconds; `created_at`-style columns without the
 * suffix are Unix seconds, as the API shows them.
 */
import type { AccountsTable, ApiKeysTable, WebSessionsTable } from './tables/accounts.js';
import type { AnswerMonitorsTable, AnswerPromptsTable, AnswerReportDeliveriesTable, AnswerResultsTable, AnswerTextsTable } from './tables/answers.js';
import type { ExportChunksTable, ExportPagesTable, JobsTable } from './tables/jobs.js';
import type { FavouriteLinksTable, FavouriteListsTable, KeywordListItemsTable, KeywordListsTable, ServedLinksTable } from './tables/lists.js';
import type {
  BurstEventsTable,
  CooldownsTable,
  HistoryTable,
  InflightChargesTable,
  LookupsTable,
  QuotaUsageTable,
  RequestCacheTable,
} from './tables/policy.js';
import type { KeywordDifficultyTable, ProviderAnswersTable, ProviderSerpsTable, ProviderSpendTable } from './tables/providers.js';
import type {
  RankAnnotationsTable,
  RankCheckDaysTable,
  RankChecksTable,
  RankKeywordTagsTable,
  RankReportDeliveriesTable,
  RankReportsTable,
  RankTagsTable,
  RankTrackedKeywordsTable,
  RankTrackingsTable,
  SearchConsoleImportsTable,
  SearchConsoleWrittenTable,
} from './tables/rankTracking.js';

/** Key and value, made by the first migration; no module reads or writes it today. */
export interface KvTable {
  key: string;
  value: string;
}

export interface StateDatabase {
  kv: KvTable;
  // tables/accounts.ts
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  web_sessions: WebSessionsTable;
  // tables/policy.ts
  burst_events: BurstEventsTable;
  quota_usage: QuotaUsageTable;
  request_cache: RequestCacheTable;
  cooldowns: CooldownsTable;
  inflight_charges: InflightChargesTable;
  history: HistoryTable;
  lookups: LookupsTable;
  // tables/lists.ts
  keyword_lists: KeywordListsTable;
  keyword_list_items: KeywordListItemsTable;
  favourite_lists: FavouriteListsTable;
  favourite_links: FavouriteLinksTable;
  served_links: ServedLinksTable;
  // tables/jobs.ts
  jobs: JobsTable;
  export_chunks: ExportChunksTable;
  export_pages: ExportPagesTable;
  // tables/rankTracking.ts
  rank_trackings: RankTrackingsTable;
  rank_tracked_keywords: RankTrackedKeywordsTable;
  rank_checks: RankChecksTable;
  rank_check_days: RankCheckDaysTable;
  rank_reports: RankReportsTable;
  rank_report_deliveries: RankReportDeliveriesTable;
  rank_tags: RankTagsTable;
  rank_keyword_tags: RankKeywordTagsTable;
  rank_annotations: RankAnnotationsTable;
  search_console_imports: SearchConsoleImportsTable;
  search_console_written: SearchConsoleWrittenTable;
  // tables/answers.ts
  answer_monitors: AnswerMonitorsTable;
  answer_prompts: AnswerPromptsTable;
  answer_results: AnswerResultsTable;
  answer_texts: AnswerTextsTable;
  answer_report_deliveries: AnswerReportDeliveriesTable;
  // tables/providers.ts
  provider_serps: ProviderSerpsTable;
  provider_spend: ProviderSpendTable;
  provider_answers: ProviderAnswersTable;
  keyword_difficulty: KeywordDifficultyTable;
}
