/** Stored rank-tracking records → the API's JSON shapes (schemas.ts), each defined once. */
import type { LocationRegistry } from '../../locations/registry.js';
import type { AnnotationRow, ReportRow, TagRow, TrackedKeywordRow, TrackingConfig, TrackingRow } from '../../store/rankTracking.js';
import { shortLocation } from '../common/presenters.js';
import type { AnnotationJson, ReportJson, TagJson, TrackedKeywordJson, TrackingJson } from './schemas.js';

const NO_CONFIG: TrackingConfig = { address: null, ludocid: null, name: null, place_id: null };

export function presentTrackingConfig(stored: string | null): TrackingConfig {
  if (stored === null) return { ...NO_CONFIG };
  const c = JSON.parse(stored) as Partial<TrackingConfig>;
  return { address: c.address ?? null, ludocid: c.ludocid ?? null, name: c.name ?? null, place_id: c.place_id ?? null };
}

/**
 * A tracking. `reports_active` lists the types of its reports that are sent: all of them,
 * or none while the tracking's reports are paused (or it is deleted).
 */
export function presentTracking(t: TrackingRow, keywordIds: readonly string[], reportTypes: readonly number[], locations: LocationRegistry): TrackingJson {
  const loc = locations.get(t.location_id);
  return {
    _id: t.id,
    domain: t.domain,
    location: loc ? shortLocation(loc) : { _id: t.location_id, label: String(t.location_id), code: null },
    platform_id: t.platform_id,
    count: keywordIds.length,
    tracked_keyword_ids: [...keywordIds],
    tracking_config: presentTrackingConfig(t.tracking_config),
    share_token: t.share_token,
    created_at: t.created_at,
    is_deleted: t.is_deleted === 1,
    reports_active: t.reports_active === 1 && t.is_deleted === 0 ? [...new Set(reportTypes)].sort((a, b) => a - b) : [],
  };
}

export interface KeywordWithLatest extends TrackedKeywordRow {
  position: number | null;
  url: string | null;
}

export function presentTrackedKeyword(k: KeywordWithLatest, tagIds: readonly string[] = []): TrackedKeywordJson {
  return {
    _id: k.id,
    keyword_id: k.id,
    tracking_id: k.tracking_id,
    user_id: k.account_id,
    kw: k.kw,
    location_id: k.location_id,
    platform_id: k.platform_id,
    sv: k.sv,
    created_at: k.created_at,
    position: k.position ?? null,
    url: k.url ?? null,
    checked_at: k.checked_through,
    tag_ids: [...tagIds],
  };
}

/** A keyword just added: not checked yet. */
export function presentNewKeyword(k: TrackedKeywordRow): TrackedKeywordJson {
  return presentTrackedKeyword({ ...k, position: null, url: null });
}

export function presentReport(r: ReportRow): ReportJson {
  return {
    _id: r.id,
    user_id: r.account_id,
    tracking_id: r.tracking_id,
    type: r.type as ReportJson['type'],
    emails: JSON.parse(r.emails) as string[],
    name: r.name ?? '',
    triggers: JSON.parse(r.triggers) as number[],
    min_change: r.min_change,
    created_at: r.created_at,
  };
}

export function presentTag(t: TagRow): TagJson {
  return { _id: t.id, user_id: t.account_id, creator: t.creator, tracking_id: t.tracking_id, name: t.name, color: t.color, created_at: t.created_at };
}

export function presentAnnotation(a: AnnotationRow): AnnotationJson {
  return {
    _id: a.id,
    date: a.date,
    content: { text: a.text ?? '', keywords_count: a.keywords_count ?? 0, avg: a.avg ?? 0, platformId: a.platform_id },
    nonShareable: a.non_shareable === 1,
    tracking_id: a.tracking_id,
    user_id: a.account_id,
    creator: a.creator,
    created_at: a.created_at,
    type: a.type,
  };
}
