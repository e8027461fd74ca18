/** Stored rank-tracking records → the API's JSON shapes (DESIGN.md §5), each defined once. */
import type { LocationRegistry } from '../../locations/registry.js';
import type { ReportRow, TrackedKeywordRow, TrackingRow } from '../../store/rankTracking.js';
import { shortLocation } from '../common/presenters.js';

export function presentTracking(t: TrackingRow, keywordIds: readonly string[], locations: LocationRegistry) {
  const loc = locations.get(t.location_id);
  return {
    _id: t.id,
    domain: t.domain,
    location: loc ? shortLocation(loc) : { _id: t.location_id, label: String(t.location_id), code: '' },
    platform_id: t.platform_id,
    count: keywordIds.length,
    tracked_keyword_ids: [...keywordIds],
    created_at: t.created_at,
    is_deleted: t.is_deleted === 1,
    reports_active: t.reports_active === 1,
    share_token: t.share_token,
  };
}

export function presentNewKeyword(k: TrackedKeywordRow) {
  return { keyword_id: k.id, tracking_id: k.tracking_id, user_id: k.account_id, kw: k.kw, location_id: k.location_id, platform_id: k.platform_id };
}

export function presentReport(r: ReportRow) {
  return {
    _id: r.id,
    user_id: r.account_id,
    tracking_id: r.tracking_id,
    type: r.type,
    emails: JSON.parse(r.emails) as string[],
    name: r.name,
    triggers: JSON.parse(r.triggers) as Record<string, unknown>,
    created_at: r.created_at,
  };
}
