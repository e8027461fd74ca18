/**
 * The errors the client throws: every answer that is not a success becomes one, typed by
 * the contract's error `type` (and a gateway refusal, which has none).
 */

/** The contract's error object, as the API sends it. */
export interface ErrorBody {
  type: string;
  message: string;
  errors?: string[];
  retry_after?: number;
}

/** An error answer: `type` and `message` from the contract's error object, and the HTTP status. */
export class QuarryError extends Error {
  override readonly name: string = 'QuarryError';
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** The whole error object (with `errors` for a body that failed validation). */
    readonly body: ErrorBody | null = null,
  ) {
    super(message);
  }
}

/** 429 `RateLimit` still refused after waiting `retry_after` and resending once. */
export class RateLimitError extends QuarryError {
  override readonly name = 'RateLimitError';
  constructor(
    message: string,
    readonly retryAfter: number,
    body: ErrorBody,
  ) {
    super(429, 'RateLimit', message, body);
  }
}

/** 429 `CreditLimit`: the quota pool is spent. Never retried; see `limits()` for when it resets. */
export class CreditLimitError extends QuarryError {
  override readonly name = 'CreditLimitError';
  constructor(
    message: string,
    /** The pool the operation draws from (null if the operation is not in the generated table). */
    readonly pool: string | null,
    body: ErrorBody,
  ) {
    super(429, 'CreditLimit', message, body);
  }
}

/** The gateway's per-address limit (an HTML 429), still refused after the client's retries. */
export class GatewayRateLimitError extends QuarryError {
  override readonly name = 'GatewayRateLimitError';
  constructor(message: string) {
    super(429, 'GatewayRateLimit', message);
  }
}

/** Reads an error answer into the matching error. */
export async function errorOf(response: Response, pool: string | null): Promise<QuarryError> {
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status === 429 && contentType.startsWith('text/html')) {
    return new GatewayRateLimitError('Too many requests from this address (the gateway limit)');
  }
  let body: ErrorBody | null = null;
  if (contentType.includes('json')) {
    const parsed = (await response.json().catch(() => null)) as { error?: ErrorBody } | null;
    if (parsed?.error && typeof parsed.error.type === 'string') body = parsed.error;
  }
  if (!body) return new QuarryError(response.status, 'Error', `HTTP ${response.status} ${response.statusText}`.trim());
  if (body.type === 'RateLimit') return new RateLimitError(body.message, body.retry_after ?? 0, body);
  if (body.type === 'CreditLimit') return new CreditLimitError(body.message, pool, body);
  return new QuarryError(response.status, body.type, body.message, body);
}
