/**
 * Every JSON error has the contract's form `{ error: { type, message, retry_after? } }`.
 * Handlers and the layers below them throw ApiError; the HTTP edge's error handler
 * (http/app.ts) renders it. It lives here, below the edge, so that the policy, the stores
 * and the jobs can refuse a request without importing anything of HTTP.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): { error: Record<string, unknown> } {
    return { error: { type: this.type, message: this.message, ...this.extra } };
  }
}

export const errors = {
  auth: () => new ApiError(401, 'AuthError', 'Invalid API Key'),
  invalidParameter: (name: string) => new ApiError(422, 'InvalidInput', `Parameter ${name} is invalid`),
  invalidBody: (messages: string[]) => new ApiError(422, 'ValidationError', 'Your request is invalid', { errors: messages }),
  notFound: (message = 'Not found') => new ApiError(404, 'Error', message),
  rateLimit: (retryAfter: number, message = 'Too many requests, retry later') =>
    new ApiError(429, 'RateLimit', message, { retry_after: retryAfter }, { 'retry-after': String(retryAfter) }),
  creditLimit: (pool: string, message = `The ${pool} quota of your plan is spent; see GET /keyword-tool/limits for when it resets`) =>
    new ApiError(429, 'CreditLimit', message),
  // The reference's notes: type RateLimit, but no retry_after (waiting does not clear it; an overview does).
  notInHistory: () => new ApiError(429, 'RateLimit', 'Not in history'),
  noResult: () => new ApiError(422, 'Error', 'No result'),
  outOfLimit: (message: string) => new ApiError(422, 'OutOfLimitException', message),
  listLimit: (message: string) => new ApiError(422, 'Error', message),
  badRequest: (message: string) => new ApiError(400, 'BadRequest', message),
  conflict: (message: string) => new ApiError(409, 'Conflict', message),
  /** A SERP or keyword provider failed, timed out, kept rate limiting or is out of budget (engine/sources). */
  upstream: (err: { source: string; reason: string; message: string }) =>
    new ApiError(424, 'UpstreamError', `The ${err.source} data source failed (${err.reason}); nothing was charged: ${err.message}`),
  payloadTooLarge: () => new ApiError(413, 'PayloadTooLarge', 'The request body is too large'),
  /** The state store stayed locked by another process past the busy timeout; nothing was done or charged. */
  busy: () =>
    new ApiError(
      503,
      'ServiceUnavailable',
      'The service is busy writing; nothing was done or charged, retry in a second',
      { retry_after: 1 },
      { 'retry-after': '1' },
    ),
};
