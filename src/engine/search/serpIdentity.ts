/**
 * Identities of a SERP: its id, snapshot id and the search-engine URL it stands for.
 */
import { md5Hex } from '../../lib/ids.js';
import { normaliseKeyword } from './text.js';

/** Pages stored from this date on carry the `.sch` suffix (spec, SERP tool rule 3). */
export const SCH_SNAPSHOTS_SINCE = '2026-10-02';

/** The query key a SERP is identified by: keyword, location, platform and page. */
export function serpQueryKey(keyword: string, locationId: number, platform: number, page: number): string {
  return `${normaliseKeyword(keyword)}|${locationId}|${platform}|${page}`;
}

/** The SERP `_id`: md5 of its query key (32 hex). */
export function serpId(keyword: string, locationId: number, platform: number, page: number): string {
  return md5Hex(serpQueryKey(keyword, locationId, platform, page));
}

/**
 * `<md5>.<YYYY-MM-DD>[.100][.sch]`: `.100` for a hundred-result SERP, `.sch` for a page
 * stored from 2026-10-02.
 */
export function serpSnapshotId(id: string, date: string, organicCount: number): string {
  return `${id}.${date}${organicCount >= 100 ? '.100' : ''}${date >= SCH_SNAPSHOTS_SINCE ? '.sch' : ''}`;
}

export interface ParsedSnapshotId {
  id: string;
  date: string;
  hundred: boolean;
  sch: boolean;
}

/** Parses a snapshot id; undefined when it is not of the snapshot form (e.g. a bare `_id`). */
export function parseSnapshotId(value: string): ParsedSnapshotId | undefined {
  const m = /^([0-9a-f]{32})\.(\d{4}-\d{2}-\d{2})(\.100)?(\.sch)?$/.exec(value);
  if (!m) return undefined;
  return { id: m[1], date: m[2], hundred: m[3] !== undefined, sch: m[4] !== undefined };
}

/**
 * The search-engine URL of a SERP, e.g.
 * `https://www.google.de/search?q=laufschuhe&gl=de&hl=de&num=100`.
 */
export function serpSourceUrl(keyword: string, engineDomain: string, countryCode: string, languageCode: string | null, page: number, platform: number): string {
  const params = new URLSearchParams({ q: normaliseKeyword(keyword) });
  if (countryCode) params.set('gl', countryCode.toLowerCase());
  if (languageCode) params.set('hl', languageCode.replace('_', '-'));
  params.set('num', '100');
  if (page > 0) params.set('start', String(page * 100));
  if (platform === 2) params.set('device', 'mobile');
  return `https://www.${engineDomain}/search?${params.toString()}`;
}
