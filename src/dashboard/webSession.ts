/**
 * The HTTP side of dashboard sessions: the cookie, and the checks that keep another site — or
 * a page of the same site on another port, which SameSite=Strict does not tell apart — from
 * using a signed-in browser. Every request through a session carries the session's anti-CSRF
 * token in a header (another origin cannot read it: no CORS), or for a read the browser's own
 * `Sec-Fetch-Site: same-origin` (the dashboard's images and downloads, which cannot set a
 * header); a write needs the token and must not come from another site (Origin /
 * Sec-Fetch-Site). Reads are guarded too: a paid GET spends the account's quota.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LiveSession } from '../sessions/sessionStore.js';
import { csrfMatches } from '../sessions/webSessions.js';
import { ApiError } from '../http/errors.js';
import { parse as parseCookies } from 'cookie';

export const SESSION_COOKIE = 'quarry_session';
export const CSRF_HEADER = 'x-csrf-token';

/** The session token a request's Cookie header carries, if any. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length === 0 || header.length > 8192) return undefined;
  try {
    return parseCookies(header)[SESSION_COOKIE];
  } catch {
    return undefined;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const isWrite = (req: FastifyRequest): boolean => !SAFE_METHODS.has(req.method);

/**
 * Whether the browser says the request comes from another site. Browsers send Origin on every
 * cross-origin request and on same-origin writes, and Sec-Fetch-Site on every request; a
 * request with neither (curl, tests) is not a browser's cross-site request.
 */
export function isCrossSite(req: FastifyRequest, publicUrl: string): boolean {
  const fetchSite = req.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (typeof origin !== 'string') return true;
  const own = new Set([`${req.protocol}://${req.host}`, new URL(publicUrl).origin]);
  return !own.has(origin);
}

export const csrfRefused = () => new ApiError(403, 'Forbidden', 'Cross-site request refused: a request through a dashboard session needs its x-csrf-token');

/**
 * Refuses a request through a session without the session's anti-CSRF token: a write also
 * when it comes from another site; a read unless the browser says it is same-origin.
 */
export function checkSessionRequest(req: FastifyRequest, session: LiveSession, publicUrl: string): ApiError | undefined {
  const token = csrfMatches(session, req.headers[CSRF_HEADER]);
  if (isWrite(req)) return isCrossSite(req, publicUrl) || !token ? csrfRefused() : undefined;
  return token || req.headers['sec-fetch-site'] === 'same-origin' ? undefined : csrfRefused();
}

/** Whether cookies must be marked Secure: the request came over https (directly or through the trusted proxy). */
export function secureCookies(req: FastifyRequest, publicUrl: string): boolean {
  return req.protocol === 'https' || publicUrl.startsWith('https:');
}

export function setSessionCookie(reply: FastifyReply, token: string, maxAgeSeconds: number, secure: boolean): void {
  reply.header('set-cookie', cookieLine(token, maxAgeSeconds, secure));
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header('set-cookie', cookieLine('', 0, secure));
}

function cookieLine(value: string, maxAge: number, secure: boolean): string {
  // Path=/: the dashboard calls the API under /v3 with the same cookie.
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
