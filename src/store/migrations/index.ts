/**
 * Versioned migrations of the state store, one file per feature. Add a file with a
 * higher prefix and one line below; never edit a migration that has been released.
 */
import type { Migration } from 'kysely';
import { foundationMigrations } from './0001_foundation.js';
import { jobMigrations } from './0002_jobs.js';
import { keywordListMigrations } from './0003_keyword_lists.js';
import { favouriteMigrations } from './0004_link_favourites.js';
import { rankTrackingMigrations } from './0006_rank_tracking.js';
import { favouriteUpdateOrderMigrations } from './0007_favourite_update_order.js';
import { inflightChargeMigrations } from './0008_inflight_charges.js';
import { rankReferenceMigrations } from './0009_rank_reference.js';
import { staleCachedAnswerMigrations } from './0010_stale_cached_answers.js';
import { rankChecksKeywordIndexMigrations } from './0011_rank_checks_keyword_index.js';
import { webSessionMigrations } from './0012_web_sessions.js';
import { providerLedgerMigrations } from './0014_provider_ledger.js';
import { rankStorageQuotaMigrations } from './0016_rank_storage_quota.js';
import { exportChunkMigrations } from './0017_export_chunks.js';
import { lookupKeySeparatorMigrations } from './0018_lookup_key_separator.js';
import { searchConsoleMigrations } from './0020_search_console.js';
import { providerAnswerMigrations } from './0040_provider_answers.js';
import { exportPageMigrations } from './0085_export_pages.js';
import { servedLinkMigrations } from './0088_served_links.js';
import { keywordListCountMigrations } from './0094_keyword_list_counts.js';
import { keywordDifficultyMigrations } from './0045_keyword_difficulty.js';
import { answerMonitoringMigrations } from './0050_answer_monitoring.js';
import { rankCheckDaysMigrations } from './0075_rank_check_days.js';

export const stateMigrations: Record<string, Migration> = {
  ...foundationMigrations,
  ...jobMigrations,
  ...keywordListMigrations,
  ...favouriteMigrations,
  ...rankTrackingMigrations,
  ...favouriteUpdateOrderMigrations,
  ...inflightChargeMigrations,
  ...rankReferenceMigrations,
  ...staleCachedAnswerMigrations,
  ...rankChecksKeywordIndexMigrations,
  ...webSessionMigrations,
  ...providerLedgerMigrations,
  ...rankStorageQuotaMigrations,
  ...exportChunkMigrations,
  ...lookupKeySeparatorMigrations,
  ...searchConsoleMigrations,
  ...providerAnswerMigrations,
  ...keywordDifficultyMigrations,
  ...answerMonitoringMigrations,
  ...rankCheckDaysMigrations,
  ...exportPageMigrations,
  ...servedLinkMigrations,
  ...keywordListCountMigrations,
};
