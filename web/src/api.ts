/**
 * The dashboard's way to the API: the typed SDK (@quarry/client) against this server's /v3,
 * authenticated by the session cookie (the browser sends it; script cannot read it). Writes
 * carry the session's anti-CSRF token. The API key is sent once, to /app/session, and kept
 * nowhere in the browser.
 */
import { createQuarryClient, CreditLimitError, GatewayRateLimitError, QuarryError, RateLimitError, type WaitEvent } from '@quarry/client';

export interface SessionInfo {
  account: { id: string; email: string; plan: string };
  csrf_token: string;
  expires_at: number;
}

let csrfToken = '';

export function setCsrf(token: string): void {
  csrfToken = token;
}

/** Listeners told when the client waits (a RateLimit's retry_after, the gateway's second). */
const waitListeners = new Set<(e: WaitEvent | null) => void>();
export function onWait(listener: (e: WaitEvent | null) => void): () => void {
  waitListeners.add(listener);
  return () => waitListeners.delete(listener);
}

/**
 * A session's traffic is limited per session (QUARRY_SESSION_RPS, 10 a second by default),
 * not by the per-IP gateway, and the web class admits 3 calls per pool in a second. The
 * dashboard keeps its own API calls to 3 in any second, so that a screen that asks for several
 * things at once is paced here instead of being refused there (and retried). The times of the
 * last second's calls outlive a page load (sessionStorage): a reload, or a link opened in the
 * same tab, right after a screen's calls would otherwise start counting from zero and meet the
 * limit.
 */
const GATEWAY_SHARE = 3;
const SENT_KEY = 'quarry.sent';
function loadSent(): number[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(SENT_KEY) ?? '[]');
    return Array.isArray(stored) ? stored.filter((t): t is number => typeof t === 'number') : [];
  } catch {
    return [];
  }
}
const sent: number[] = loadSent();
async function paced<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    const now = Date.now();
    while (sent.length > 0 && sent[0] <= now - 1000) sent.shift();
    if (sent.length < GATEWAY_SHARE) break;
    await new Promise((resolve) => setTimeout(resolve, sent[0] + 1000 - now + 5));
  }
  sent.push(Date.now());
  try {
    sessionStorage.setItem(SENT_KEY, JSON.stringify(sent));
  } catch {
    // Storage refused (private mode, quota): pacing still holds within this page.
  }
  return send();
}

export const api = createQuarryClient({
  baseUrl: `${location.origin}/v3`,
  fetch: (request) => paced(() => fetch(request, { credentials: 'same-origin' })),
  onWait: (event) => {
    waitListeners.forEach((l) => l(event));
    setTimeout(() => waitListeners.forEach((l) => l(null)), event.ms);
  },
});

api.use({
  onRequest({ request }) {
    // Every request, reads too: a paid GET spends the account's quota (webSession.ts on the server).
    request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

/** Unwraps an SDK answer: the SDK throws for error answers, so a missing body is an empty answer. */
export async function data<T = unknown>(promise: Promise<{ data?: unknown }>): Promise<T> {
  return (await promise).data as T;
}

async function sessionCall(method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<Response> {
  return paced(() =>
    fetch('/app/session', {
      method,
      credentials: 'same-origin',
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(method === 'DELETE' ? { 'x-csrf-token': csrfToken } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
}

export async function currentSession(): Promise<SessionInfo | null> {
  const res = await sessionCall('GET');
  if (!res.ok) return null;
  const info = (await res.json()) as SessionInfo;
  setCsrf(info.csrf_token);
  return info;
}

export async function signIn(key: string): Promise<SessionInfo> {
  const res = await sessionCall('POST', { key });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(res.status === 401 ? 'That API key is not valid.' : (body?.error?.message ?? `Sign-in failed (HTTP ${res.status})`));
  }
  const info = (await res.json()) as SessionInfo;
  setCsrf(info.csrf_token);
  return info;
}

export async function signOut(): Promise<void> {
  await sessionCall('DELETE');
  setCsrf('');
}

/** What went wrong, in the terms the screens show. */
export interface Problem {
  kind: 'RateLimit' | 'CreditLimit' | 'Gateway' | 'Auth' | 'NotFound' | 'Invalid' | 'Error';
  message: string;
  /** Seconds to wait, for a RateLimit. */
  retryAfter?: number;
  pool?: string | null;
}

export function problemOf(err: unknown): Problem {
  if (err instanceof RateLimitError) return { kind: 'RateLimit', message: err.message, retryAfter: err.retryAfter };
  if (err instanceof CreditLimitError) return { kind: 'CreditLimit', message: err.message, pool: err.pool };
  if (err instanceof GatewayRateLimitError) return { kind: 'Gateway', message: 'Too many requests from this address; wait a second and retry.' };
  if (err instanceof QuarryError) {
    if (err.status === 401) return { kind: 'Auth', message: 'Your session has ended. Sign in again.' };
    if (err.status === 404) return { kind: 'NotFound', message: err.message };
    if (err.status === 422) return { kind: 'Invalid', message: [err.message, ...(err.body?.errors ?? [])].join(': ') };
    return { kind: 'Error', message: err.message };
  }
  return { kind: 'Error', message: err instanceof Error ? err.message : String(err) };
}

/** Saves a file the API answers (a CSV) under a name, through a temporary object URL. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * GET of one of the dashboard's own JSON routes under /app/api (not part of the public API,
 * so not in the SDK): paced like every call, with the session cookie, its errors turned into
 * the SDK's error classes so that the screens show them like any other.
 */
export async function dashboardGet<T>(path: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await paced(() => fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json', 'x-csrf-token': csrfToken } }));
    if (res.ok) return (await res.json()) as T;
    const html = (res.headers.get('content-type') ?? '').startsWith('text/html');
    // The gateway's refusal: wait a second and ask again, as the contract tells clients.
    if (res.status === 429 && html && attempt < 3) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
      continue;
    }
    if (res.status === 429 && html) throw new GatewayRateLimitError('Too many requests from this address (the gateway limit)');
    const body = (await res.json().catch(() => null)) as { error?: { type?: string; message?: string } } | null;
    throw new QuarryError(res.status, body?.error?.type ?? 'Error', body?.error?.message ?? `HTTP ${res.status}`);
  }
}
