/**
 * @quarry/client — the typed TypeScript client of Quarry's Research API v3.
 *
 * @example
 * import { createQuarryClient } from '@quarry/client';
 * const quarry = createQuarryClient({ baseUrl: 'http://127.0.0.1:8080/v3', apiKey: process.env.QUARRY_API_KEY, pacing: true });
 * const { data } = await quarry.GET('/keyword-tool/related-keywords', { params: { query: { kw: 'running shoes', location_id: 2840 } } });
 */
export { createQuarryClient, type QuarryClient, type QuarryClientOptions, type WaitEvent, type WaitOptions, type paths } from './client.js';
export type { BacklinksQuery, ExportRequest, TrackingRequest } from './client.js';
export { CreditLimitError, GatewayRateLimitError, QuarryError, RateLimitError, type ErrorBody } from './errors.js';
export { Pacer, type PacingOptions } from './pacing.js';
export { operations } from './generated/operations.js';
export type { components, operations as operationTypes } from './generated/api.js';
