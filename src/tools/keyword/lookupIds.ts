/** Ids of keyword-tool lookups, stable for the same question. */
import { md5Hex } from '../../lib/ids.js';

/** The id of a related-keywords lookup (`_id`), also the `rkID` of SERP lookups of that keyword. */
export function relatedLookupId(kw: string, locationId: number, languageId: number): string {
  return md5Hex(`related\u0000${kw.trim().replace(/\s+/g, ' ').toLowerCase()}\u0000${locationId}\u0000${languageId}`);
}
