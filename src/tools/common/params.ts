/**
 * Parameter checks that a schema cannot express: a location id must exist, a language id
 * must be known, a URL must name a real host. Each failure is the contract's 422
 * `Parameter <name> is invalid`.
 */
import { parse as parseDomain } from 'tldts';
import { errors } from '../../lib/errors.js';
import { languageById } from '../../locations/languages.js';
import type { Location, LocationRegistry } from '../../locations/registry.js';

export function requireLocation(locations: LocationRegistry, id: number, name = 'location_id'): Location {
  const loc = locations.get(id);
  if (!loc) throw errors.invalidParameter(name);
  return loc;
}

export function requireLanguage(id: number, name = 'language_id'): number {
  if (!languageById(id)) throw errors.invalidParameter(name);
  return id;
}

export interface TargetUrl {
  /** The URL as given, trimmed. */
  input: string;
  /** Host name, lower-cased, without a trailing dot. */
  host: string;
  /** Registrable (root) domain. */
  domain: string;
  /** A canonical key of the target: host plus path, lower-case host, no scheme, no trailing slash. */
  key: string;
}

/** A URL, domain or subdomain as the tools accept it; throws 422 when it names no real host. */
export function requireTargetUrl(raw: string, name = 'url'): TargetUrl {
  const input = raw.trim();
  // Whitespace and control characters (a NUL, say) never belong in a URL or domain.
  if (input === '' || input.length > 2048 || /[\s\u0000-\u001f\u007f]/.test(input)) throw errors.invalidParameter(name);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`);
  } catch {
    throw errors.invalidParameter(name);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.invalidParameter(name);
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const parsed = parseDomain(host);
  if (!parsed.domain || parsed.isIp || !parsed.publicSuffix) throw errors.invalidParameter(name);
  const path = url.pathname.replace(/\/+$/, '');
  return { input, host, domain: parsed.domain, key: `${host}${path}${url.search}` };
}
