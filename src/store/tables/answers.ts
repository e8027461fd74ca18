/**
 * The answer tool's tables (src/answers): brands watched in AI answers, their prompts, each
 * model's daily result, the answers bought, and report deliveries.
 */
import type { DeliveryProgress } from './rankTracking.js';

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

/** The periods a monitor's report of each type was claimed and sent for, as for the rank tool's reports. */
export interface AnswerReportDeliveriesTable extends DeliveryProgress {
  monitor_id: string;
  type: number;
  period_start: string;
}
