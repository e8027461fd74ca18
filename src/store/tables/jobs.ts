/**
 * The durable job queue (src/jobs) and what its exports write.
 */
import type { Generated } from 'kysely';

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
