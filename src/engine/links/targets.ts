/**
 * Resolves what a user typed (URL, host or domain) to a research-store entity: a root
 * domain, a subdomain (host) or a URL (page).
 *
 * Auto-detection: a bare registrable domain, or `www.` + it, without scheme or path →
 * root domain (people type `www.` by habit); another host without scheme or path →
 * subdomain; anything with a path, a query or an explicit scheme → URL. A URL typed
 * without a scheme matches its https page first, then its http page.
 */
import type SqliteDatabase from 'better-sqlite3';
import { LEVEL, type Level } from '../researchSchema.js';
import { parseTarget, type ParsedTarget } from './urls.js';

export type TargetType = 'RootDomain' | 'SubDomain' | 'URL';

export interface ResolvedTarget {
  input: string;
  type: TargetType;
  level: Level;
  parsed: ParsedTarget;
  /** Canonical text of the target: the domain, the host or the normalised URL. */
  name: string;
  /** Id of the root domain / host / page, or null when the index does not know it. */
  entityId: number | null;
  rootDomainId: number | null;
  hostId: number | null;
  pageId: number | null;
}

export const LEVEL_OF_TYPE: Record<TargetType, Level> = { RootDomain: LEVEL.root, SubDomain: LEVEL.subdomain, URL: LEVEL.url };

export function detectTargetType(parsed: ParsedTarget): TargetType {
  if (parsed.explicitScheme || !parsed.hostOnly) return 'URL';
  if (parsed.host === parsed.rootDomain || parsed.host === `www.${parsed.rootDomain}`) return 'RootDomain';
  return 'SubDomain';
}

export class TargetResolver {
  private readonly rootByDomain: SqliteDatabase.Statement;
  private readonly hostByName: SqliteDatabase.Statement;
  private readonly pageByUrl: SqliteDatabase.Statement;

  constructor(raw: SqliteDatabase.Database) {
    this.rootByDomain = raw.prepare('SELECT id FROM root_domains WHERE domain = ?').pluck();
    this.hostByName = raw.prepare('SELECT id FROM hosts WHERE host = ?').pluck();
    this.pageByUrl = raw.prepare('SELECT id FROM pages WHERE url = ?').pluck();
  }

  /** Null when the input is not a URL or domain at all. */
  resolve(input: string, type?: TargetType): ResolvedTarget | null {
    const parsed = parseTarget(input);
    if (!parsed) return null;
    const targetType = type ?? detectTargetType(parsed);
    const rootDomainId = (this.rootByDomain.get(parsed.rootDomain) as number | undefined) ?? null;
    const hostId = (this.hostByName.get(parsed.host) as number | undefined) ?? null;
    let pageId: number | null = null;
    let url = parsed.url;
    if (targetType === 'URL') {
      pageId = (this.pageByUrl.get(parsed.url) as number | undefined) ?? null;
      if (pageId === null && !parsed.explicitScheme) {
        const http = parsed.url.replace(/^https:/, 'http:');
        pageId = (this.pageByUrl.get(http) as number | undefined) ?? null;
        if (pageId !== null) url = http;
      }
    }
    const name = targetType === 'RootDomain' ? parsed.rootDomain : targetType === 'SubDomain' ? parsed.host : url;
    const entityId = targetType === 'RootDomain' ? rootDomainId : targetType === 'SubDomain' ? hostId : pageId;
    return { input, type: targetType, level: LEVEL_OF_TYPE[targetType], parsed: { ...parsed, url }, name, entityId, rootDomainId, hostId, pageId };
  }
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const HEX_ID_PADDING = '0'.repeat(16);

/** 24-lowercase-hex form of a numeric research id (the API's id convention). */
export function hexId(id: number): string {
  // Ids below 2^32 (all of them in practice) by byte table: several times faster than
  // toString(16), and a CSV export writes two per row.
  if (id >= 0 && id < 0x1_0000_0000 && Number.isInteger(id)) {
    return HEX_ID_PADDING + HEX_BYTES[id >>> 24] + HEX_BYTES[(id >>> 16) & 0xff] + HEX_BYTES[(id >>> 8) & 0xff] + HEX_BYTES[id & 0xff];
  }
  return id.toString(16).padStart(24, '0');
}

/** Numeric id of a 24-hex research id, or null. */
export function parseHexId(text: string): number | null {
  if (!/^[0-9a-f]{24}$/.test(text)) return null;
  const value = Number.parseInt(text, 16);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}
