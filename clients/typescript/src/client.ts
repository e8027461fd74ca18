/**
 * The Quarry client: openapi-fetch over the generated types, with the contract's client
 * rules applied to every request:
 *
 * - a 429 with `Content-Type: text/html` is the gateway's per-address limit: wait and retry;
 * - a `RateLimit` waits `retry_after` seconds and resends the same request once;
 * - a `CreditLimit` throws `CreditLimitError` (with the pool) and is never retried;
 * - any other error answer throws `QuarryError` with `type`, `message` and `status`;
 * - optional pacing keeps at most 3 requests per window per pool, so `RateLimit` is not met.
 *
 * On top, the helpers a user would otherwise write: every backlink page, an export waited
 * for and streamed, a tracking waited for until its first positions, the limits.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/api.js';
import { operations } from './generated/operations.js';
import { errorOf, QuarryError } from './errors.js';
import { Pacer, type PacingOptions } from './pacing.js';

export type { paths } from './generated/api.js';

export interface WaitEvent {
  reason: 'Gateway' | 'RateLimit' | 'Pacing';
  /** How long the client waits, in milliseconds. */
  ms: number;
  pool: string | null;
  url: string;
}

export interface QuarryClientOptions {
  /** The API's base URL, with `/v3`. Default `http://127.0.0.1:8080/v3`. */
  baseUrl?: string;
  /** The account's API key, sent in `x-access-token`. */
  apiKey?: string;
  /** Keep inside the burst limit on the client side: true for 3 requests per 30 s per pool, or other numbers. */
  pacing?: boolean | PacingOptions;
  /** How many times a gateway refusal (HTML 429) is retried (default 3), waiting `gatewayWaitMs` × attempt. */
  gatewayRetries?: number;
  /** Default 1000: the gateway's window is one second. */
  gatewayWaitMs?: number;
  /** Told before every wait (rules and pacing). */
  onWait?: (event: WaitEvent) => void;
  fetch?: (request: Request) => Promise<Response>;
  /** For tests and schedulers: how the client waits and reads the time. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The body of a successful JSON answer, loosely typed where the helpers read it. */
type Json = Record<string, unknown>;

export type ExportRequest = NonNullable<paths['/link-tool/exports']['post']['requestBody']>['content']['application/json'];
export type TrackingRequest = NonNullable<paths['/rank-tool/trackings']['post']['requestBody']>['content']['application/json'];
export type BacklinksQuery = NonNullable<paths['/link-tool/links']['get']['parameters']['query']>;

export interface WaitOptions {
  /** Between two polls, in milliseconds (default 2000). */
  pollMs?: number;
  /** Give up after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

export interface QuarryClient extends Client<paths> {
  /** The account's plan and what is left in every quota pool (free). */
  limits(): Promise<Json>;
  /** Every backlink of a target, page after page (each page is charged per link returned). */
  backlinks(query: BacklinksQuery): AsyncGenerator<Json>;
  /**
   * Asks for the url's export suggestion, creates a backlink export, waits for it (`onProgress` with each state seen) and returns
   * it with its CSV as a stream.
   */
  exportBacklinks(
    request: ExportRequest,
    options?: WaitOptions & { onProgress?: (exportJob: Json) => void },
  ): Promise<{ export: Json; csv: ReadableStream<Uint8Array> }>;
  /** Creates a rank tracking and waits until each of its keywords has a first position check. */
  trackAndWait(
    request: TrackingRequest,
    options?: WaitOptions & { onProgress?: (checked: number, total: number) => void },
  ): Promise<{ tracking: Json; keywords: Json[] }>;
}

export function createQuarryClient(options: QuarryClientOptions = {}): QuarryClient {
  const baseUrl = (options.baseUrl ?? 'http://127.0.0.1:8080/v3').replace(/\/+$/, '');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const gatewayRetries = options.gatewayRetries ?? 3;
  const gatewayWaitMs = options.gatewayWaitMs ?? 1000;
  const pacer = options.pacing ? new Pacer(options.pacing === true ? {} : options.pacing, now) : null;
  const poolOf = new WeakMap<Request, string | null>();

  const wait = async (reason: WaitEvent['reason'], ms: number, pool: string | null, url: string) => {
    options.onWait?.({ reason, ms, pool, url });
    await sleep(ms);
  };

  /** One request under the client rules; throws for every error answer. */
  async function send(request: Request, pool: string | null): Promise<Response> {
    let gatewayAttempts = 0;
    let resent = false;
    for (;;) {
      if (pacer && pool) for (let ms = pacer.delay(pool); ms > 0; ms = pacer.delay(pool)) await wait('Pacing', ms, pool, request.url);
      const end = pacer && pool ? pacer.begin(pool) : null;
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (err) {
        end?.(false);
        throw err;
      }
      // Neither cache hits nor refusals take a burst slot on the server.
      end?.(response.headers.get('x-cache') !== 'HIT' && response.status !== 429);
      if (response.ok) return response;
      if (response.status === 429 && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
        if (gatewayAttempts < gatewayRetries) {
          gatewayAttempts++;
          await response.body?.cancel();
          await wait('Gateway', gatewayWaitMs * gatewayAttempts, pool, request.url);
          continue;
        }
      }
      const error = await errorOf(response, pool);
      if (error.type === 'RateLimit' && !resent && typeof error.body?.retry_after === 'number') {
        resent = true;
        await wait('RateLimit', error.body.retry_after * 1000, pool, request.url);
        continue;
      }
      throw error;
    }
  }

  const client = createClient<paths>({
    baseUrl,
    headers: options.apiKey ? { 'x-access-token': options.apiKey } : {},
    fetch: (request) => send(request, poolOf.get(request) ?? null),
  });
  // Tags each request with its operation's pool, which the pacing and CreditLimitError need.
  client.use({
    onRequest({ request, schemaPath }) {
      poolOf.set(request, operations[`${request.method.toLowerCase()} ${schemaPath}`]?.pool ?? null);
      return request;
    },
  });

  const data = async (promise: Promise<{ data?: unknown }>): Promise<Json> => ((await promise).data ?? {}) as Json;

  async function until<T>(options: WaitOptions, check: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = now() + (options.timeoutMs ?? 600_000);
    for (;;) {
      const done = await check();
      if (done !== undefined) return done;
      if (now() > deadline) throw new QuarryError(0, 'Timeout', `${what} did not finish within ${options.timeoutMs ?? 600_000} ms`);
      await sleep(options.pollMs ?? 2000);
    }
  }

  return Object.assign(client, {
    limits: () => data(client.GET('/keyword-tool/limits')),

    async *backlinks(query: BacklinksQuery): AsyncGenerator<Json> {
      for (let page = Number(query.page ?? 0); ; page++) {
        const answer = await data(client.GET('/link-tool/links', { params: { query: { ...query, page } as BacklinksQuery } }));
        const links = (Array.isArray(answer.links) ? answer.links : []) as Json[];
        yield* links;
        const available = (answer.meta as { available_links?: number } | undefined)?.available_links;
        // A short or empty page is the last; so is the one that reaches what the index holds.
        if (links.length === 0 || links.length < 500 || (typeof available === 'number' && (page + 1) * 500 >= available)) return;
      }
    },

    async exportBacklinks(request: ExportRequest, opts: WaitOptions & { onProgress?: (exportJob: Json) => void } = {}) {
      // An export needs a suggestion for its url from the last 24 hours (free).
      await client.POST('/link-tool/exports/suggest', { body: { url: request.url } });
      const created = await data(client.POST('/link-tool/exports', { body: request }));
      const id = created._id;
      opts.onProgress?.(created);
      const finished = await until(
        opts,
        async () => {
          const list = (await data(client.GET('/link-tool/exports'))) as unknown;
          const job = (Array.isArray(list) ? list : []).find((e: Json) => e._id === id) as Json | undefined;
          if (!job) throw new QuarryError(404, 'Error', `export ${String(id)} is not in the list of exports`);
          opts.onProgress?.(job);
          if (typeof job.error === 'string' && job.error !== '') throw new QuarryError(0, 'ExportFailed', job.error);
          return typeof job.downloadURL === 'string' ? job : undefined;
        },
        `export ${String(id)}`,
      );
      // The signed URL is the authorisation: no key, but the gateway's limit still applies.
      const response = await send(new Request(finished.downloadURL as string), null);
      return { export: finished, csv: response.body! };
    },

    async trackAndWait(request: TrackingRequest, opts: WaitOptions & { onProgress?: (checked: number, total: number) => void } = {}) {
      const created = await data(client.POST('/rank-tool/trackings', { body: request }));
      const tracking = (created.tracking ?? created) as Json;
      const trackingId = String(tracking._id);
      const keywords = await until(
        opts,
        async () => {
          const rows = rowsOf(await client.GET('/rank-tool/trackings/{tracking_id}/tracked-keywords', { params: { path: { tracking_id: trackingId } } }));
          const checked = rows.filter(isChecked);
          opts.onProgress?.(checked.length, rows.length);
          return rows.length > 0 && checked.length === rows.length ? rows : undefined;
        },
        `tracking ${trackingId}`,
      );
      return { tracking, keywords };
    },
  });
}

/** The keyword rows of a tracked-keywords answer (a list, or an object holding one). */
function rowsOf(answer: { data?: unknown }): Json[] {
  const body = answer.data as unknown;
  if (Array.isArray(body)) return body as Json[];
  const list = body && typeof body === 'object' ? Object.values(body).find((v) => Array.isArray(v)) : undefined;
  return (list ?? []) as Json[];
}

/** Whether a tracked keyword has had its first position check. */
function isChecked(row: Json): boolean {
  const at = row.checked_at ?? row.last_checked_at ?? row.lastCheckedAt;
  return at !== undefined && at !== null && at !== 0 && at !== '';
}
