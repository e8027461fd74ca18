/**
 * Monthly search-volume history of a sandbox keyword, derived (not stored) from its
 * parameters, so that every (keyword, location) has a history from 2015-01 without
 * storing millions of rows. Imported keywords store their months in `keyword_history`
 * and those win over this derivation.
 *
 * Model (multiplicative decomposition, as in classical seasonal decomposition —
 * Hyndman & Athanasopoulos, "Forecasting: Principles and Practice", §3.2):
 *   searches(t) = level · trend^(t / 12) · (1 + amplitude · cos(2π (month − peak) / 12)) · noise(t)
 * with noise(t) = 1 + 0.08 · ε(t) (ε a deterministic hash-normal per keyword and month),
 * scaled so that the mean of the last 12 months equals `volume · share`.
 */
import { HASH32_START, hash32Extend } from './random.js';

export const HISTORY_START_YEAR = 2015;

export interface HistoryParams {
  /** Average monthly searches of the last 12 months (global volume × market share). */
  volume: number;
  trend: number;
  seasonPeak: number;
  seasonAmplitude: number;
  noiseSeed: number;
}

/** `[year, month, searches]`, oldest first (the API's `msv`). */
export type MonthlySearches = [number, number, number];

/** The last complete month before `asOfMs` as { year, month (1–12) }. */
export function lastCompleteMonth(asOfMs: number): { year: number; month: number } {
  const d = new Date(asOfMs);
  let year = d.getUTCFullYear();
  let month = d.getUTCMonth(); // 0-based current month == 1-based previous month
  if (month === 0) {
    year -= 1;
    month = 12;
  }
  return { year, month };
}

/**
 * A deterministic hash-normal for (seed, month t): the sum of three uniforms minus their
 * mean approximates a normal (Irwin–Hall), cheap and stable. The uniforms are the hashes of
 * `${seed}:${t}:a`, `…:b` and `…:c`, computed from the state after `${seed}:` (`seedState`)
 * so that a history of ~140 months builds no strings but the month's digits.
 */
function hashNormal(seedState: number, t: number): number {
  const month = hash32Extend(seedState, `${t}:`);
  const a = hash32Extend(month, 'a') / 4294967296;
  const b = hash32Extend(month, 'b') / 4294967296;
  const c = hash32Extend(month, 'c') / 4294967296;
  return (a + b + c - 1.5) * 2;
}

/**
 * Monthly history from 2015-01 through the last complete month before `asOfMs`; with
 * `lastMonths`, only that many final months (at least 12), the same values: the scale
 * depends on the last 12 months alone.
 */
export function keywordHistory(params: HistoryParams, asOfMs: number, lastMonths = Infinity): MonthlySearches[] {
  const end = lastCompleteMonth(asOfMs);
  const count = (end.year - HISTORY_START_YEAR) * 12 + end.month;
  const first = Math.max(0, count - Math.max(12, lastMonths));
  const raw = new Float64Array(count);
  const seedState = hash32Extend(HASH32_START, `${params.noiseSeed}:`);
  for (let t = first; t < count; t++) {
    const month = (t % 12) + 1;
    const fromEnd = (count - 1 - t) / 12;
    const season = 1 + params.seasonAmplitude * Math.cos((2 * Math.PI * (month - params.seasonPeak)) / 12);
    const noise = 1 + 0.08 * hashNormal(seedState, t);
    raw[t] = Math.pow(params.trend, -fromEnd) * season * Math.max(0.2, noise);
  }
  let lastYear = 0;
  for (let t = Math.max(0, count - 12); t < count; t++) lastYear += raw[t];
  lastYear /= Math.min(12, count);
  const scale = lastYear > 0 ? params.volume / lastYear : 0;
  const out: MonthlySearches[] = [];
  for (let t = first; t < count; t++) {
    out.push([HISTORY_START_YEAR + Math.floor(t / 12), (t % 12) + 1, Math.round(raw[t] * scale)]);
  }
  return out;
}

/** `sv`: mean of the last 12 months of a history, rounded. */
export function averageOfLastYear(history: readonly MonthlySearches[]): number {
  const last = history.slice(-12);
  if (last.length === 0) return 0;
  return Math.round(last.reduce((sum, [, , s]) => sum + s, 0) / last.length);
}
