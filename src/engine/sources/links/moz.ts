/**
 * Moz Links API v2 (https://moz.com/help/links-api): `POST /v2/url_metrics` with
 * `{ "targets": [ …up to 50 URLs or domains… ] }`, answering `{ "results": [ … ] }`, one
 * result per target in the targets' order, each with `page_authority`, `domain_authority`,
 * `spam_score` and Moz's link counts. Authentication is HTTP Basic: the token Moz issues is
 * the base64 of `access_id:secret`, sent as `Authorization: Basic <token>`.
 *
 * Moz bills rows: one per target of a url_metrics call. Errors answer with an HTTP status
 * and a JSON `{ "name", "message" }`: 429 (the plan's rate limit) and 5xx are retried with
 * backoff, any other (401 a wrong token, 400 a bad request, 402/403 no rows left) is final.
 */
import { exchange, type ProviderHttpOptions, type Verdict } from '../providerHttp.js';
import { list, record, text } from '../fetchedSerp.js';
import type { AuthorityFigures, Bought } from './linkTypes.js';

export interface MozOptions {
  /** base64 of `access_id:secret`, as Moz issues it. */
  token: string;
  /** Default https://lsapi.seomoz.com */
  baseUrl: string;
  http: ProviderHttpOptions;
  /** Dollars one row (one target) costs against the daily budget. */
  costPerRow: number;
}

/** Targets one url_metrics call takes (Moz's limit). */
export const MOZ_TARGETS_PER_CALL = 50;

export function readMoz(status: number, body: unknown): Verdict<unknown[]> {
  const b = record(body);
  const message = [text(b.name), text(b.message) ?? text(b.error_message) ?? text(b.error)].filter((x) => x !== null).join(': ') || `HTTP ${status}`;
  if (status === 429) return { ok: false, retry: 'rate-limited', message };
  if (status >= 500) return { ok: false, retry: 'failed', message };
  if (status !== 200) return { ok: false, retry: false, message };
  if (!Array.isArray(b.results)) return { ok: false, retry: 'failed', message: 'the answer is not Moz url_metrics JSON' };
  return { ok: true, value: list(b.results) };
}

const score = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/** One url_metrics result as authority figures: pda ← domain_authority, upa ← page_authority, spam ← spam_score. */
export function authorityOf(result: unknown): AuthorityFigures {
  const r = record(result);
  return { pda: score(r.domain_authority), upa: score(r.page_authority), spam: score(r.spam_score) };
}

export class MozClient {
  readonly name = 'moz' as const;
  readonly targetsPerCall = MOZ_TARGETS_PER_CALL;

  constructor(private readonly options: MozOptions) {}

  /** Authority of up to 50 targets, in their order (null where Moz answered no result). */
  async authority(targets: readonly string[]): Promise<Bought<(AuthorityFigures | null)[]>> {
    if (targets.length > MOZ_TARGETS_PER_CALL) throw new Error(`url_metrics takes at most ${MOZ_TARGETS_PER_CALL} targets`);
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/v2/url_metrics`;
    const results = await exchange(
      'moz',
      {
        url,
        method: 'POST',
        headers: { authorization: `Basic ${this.options.token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ targets }),
      },
      this.options.http,
      readMoz,
    );
    return { value: targets.map((_, i) => (i < results.length ? authorityOf(results[i]) : null)), cost: targets.length * this.options.costPerRow };
  }
}
