import { md5Hex } from '../../lib/ids.js';
import { normaliseKeyword } from './text.js';

/**
 * The keyword id: 32 hex digits, stable for (normalised keyword, location, language), so
 * that the same keyword looked up twice, or by two accounts, has the same `_id`.
 *
 * @example keywordId('  Running Shoes ', 2840, 1000) === keywordId('running shoes', 2840, 1000)
 */
export function keywordId(keyword: string, locationId: number, languageId: number): string {
  return md5Hex(`${normaliseKeyword(keyword)}|${locationId}|${languageId}`);
}

export function isKeywordId(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value);
}
