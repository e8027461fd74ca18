/**
 * URL and domain normalisation, the same everywhere in the engine (stored pages, lookups,
 * imports): lower-case scheme and host, no fragment, no default port, path at least `/`,
 * query kept. Registrable domains come from tldts (the Public Suffix List).
 */
import { parse } from 'tldts';

export interface ParsedTarget {
  /** Normalised absolute URL (scheme defaults to https when absent). */
  url: string;
  host: string;
  rootDomain: string;
  /** The public suffix (`com`, `co.uk`, `edu`, ...). */
  suffix: string;
  /** True when the input named only a host (no path beyond `/`, no query). */
  hostOnly: boolean;
  /** True when the input carried an explicit scheme. */
  explicitScheme: boolean;
}

/** Parses a URL, host or domain as users type them; null when it has no registrable domain. */
export function parseTarget(input: string): ParsedTarget | null {
  const trimmed = input.trim();
  if (trimmed === '') return null;
  const explicitScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed);
  let parsed: URL;
  try {
    parsed = new URL(explicitScheme ? trimmed : `https://${trimmed}`);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  const info = parse(host);
  if (!info.domain || !info.publicSuffix || info.isIp) return null;
  parsed.hash = '';
  const path = parsed.pathname || '/';
  const url = `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ''}${path}${parsed.search}`;
  return {
    url,
    host,
    rootDomain: info.domain,
    suffix: info.publicSuffix,
    hostOnly: path === '/' && parsed.search === '',
    explicitScheme,
  };
}

/** Normalised form of an absolute URL (see module comment); throws on non-URLs. */
export function normalizeUrl(input: string): string {
  const target = parseTarget(input);
  if (!target) throw new Error(`not a URL: ${input}`);
  return target.url;
}

/** The registrable domain of a host or URL, or null. */
export function rootDomainOf(input: string): string | null {
  return parseTarget(input)?.rootDomain ?? null;
}

/**
 * Education and government classes of a domain by its public suffix: 2 = exactly `.edu`
 * / `.gov`, 1 = another education/government suffix (`ac.uk`, `edu.au`, `gov.uk`,
 * `gouv.fr`, ...), 0 = neither. Feeds the EDU/GOV and `_Exact` counters.
 */
export function domainClasses(domain: string): { edu: number; gov: number } {
  const suffix = parse(domain).publicSuffix ?? '';
  const labels = suffix.split('.');
  const edu = suffix === 'edu' ? 2 : labels.includes('edu') || labels.includes('ac') ? 1 : 0;
  const gov = suffix === 'gov' ? 2 : labels.includes('gov') || labels.includes('gouv') ? 1 : 0;
  return { edu, gov };
}
