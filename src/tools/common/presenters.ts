/** Location shapes of the API (DESIGN.md §5), defined once. */
import type { Location } from '../../locations/registry.js';

export function fullLocation(loc: Location) {
  return {
    _id: loc.id,
    active: loc.active,
    canonical_name: loc.canonicalName,
    code: loc.code,
    country_code: loc.countryCode,
    created_at: loc.createdAt,
    engine_domain: loc.engineDomain,
    label: loc.label,
    name: loc.name,
    parent_id: loc.parentId,
    status: loc.status,
    target_type: loc.targetType,
    tld: loc.tld,
    type: loc.type,
  };
}

export function shortLocation(loc: Location) {
  return { _id: loc.id, label: loc.label, code: loc.code };
}
