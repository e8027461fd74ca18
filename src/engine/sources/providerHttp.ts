/**
 * One HTTP exchange with a provider: a deadline per attempt, and retries with exponential
 * backoff when the provider says it is rate limiting (its own signal: an HTTP 429, or a
 * status code inside a 200 body for DataForSEO) or failed on its side (5xx, a dropped
 * connection, a timeout). A Retry-After header is honoured (capped). Other answers — a
 * wrong key, a bad request, an empty balance — are not retried: waiting does not fix them.
 *
 * Backoff: base · 2^attempt with full jitter ("Exponential Backoff And Jitter", Marc
 * Brooker, AWS Architecture Blog, 2015), which spreads the retries of many callers hit by
 * the same limit instead of having them come back together.
 */
import { SourceError } from './types.js';

export interface ProviderHttpOptions {
  /** Deadline of one attempt (ms). */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** First backoff step (ms). */
  backoffMs: number;
  /** Longest wait before a retry (ms), whatever the provider's Retry-After asks. */
  maxBackoffMs?: number;
  /** Waits between attempts; tests pass one that records the delay and returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Random numbers in [0, 1) for the jitter (tests pin it). */
  random?: () => number;
}

export interface ProviderRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** How a provider reads one answer: a result, a retryable refusal (rate limit, its own failure) or a final error. */
export type Verdict<T> = { ok: true; value: T } | { ok: false; retry: 'rate-limited' | 'failed' | false; message: string };

/** Largest provider answer read (bytes): a SERP of 100 results with features is well under this. */
const MAX_BODY_BYTES = 20 * 1024 * 1024;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date → milliseconds to wait, or undefined. */
function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Sends a request until the provider answers with something `read` accepts or refuses for
 * good, or the retries are spent; rejects with a SourceError naming the last reason.
 */
export async function exchange<T>(
  source: string,
  request: ProviderRequest,
  options: ProviderHttpOptions,
  read: (status: number, body: unknown, text: string) => Verdict<T>,
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let last: SourceError | undefined;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    let waitHint: number | undefined;
    let final = false;
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
      const text = await readCapped(response);
      let body: unknown = null;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        body = null;
      }
      const verdict = read(response.status, body, text);
      if (verdict.ok) return verdict.value;
      last = new SourceError(source, verdict.retry === 'rate-limited' ? 'rate-limited' : 'failed', `${source}: ${verdict.message}`);
      final = verdict.retry === false;
      waitHint = retryAfterMs(response.headers.get('retry-after'), Date.now());
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      last = timedOut
        ? new SourceError(source, 'timeout', `${source}: no answer within ${options.timeoutMs} ms`)
        : new SourceError(source, 'failed', `${source}: ${(err as Error).message}`);
    }
    if (final) throw last;
    if (attempt < options.retries) {
      const step = Math.min(maxBackoff, options.backoffMs * 2 ** attempt);
      const delay = Math.min(maxBackoff, Math.max(waitHint ?? 0, Math.floor(random() * step)));
      await sleep(delay);
    }
  }
  throw last ?? new SourceError(source, 'failed', `${source}: no answer`);
}

async function readCapped(response: Response): Promise<string> {
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_BODY_BYTES) throw new Error(`answer of ${length} bytes is larger than ${MAX_BODY_BYTES}`);
  const buffer = await response.arrayBuffer();
  if (buffer.byteLength > MAX_BODY_BYTES) throw new Error(`answer of ${buffer.byteLength} bytes is larger than ${MAX_BODY_BYTES}`);
  return new TextDecoder().decode(buffer);
}
