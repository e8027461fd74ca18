/**
 * What the chat-style answer providers share: how an HTTP status reads (429 a rate limit to
 * wait out, 5xx the provider's failure, both retried by providerHttp.ts; any other error is
 * final: a wrong key, a bad request, no credit), the error message of an OpenAI-style error
 * body, and a citation's domain from its URL.
 */
import { exchange, type ProviderHttpOptions, type Verdict } from '../../engine/sources/providerHttp.js';
import { record, text } from '../../engine/sources/fetchedSerp.js';
import { hostOf } from '../analysis.js';

/** The refusal of a non-200 answer, or null for a 200. */
export function statusVerdict(status: number, body: unknown): Verdict<never> | null {
  if (status === 200) return null;
  const error = record(record(body).error);
  const message = `HTTP ${status}${text(error.message) ? `: ${text(error.message)}` : ''}`;
  if (status === 429) return { ok: false, retry: 'rate-limited', message };
  if (status >= 500) return { ok: false, retry: 'failed', message };
  return { ok: false, retry: false, message };
}

export const citationDomain = (url: string): string | null => hostOf(url);

/** A domain-like text ("nike.com", "en.wikipedia.org"), lower case, or null. */
export function domainLike(value: string | null): string | null {
  if (value === null) return null;
  const v = value
    .trim()
    .toLowerCase()
    .replace(/^www\./, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(v) ? v : null;
}

/** One JSON POST to a provider through the shared exchange (deadline, retries, 429 retried). */
export function postJson<T>(
  provider: string,
  url: string,
  auth: Record<string, string>,
  body: unknown,
  http: ProviderHttpOptions,
  read: (status: number, body: unknown) => Verdict<T>,
): Promise<T> {
  return exchange(
    provider,
    { url, method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
    http,
    read,
  );
}
