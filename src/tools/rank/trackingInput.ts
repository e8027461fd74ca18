/**
 * Input rules of the rank tool that a schema cannot express: a tracked domain names a real
 * host (no path), keywords are normalised and distinct, date filters are `YYYY-MM-DD` or
 * Unix seconds, a stats timeframe is a valid date range. Failures are 422 InvalidInput.
 */
import type { preValidationHookHandler } from 'fastify';
import { errors } from '../../lib/errors.js';
import { DAY } from '../../lib/clock.js';
import { normaliseKeyword } from '../../engine/search/text.js';
import { utcDay } from '../../store/rankTracking.js';
import { requireTargetUrl } from '../common/params.js';

/** The host a tracking follows, lower-case and without `www.`; its subdomains count too. */
export function requireTrackedDomain(raw: string): string {
  const target = requireTargetUrl(raw, 'domain');
  if (target.key !== target.host) throw errors.invalidParameter('domain');
  return target.host.replace(/^www\./, '');
}

/** Normalised, distinct keywords in the order given (`[{keyword}]` or strings); an empty one is invalid. */
export function requireKeywords(raw: readonly (string | { keyword: string })[], name = 'keywords'): string[] {
  const out = new Set<string>();
  for (const k of raw) {
    const kw = normaliseKeyword(typeof k === 'string' ? k : k.keyword);
    if (kw === '') throw errors.invalidParameter(name);
    out.add(kw);
  }
  return [...out];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A `YYYY-MM-DD` that exists in the calendar, as the ms of its midnight UTC; undefined otherwise. */
export function parseDay(value: string): number | undefined {
  const m = DATE.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return utcDay(ms) === value ? ms : undefined;
}

/**
 * A created-at filter bound in Unix seconds: a date (the start of the day for `from`, its
 * last second for `to`) or Unix seconds.
 */
export function parseDateFilter(value: string | undefined, name: 'from' | 'to'): number | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim();
  if (/^\d{1,12}$/.test(v)) return Number(v);
  const ms = parseDay(v);
  if (ms === undefined) throw errors.invalidParameter(name);
  return name === 'from' ? ms / 1000 : (ms + DAY) / 1000 - 1;
}

export const MAX_STATS_DAYS = 366;
export const DEFAULT_STATS_DAYS = 30;

/** A `YYYY-MM-DD` parameter, or 422 naming it. */
export function requireDay(value: string, name: string): string {
  if (parseDay(value.trim()) === undefined) throw errors.invalidParameter(name);
  return value.trim();
}

/** The stats timeframe: `days` up to today, or `from`/`to` dates (default: the last 30 days). */
export function statsTimeframe(body: { from?: string; to?: string; days?: number } | undefined, nowMs: number): { from: string; to: string } {
  const today = Date.parse(`${utcDay(nowMs)}T00:00:00Z`);
  if (body?.days !== undefined) {
    if (body.from !== undefined || body.to !== undefined) throw errors.invalidParameter('days');
    return { from: utcDay(today - (body.days - 1) * DAY), to: utcDay(today) };
  }
  const toMs = body?.to === undefined ? today : parseDay(body.to);
  if (toMs === undefined) throw errors.invalidParameter('to');
  const fromMs = body?.from === undefined ? toMs - (DEFAULT_STATS_DAYS - 1) * DAY : parseDay(body.from);
  if (fromMs === undefined || fromMs > toMs || (toMs - fromMs) / DAY >= MAX_STATS_DAYS) throw errors.invalidParameter('from');
  return { from: utcDay(fromMs), to: utcDay(toMs) };
}

/**
 * Reads the old body form of `keywords`, an array of strings, as the reference's
 * `[{keyword}]` before validation, so that clients of the previous release keep working.
 */
export const keywordStrings: preValidationHookHandler = (req, _reply, done) => {
  const body = req.body;
  if (typeof body === 'object' && body !== null && 'keywords' in body && Array.isArray(body.keywords)) {
    body.keywords = body.keywords.map((k: unknown) => (typeof k === 'string' ? { keyword: k } : k));
  }
  done();
};
