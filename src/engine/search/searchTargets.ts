/**
 * What a research target names: a root domain, a subdomain or a URL, and the lookup key
 * the rank index and the pages are matched by.
 *
 * @example
 * classifyTarget('https://www.example.com/shoes/'); // { type: 'url', host: 'example.com', domain: 'example.com', key: 'example.com/shoes' }
 */
import { parse as parseDomain } from 'tldts';

export type UrlType = 'domain' | 'subdomain' | 'url';

/** Lookup key of a URL: host and path without scheme, `www.` or trailing slash. */
export function urlKey(url: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  try {
    const u = new URL(withScheme);
    const host = u.hostname.toLowerCase().replace(/^www\./, '');
    const path = u.pathname.replace(/\/+$/, '');
    return `${host}${path}${u.search}`;
  } catch {
    return url.toLowerCase();
  }
}

/**
 * Whether a target is a root domain, a subdomain or a URL (a path beyond `/`), with its
 * host and registrable domain (tldts). `www.` counts as the root domain.
 */
export function classifyTarget(url: string): { type: UrlType; host: string; domain: string | null; key: string } {
  const key = urlKey(url);
  const slash = key.indexOf('/');
  const host = slash === -1 ? key.split('?')[0] : key.slice(0, slash);
  const parsed = parseDomain(host);
  const domain = parsed.domain;
  const hasPath = slash !== -1 && key.length > slash + 1;
  const type: UrlType = hasPath ? 'url' : domain !== null && host !== domain ? 'subdomain' : 'domain';
  return { type, host, domain, key };
}
