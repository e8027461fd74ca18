/**
 * The records of rank tracking (trackings, tracked keywords, reports, tags, annotations),
 * what is written of them, and the errors and storage quota their writes answer to.
 */
import type { Selectable } from 'kysely';
import type { RankAnnotationsTable, RankReportsTable, RankTagsTable, RankTrackedKeywordsTable, RankTrackingsTable } from './tables/rankTracking.js';

export type TrackingRow = Selectable<RankTrackingsTable>;
export type TrackedKeywordRow = Selectable<RankTrackedKeywordsTable>;
export type ReportRow = Selectable<RankReportsTable>;
export type TagRow = Selectable<RankTagsTable>;
export type AnnotationRow = Selectable<RankAnnotationsTable>;

export interface TrackingWithCount extends TrackingRow {
  count: number;
}

export interface NewKeyword {
  kw: string;
  sv: number | null;
}

export interface TrackingTarget {
  domain: string;
  locationId: number;
  platformId: number;
}

export interface NewReport {
  type: number;
  emails: string[];
  name: string | null;
  triggers: number[];
  min_change: number | null;
}

/** Local-SEO settings of a tracking (map-pack tracking). */
export interface TrackingConfig {
  place_id: string | null;
  ludocid: string | null;
  name: string | null;
  address: string | null;
}

/** Annotation types: a user's note, and the changes recorded by the service. */
export const ANNOTATION_TYPES = { note: 0, keywordsAdded: 1, keywordsRemoved: 2, domainChanged: 3 } as const;

export interface NewAnnotation {
  date: string;
  type: number;
  text: string | null;
  keywords_count: number | null;
  avg: number | null;
  creator: string;
}

/** Thrown when a tracking of the same domain, location and platform is live (409). */
export class TrackingConflictError extends Error {}

/** Thrown when the account would track more keywords than its plan allows (422). */
export class TrackedKeywordLimitError extends Error {
  constructor(
    readonly limit: number,
    readonly requested: number,
  ) {
    super(`Your plan tracks at most ${limit} keywords; this request would track ${requested}`);
  }
}

/** The rank-tool objects an account's storage quota counts (fair use; see policy/fairUse.ts). */
export interface RankStorageQuota {
  trackings: number;
  trackedKeywords: number;
  tags: number;
  annotations: number;
  reports: number;
}
export type RankObject = keyof RankStorageQuota;

export const UNLIMITED: RankStorageQuota = {
  trackings: Infinity,
  trackedKeywords: Infinity,
  tags: Infinity,
  annotations: Infinity,
  reports: Infinity,
};

export const OBJECT_NAMES: Record<RankObject, [string, string]> = {
  trackings: ['rank_trackings', 'trackings (deleted ones included until they are purged)'],
  trackedKeywords: ['rank_tracked_keywords', 'tracked keywords (those of deleted trackings included until they are purged)'],
  tags: ['rank_tags', 'tags'],
  annotations: ['rank_annotations', 'annotations'],
  reports: ['rank_reports', 'reports'],
};

/** Thrown when a write would take the account past its storage quota of one kind of object (422); nothing is written. */
export class StorageQuotaError extends Error {
  constructor(
    readonly kind: RankObject,
    readonly limit: number,
    readonly stored: number,
  ) {
    super(
      `An account stores at most ${limit.toLocaleString('en-US')} ${OBJECT_NAMES[kind][1]} (${stored.toLocaleString('en-US')} stored); delete some to make room`,
    );
  }
}

/** Report types, the reference's numbers. */
export const REPORT_TYPES = { rankChange: 0, weekly: 1, monthly: 2 } as const;

/** UTC day `YYYY-MM-DD` of a millisecond timestamp. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const ROWS_PER_INSERT = 500;
