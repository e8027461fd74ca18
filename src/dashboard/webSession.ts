/**
 * The HTTP side of dashboard sessions: the cookie, and the checks that keep another site from
 * writing through a signed-in browser. Two independent guards on every write: the session's
 * anti-CSRF token in a header (another site cannot read it: no CORS, and the cookie is
 * SameSite=Strict anyway), and the browser's own Origin / Sec-Fetch-Site headers.
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

export const csrfRefused = () => new ApiError(403, 'Forbidden', 'Cross-site request refused: a write through a dashboard session needs its x-csrf-token');

/** Refuses a write through a session that lacks the session's anti-CSRF token or comes from another site. */
export function checkSessionWrite(req: FastifyRequest, session: LiveSession, publicUrl: string): ApiError | undefined {
  if (!isWrite(req)) return undefined;
  if (isCrossSite(req, publicUrl) || !csrfMatches(session, req.headers[CSRF_HEADER])) return csrfRefused();
  return undefined;
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
