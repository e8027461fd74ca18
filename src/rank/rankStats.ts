/**
 * Figures of a tracking's keywords over a timeframe, from their stored daily checks, in the
 * reference's shape: per day (`timeframes`) the rank distribution, estimated visits,
 * visibility and performance indexes and how many keywords were checked and tracked; per
 * keyword its first and last check in the timeframe; the ids of the biggest movers.
 *
 * Visibility and visits use the SISTRIX 2020 click-through curve (clickThroughCurve.ts),
 * as the email report does, so the two never disagree on the same checks; a check that
 * carries clicks measured by Search Console (an import) counts those as its visits.
 *
 * @example
 * const stats = await trackingStats(ctx.state.db, tracking, { from: '2026-11-01', to: '2026-11-30' });
 */
import { isPostgres } from '../store/database.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { baseClickThroughRate } from '../engine/search/clickThroughCurve.js';
import type { StateDatabase } from '../store/schema.js';

/** Rank bands of the reference: position 1, 2–3, 4–10, 11–20, 21–99, and the rest (100, or not in the top 100). */
export const RANK_BUCKETS = ['1', '3', '10', '20', '100', 'rest'] as const;
export type RankBucket = (typeof RANK_BUCKETS)[number];
export type Distribution = Record<RankBucket, number>;

export const MOVERS_SHOWN = 10;
/** Movement is measured as if an unranked keyword stood just below the tracked depth. */
export const UNRANKED = 101;

export interface DayFigures {
  estimated_visits: number;
  performance_index: number;
  visibility_index: number;
  performance_total: number;
  rank_distribution: Distribution;
  keywords_with_history: number;
  keywords_eligible: number;
  average_position: number | null;
}

/** Where a ranking result sat on the page (rank_checks.visual). */
export interface StoredVisual {
  size: { t: number; l: number; b: number; r: number };
  screenCoverage: number;
  visPart: number;
  positionToFold: { status: string; fold: number; elementTop: number; elementBottom: number };
  /** URLs of the domain in the organic results (recorded since the reference shapes; absent before). */
  urls?: number;
}

export interface KeywordStats {
  keyword_id: string;
  kw: string;
  sv: number | null;
  tag_ids: string[];
  position: number | null;
  start_position: number | null;
  rank_change: number;
  url: string | null;
  is_more_url: boolean;
  visual_metrics: { fold: string; coverage: number; visible_part: number; top: number; top_change: number | null; coverage_change: number | null } | null;
  serp_features: string[];
  last_crawled_at: number | null;
  is_empty_main_array: boolean;
  nearest_before_day: string | null;
}

export interface TrackingStats {
  history_dates: string[];
  timeframes: Record<string, DayFigures>;
  top_up: string[];
  top_down: string[];
  keywords: KeywordStats[];
}

export function bucketOf(position: number | null): RankBucket {
  if (position === null || position < 1 || position >= 100) return 'rest';
  if (position === 1) return '1';
  if (position <= 3) return '3';
  if (position <= 10) return '10';
  if (position <= 20) return '20';
  return '100';
}

const emptyDistribution = (): Distribution => ({ '1': 0, '3': 0, '10': 0, '20': 0, '100': 0, rest: 0 });
const round2 = (x: number) => Math.round(x * 100) / 100;
/** Performance points of a position: 100 at position 1, 1 at position 100, 0 when not ranking. */
export const pointsOf = (position: number | null) => (position === null ? 0 : Math.max(0, UNRANKED - position));

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

interface KeywordRef {
  id: string;
  kw: string;
  sv: number | null;
  first_day: string;
}

/** Keywords whose checks are read and summed in one turn of the event loop (see trackingStats). */
export const STATS_KEYWORDS_PER_TURN = 200;

/**
 * Statistics of the keywords `keywordIds` (all of the tracking's when undefined) from
 * `range.from` to `range.to`. The per-day figures of the whole tracking come from its per-day
 * aggregates (`rank_check_days`, kept by triggers on the checks, migration 0075): days ×
 * distinct positions rows, however many keywords (issue 26: a 1,500-keyword tracking's 90 days
 * were 135,000 checks grouped per request). For some of its keywords (`kwIds`) they are
 * grouped in SQL from the checks by (day, position). Each keyword's first and last check are
 * seeks in the (keyword_id, day) key.
 *
 * The checks are read `keywordsPerTurn` keywords at a time, each batch in its own turn of the
 * event loop, and the batches' sums added: on SQLite every statement holds the thread that
 * answers everyone, and a 1,000-keyword tracking's stats held it 100–400 ms in one piece
 * (issue 28). Counts and sums add exactly, so the figures do not depend on the batching.
 */
export async function trackingStats(
  db: Kysely<StateDatabase>,
  tracking: { id: string },
  range: { from: string; to: string },
  options: {
    keywordIds?: readonly string[];
    tagIds?: ReadonlyMap<string, string[]>;
    keywordsPerTurn?: number;
    /** Per-day figures grouped from the checks themselves even for the whole tracking (tests compare the two ways). */
    fromChecks?: boolean;
  } = {},
): Promise<TrackingStats> {
  // A filter goes to the database as one JSON array parameter, whatever its length.
  const elements = isPostgres(db)
    ? (json: string) => sql`SELECT jsonb_array_elements_text(${json}::jsonb)`
    : (json: string) => sql`SELECT value FROM json_each(${json})`;
  const only = options.keywordIds === undefined ? null : JSON.stringify([...new Set(options.keywordIds)]);
  const keywords = (
    await sql<KeywordRef>`SELECT id, kw, sv, first_day FROM rank_tracked_keywords
      WHERE tracking_id = ${tracking.id} AND ${only === null ? sql`1 = 1` : sql`id IN (${elements(only)})`} ORDER BY created_at, kw`.execute(db)
  ).rows;

  const groups = new Map<string, DayGroup & { day: string }>();
  const firstLast = new Map<string, { first: EndRow; last: EndRow }>();
  const before = new Map<string, string | null>();
  const perTurn = Math.max(1, options.keywordsPerTurn ?? STATS_KEYWORDS_PER_TURN);
  // All the tracking's keywords: the per-day figures are its per-day aggregates (migration 0075).
  const fromAggregates = only === null && !options.fromChecks;
  if (fromAggregates) await readDayAggregates(db, tracking.id, range, groups, perTurn * AGGREGATE_ROWS_PER_KEYWORD);
  for (let i = 0; i < keywords.length; i += perTurn) {
    if (i > 0 || fromAggregates) await nextTurn();
    const batch = JSON.stringify(keywords.slice(i, i + perTurn).map((k) => k.id));
    await readChecks(db, tracking.id, range, sql`k.id IN (${elements(batch)})`, { groups: fromAggregates ? null : groups, firstLast, before });
  }
  // Days in order, and positions in order within a day (no position first), whatever the batches.
  const ordered = [...groups.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : (a.position ?? 0) - (b.position ?? 0)));
  const byDay = new Map<string, DayGroup[]>();
  for (const { day, ...group } of ordered) {
    let list = byDay.get(day);
    if (!list) byDay.set(day, (list = []));
    list.push(group);
  }
  const firstDays = keywords.map((k) => k.first_day).sort();
  const eligibleOn = (day: string) => {
    let n = 0;
    for (const d of firstDays) if (d <= day) n++;
    return n;
  };
  const timeframes: Record<string, DayFigures> = {};
  for (const [day, counts] of byDay) timeframes[day] = dayFigures(counts, eligibleOn(day));

  const out: KeywordStats[] = keywords.map((k) => {
    const ends = firstLast.get(k.id);
    const position = ends?.last.position ?? null;
    const start = ends?.first.position ?? null;
    const visual = ends?.last.visual ? (JSON.parse(ends.last.visual) as StoredVisual) : null;
    const startVisual = ends?.first.visual ? (JSON.parse(ends.first.visual) as StoredVisual) : null;
    return {
      keyword_id: k.id,
      kw: k.kw,
      sv: k.sv,
      tag_ids: [...(options.tagIds?.get(k.id) ?? [])],
      position,
      start_position: start,
      rank_change: ends ? (start ?? UNRANKED) - (position ?? UNRANKED) : 0,
      url: ends?.last.url ?? null,
      is_more_url: (visual?.urls ?? 0) > 1,
      visual_metrics: visual
        ? {
            fold: visual.positionToFold.status,
            coverage: visual.screenCoverage,
            visible_part: visual.visPart,
            top: visual.size.t,
            top_change: startVisual ? round2(startVisual.size.t - visual.size.t) : null,
            coverage_change: startVisual ? round2(visual.screenCoverage - startVisual.screenCoverage) : null,
          }
        : null,
      serp_features: ends ? (JSON.parse(ends.last.features) as string[]) : [],
      last_crawled_at: ends ? Math.floor(ends.last.checked_ms / 1000) : null,
      is_empty_main_array: ends === undefined,
      nearest_before_day: before.get(k.id) ?? null,
    };
  });

  const moved = out.filter((k) => !k.is_empty_main_array && k.rank_change !== 0);
  const byKw = (a: KeywordStats, b: KeywordStats) => (a.kw < b.kw ? -1 : a.kw > b.kw ? 1 : 0);
  const top_up = moved
    .filter((m) => m.rank_change > 0)
    .sort((a, b) => b.rank_change - a.rank_change || byKw(a, b))
    .slice(0, MOVERS_SHOWN)
    .map((m) => m.keyword_id);
  const top_down = moved
    .filter((m) => m.rank_change < 0)
    .sort((a, b) => a.rank_change - b.rank_change || byKw(a, b))
    .slice(0, MOVERS_SHOWN)
    .map((m) => m.keyword_id);

  return { history_dates: [...byDay.keys()], timeframes, top_up, top_down, keywords: out };
}

/** A keyword's first or last check in the timeframe. */
type EndRow = { keyword_id: string; day: string; position: number | null; url: string | null; visual: string | null; features: string; checked_ms: number };

/** Null stays null only when both are: SQL's SUM of nothing but nulls. */
const addNullable = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);

/**
 * Reads the checks of one batch of keywords (`which`, a condition on `k.id`) and adds them to
 * `into`: unless the aggregates give them, per (day, position) counts, search-volume sums of the checks without measured clicks
 * and the measured clicks (Search Console imports), at most days × 101 rows read from the
 * covering index alone; each keyword's first and last check in the timeframe, and its last
 * day before it, a few seeks in the (keyword_id, day) key per keyword.
 */
async function readChecks(
  db: Kysely<StateDatabase>,
  trackingId: string,
  range: { from: string; to: string },
  which: RawBuilder<unknown>,
  into: {
    /** Null: the per-day figures come from elsewhere (the aggregates). */
    groups: Map<string, DayGroup & { day: string }> | null;
    firstLast: Map<string, { first: EndRow; last: EndRow }>;
    before: Map<string, string | null>;
  },
): Promise<void> {
  if (into.groups) await groupChecks(db, trackingId, range, which, into.groups);
  const endRows = (fn: 'MIN' | 'MAX') =>
    sql<EndRow>`
    SELECT c.keyword_id, c.day, c.position, c.url, c.visual, c.features, c.checked_ms
    FROM rank_tracked_keywords k JOIN rank_checks c ON c.keyword_id = k.id AND c.day = (
      SELECT ${sql.raw(fn)}(x.day) FROM rank_checks x WHERE x.keyword_id = k.id AND x.day >= ${range.from} AND x.day <= ${range.to})
    WHERE k.tracking_id = ${trackingId} AND ${which}`.execute(db);
  const firsts = new Map((await endRows('MIN')).rows.map((r) => [r.keyword_id, r]));
  for (const r of (await endRows('MAX')).rows) into.firstLast.set(r.keyword_id, { first: firsts.get(r.keyword_id) ?? r, last: r });
  const before = await sql<{ keyword_id: string; day: string | null }>`
    SELECT k.id AS keyword_id, (SELECT MAX(x.day) FROM rank_checks x WHERE x.keyword_id = k.id AND x.day < ${range.from}) AS day
    FROM rank_tracked_keywords k WHERE k.tracking_id = ${trackingId} AND ${which}`.execute(db);
  for (const r of before.rows) into.before.set(r.keyword_id, r.day);
}

/** Per (day, position) counts and sums of one batch of keywords' checks, added to `groups`. */
async function groupChecks(
  db: Kysely<StateDatabase>,
  trackingId: string,
  range: { from: string; to: string },
  which: RawBuilder<unknown>,
  groups: Map<string, DayGroup & { day: string }>,
): Promise<void> {
  // SQLite is told the join order and the covering index (its planner picked worse ones);
  // PostgreSQL's planner chooses by statistics and knows neither hint.
  const checksJoin = isPostgres(db) ? sql`JOIN rank_checks c` : sql`CROSS JOIN rank_checks c INDEXED BY rank_checks_keyword_day_position_clicks`;
  const grouped = await sql<{ day: string; position: number | null; sv: number | null; clicks: number | null; n: number }>`
    SELECT c.day, c.position, SUM(CASE WHEN c.clicks IS NULL THEN k.sv END) AS sv, SUM(c.clicks) AS clicks, COUNT(*) AS n
    FROM rank_tracked_keywords k ${checksJoin}
      ON c.keyword_id = k.id AND c.day >= ${range.from} AND c.day <= ${range.to}
    WHERE k.tracking_id = ${trackingId} AND ${which}
    GROUP BY c.day, c.position`.execute(db);
  for (const r of grouped.rows) {
    const key = `${r.day}|${r.position}`;
    const sv = r.sv === null ? null : Number(r.sv);
    const clicks = r.clicks === null ? null : Number(r.clicks);
    const known = groups.get(key);
    if (known) {
      known.sv = addNullable(known.sv, sv);
      known.clicks = addNullable(known.clicks, clicks);
      known.n += Number(r.n);
    } else groups.set(key, { day: r.day, position: r.position, sv, clicks, n: Number(r.n) });
  }
}

/** Rows of the per-day aggregates read in one turn of the event loop, per keyword of a batch (a keyword has at most a row a day). */
const AGGREGATE_ROWS_PER_KEYWORD = 10;

/**
 * The per-day figures of all a tracking's keywords from `rank_check_days` (migration 0075):
 * at most days × 101 rows, where the checks were keywords × days. Read `pageRows` rows a
 * turn of the event loop, in key order (a page starts after the last row of the one before).
 * The sums are the ones `groupChecks` makes: counts and integer search volumes exactly;
 * measured clicks are floating-point sums, as SQL's SUM over the checks was.
 */
async function readDayAggregates(
  db: Kysely<StateDatabase>,
  trackingId: string,
  range: { from: string; to: string },
  groups: Map<string, DayGroup & { day: string }>,
  pageRows: number,
): Promise<void> {
  let after: { day: string; position: number } | null = null;
  for (;;) {
    if (after) await nextTurn();
    const page: { day: string; position: number; n: number; sv: number; clicks: number; clicks_n: number }[] = await db
      .selectFrom('rank_check_days')
      .select(['day', 'position', 'n', 'sv', 'clicks', 'clicks_n'])
      .where('tracking_id', '=', trackingId)
      .where('day', '>=', range.from)
      .where('day', '<=', range.to)
      .where('n', '>', 0)
      .$if(after !== null, (q) =>
        q.where((eb) => eb.or([eb('day', '>', after!.day), eb.and([eb('day', '=', after!.day), eb('position', '>', after!.position)])])),
      )
      .orderBy('day')
      .orderBy('position')
      .limit(pageRows)
      .execute();
    for (const r of page) {
      const position = Number(r.position) === 0 ? null : Number(r.position);
      const clicksN = Number(r.clicks_n);
      groups.set(`${r.day}|${position}`, { day: r.day, position, sv: Number(r.sv), clicks: clicksN > 0 ? Number(r.clicks) : null, n: Number(r.n) });
    }
    if (page.length < pageRows) return;
    const last = page[page.length - 1];
    after = { day: last.day, position: Number(last.position) };
  }
}

/**
 * Checks of one day at one position: how many, the search volumes of those without
 * measured clicks (visits are estimated from them) and the clicks measured for the others.
 */
interface DayGroup {
  position: number | null;
  sv: number | null;
  clicks: number | null;
  n: number;
}

/** A day's figures from its (position, checks, search volumes, measured clicks) groups. */
function dayFigures(counts: readonly DayGroup[], eligible: number): DayFigures {
  const distribution = emptyDistribution();
  let checked = 0;
  let ranked = 0;
  let sum = 0;
  let points = 0;
  let visits = 0;
  for (const { position, sv, clicks, n } of counts) {
    checked += n;
    distribution[bucketOf(position)] += n;
    points += n * pointsOf(position);
    // Clicks Search Console measured are the visits themselves, ranked in the top 100 or not.
    if (clicks !== null) visits += clicks;
    if (position !== null) {
      ranked += n;
      sum += n * position;
      if (sv !== null) visits += sv * baseClickThroughRate(position);
    }
  }
  return {
    estimated_visits: Math.round(visits),
    performance_index: checked === 0 ? 0 : round2((100 * points) / (checked * pointsOf(1))),
    visibility_index: visibilityOf(counts),
    performance_total: points,
    rank_distribution: distribution,
    keywords_with_history: checked,
    keywords_eligible: Math.max(eligible, checked),
    average_position: ranked === 0 ? null : round2(sum / ranked),
  };
}
