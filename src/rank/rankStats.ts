/**
 * Figures of a tracking over a timeframe, from its stored daily checks: rank distribution,
 * average position, visibility and estimated visits per day and on the last day, and the
 * keywords that moved most between the first and the last checked day.
 *
 * Visibility and visits use the SISTRIX 2020 click-through curve (clickThroughCurve.ts),
 * as the email report does, so the two never disagree on the same checks.
 *
 * @example
 * const stats = await trackingStats(ctx.state.db, tracking, { from: '2026-11-01', to: '2026-11-30' });
 */
import { sql, type Kysely } from 'kysely';
import { baseClickThroughRate } from '../engine/search/clickThroughCurve.js';
import type { StateDatabase } from '../store/schema.js';

/** Rank buckets: position 1, 2–3, 4–10, 11–20, 21–100 and the rest (not in the top 100). */
export const RANK_BUCKETS = ['1', '2-3', '4-10', '11-20', '21-100', 'rest'] as const;
export type RankBucket = (typeof RANK_BUCKETS)[number];
export type Distribution = Record<RankBucket, number>;

export const MOVERS_SHOWN = 10;
/** Movement is measured as if an unranked keyword stood just below the tracked depth. */
const UNRANKED = 101;

export interface DayFigures {
  date: string;
  keywords: number;
  distribution: Distribution;
  /** Mean position of the keywords ranking that day, 2 decimals; null when none ranks. */
  average_position: number | null;
  /** Percent of the clicks the keywords would earn all at position 1. */
  visibility: number;
}

export interface Mover {
  keyword_id: string;
  kw: string;
  from: number | null;
  to: number | null;
  /** Places gained (positive) or lost (negative). */
  change: number;
}

export interface TrackingStats extends Omit<DayFigures, 'date'> {
  tracking_id: string;
  from: string;
  to: string;
  /** First and last day in the timeframe with checks; null when there are none. */
  first_day: string | null;
  last_day: string | null;
  /** Monthly visits the last day's positions would earn: Σ volume × CTR(position). */
  estimated_visits: number;
  daily: DayFigures[];
  top_movers: { up: Mover[]; down: Mover[] };
}

export function bucketOf(position: number | null): RankBucket {
  if (position === null || position < 1 || position > 100) return 'rest';
  if (position === 1) return '1';
  if (position <= 3) return '2-3';
  if (position <= 10) return '4-10';
  if (position <= 20) return '11-20';
  return '21-100';
}

const emptyDistribution = (): Distribution => ({ '1': 0, '2-3': 0, '4-10': 0, '11-20': 0, '21-100': 0, rest: 0 });
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Visibility in percent of a multiset of positions given as (position, count) pairs. */
export function visibilityOf(counts: readonly { position: number | null; n: number }[]): number {
  let total = 0;
  let earned = 0;
  for (const { position, n } of counts) {
    total += n;
    if (position !== null) earned += n * baseClickThroughRate(position);
  }
  return total === 0 ? 0 : round2((100 * earned) / (total * baseClickThroughRate(1)));
}

export async function trackingStats(db: Kysely<StateDatabase>, tracking: { id: string }, range: { from: string; to: string }): Promise<TrackingStats> {
  // (day, position) counts: at most days × 101 rows, whatever the number of keywords.
  const grouped = await sql<{ day: string; position: number | null; n: number }>`
    SELECT day, position, COUNT(*) AS n FROM rank_checks
    WHERE tracking_id = ${tracking.id} AND day >= ${range.from} AND day <= ${range.to}
    GROUP BY day, position ORDER BY day`.execute(db);
  const byDay = new Map<string, { position: number | null; n: number }[]>();
  for (const r of grouped.rows) {
    let list = byDay.get(r.day);
    if (!list) byDay.set(r.day, (list = []));
    list.push({ position: r.position, n: Number(r.n) });
  }
  const daily: DayFigures[] = [...byDay].map(([date, counts]) => dayFigures(date, counts));
  const first = daily[0]?.date ?? null;
  const last = daily[daily.length - 1]?.date ?? null;

  const positionsOn = async (day: string | null) => {
    const map = new Map<string, { kw: string; sv: number | null; position: number | null }>();
    if (day === null) return map;
    const rows = await db
      .selectFrom('rank_checks as c')
      .innerJoin('rank_tracked_keywords as k', 'k.id', 'c.keyword_id')
      .select(['c.keyword_id', 'c.position', 'k.kw', 'k.sv'])
      .where('c.tracking_id', '=', tracking.id)
      .where('c.day', '=', day)
      .execute();
    for (const r of rows) map.set(r.keyword_id, { kw: r.kw, sv: r.sv, position: r.position });
    return map;
  };
  const atEnd = await positionsOn(last);
  const atStart = first === last ? atEnd : await positionsOn(first);

  let visits = 0;
  for (const k of atEnd.values()) if (k.position !== null && k.sv !== null) visits += k.sv * baseClickThroughRate(k.position);

  const moves: Mover[] = [];
  for (const [id, end] of atEnd) {
    const start = atStart.get(id);
    if (!start) continue;
    const change = (start.position ?? UNRANKED) - (end.position ?? UNRANKED);
    if (change !== 0) moves.push({ keyword_id: id, kw: end.kw, from: start.position, to: end.position, change });
  }
  const byKw = (a: Mover, b: Mover) => (a.kw < b.kw ? -1 : a.kw > b.kw ? 1 : 0);
  const up = moves
    .filter((m) => m.change > 0)
    .sort((a, b) => b.change - a.change || byKw(a, b))
    .slice(0, MOVERS_SHOWN);
  const down = moves
    .filter((m) => m.change < 0)
    .sort((a, b) => a.change - b.change || byKw(a, b))
    .slice(0, MOVERS_SHOWN);

  const lastFigures = daily[daily.length - 1] ?? { keywords: 0, distribution: emptyDistribution(), average_position: null, visibility: 0 };
  return {
    tracking_id: tracking.id,
    from: range.from,
    to: range.to,
    first_day: first,
    last_day: last,
    keywords: lastFigures.keywords,
    distribution: lastFigures.distribution,
    average_position: lastFigures.average_position,
    visibility: lastFigures.visibility,
    estimated_visits: Math.round(visits),
    daily,
    top_movers: { up, down },
  };
}

function dayFigures(date: string, counts: { position: number | null; n: number }[]): DayFigures {
  const distribution = emptyDistribution();
  let keywords = 0;
  let ranked = 0;
  let sum = 0;
  for (const { position, n } of counts) {
    keywords += n;
    distribution[bucketOf(position)] += n;
    if (position !== null) {
      ranked += n;
      sum += n * position;
    }
  }
  return { date, keywords, distribution, average_position: ranked === 0 ? null : round2(sum / ranked), visibility: visibilityOf(counts) };
}
