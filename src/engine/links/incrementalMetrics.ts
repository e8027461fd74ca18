/**
 * Incremental link metrics: after an import changed some links, update what those changes
 * move instead of recomputing everything (recomputeLinkMetrics.ts). The importers log
 * every changed link as it was before (table `link_changes`, import/linkWriter.ts), so the
 * update costs in proportion to the changes plus one PageRank pass:
 *
 * - PageRank and TrustRank are global: they run over every rank-passing link (the pairs
 *   of the last update with the changes applied, rankEdgeCache.ts), warm-started from the stored ranks (pageRank.ts `initial`), and stop
 *   at the same L1 tolerance as a full recompute.
 * - Counters are the stored ones plus the changes' differences: a changed link's old share
 *   is taken out and its new one put in (counters.ts countLink); distinct counts
 *   (referring domains, IPs, subnets, external target domains) and the monthly history
 *   counts compare, for each value a changed link carries, its presence among the links
 *   of the (source root, target root) pairs concerned before and after the import.
 * - Scores (CitationFlow, TrustFlow, authority) follow the tolerance recorded in
 *   docs/decisions.md ("Incremental link metrics"): a stored score is rewritten when the
 *   exact value moved a whole point away from it (|exact − stored| ≥ 1), else kept; the
 *   stored score is so always one of the two integers around the exact value, as a full
 *   recompute's rounding is. Without it every import would move thousands of scores by
 *   rounding (the flows are normalised by the population's largest rank, which any
 *   import moves), and through them the scores of hundreds of thousands of links.
 * - Link scores keep the same tolerance (their strength value is a 0–100 score); changed
 *   links are scored exactly, and best-link flags are recomputed exactly for the (source
 *   root, target root) pairs of rescored links.
 * - TopRank is a position among all domains, which one domain moving shifts for every
 *   domain it passes: a stored TopRank stays while within 1 % of the exact one (nearRank).
 * - Root histories: monthly counts are the stored ones plus the differences; a domain's
 *   history is rebuilt when its counts, flows, pda or TopRank changed or a month's exact
 *   TopRank left the tolerance, and rewritten where it changed.
 * - A stored rank that moved by less than RANK_WRITE_TOLERANCE (relative) is not
 *   rewritten; the stored ranks only start the next update's iteration.
 *
 * It falls back to the full recompute when the stored metrics were computed as of another
 * day (the last month of the histories and every live link's end day move with it), when
 * a changed link is missing, when the histories cover other months, or when an import
 * changed more than a twentieth of the links (one pass over all of them is then cheaper).
 */
import type SqliteDatabase from 'better-sqlite3';
import { buildInEdgeCsr } from './csrGraph.js';
import { COUNTER_NAMES, countLink, type CountedLink, type Counters } from './counters.js';
import { loadEntities, type EntityArrays } from './graphLoader.js';
import { currentRankEdges, storeRankEdges } from './rankEdgeCache.js';
import { aggregate, rankPages, DAMPING, type MetricsStage } from './linkMetrics.js';
import { flowValues, roundScore } from './flows.js';
import { linkScore, linkStrength, linkStrengthValue } from './linkStrength.js';
import { entityMetricRow } from './metricsWriter.js';
import { METRICS_AS_OF_KEY, metricsAsOf, recomputeLinkMetrics } from './recomputeLinkMetrics.js';
import { authorityValue, topRanks } from '../authority/authorityScores.js';
import { aliveMonths, historyDocument, historyRanks, type HistoryCounts, type RootHistory } from '../sites/siteHistory.js';
import { COUNTER_COLUMNS, ENTITY_METRIC_COLUMNS, LEVEL } from '../researchSchema.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayFromIso, dayNumber, monthIndexSince2016 } from '../world/dates.js';

export const RANK_WRITE_TOLERANCE = 1e-3;

/** An import that changed more than this share of the links is followed by a full recompute. */
const INCREMENTAL_SHARE = 1 / 20;

export type UpdateStage = MetricsStage | 'load' | 'write';

export interface MetricsUpdate {
  mode: 'incremental' | 'full';
  /** Why the full recompute ran (mode 'full'). */
  reason?: string;
  /** Links read to update counters, scores and flags (all of them for a full recompute; the rank pass not counted). */
  linksRead: number;
  changedLinks: number;
  changedEntities: number;
  changedHistories: number;
  /** PageRank iterations of this update. */
  pageRankIterations: number;
}

interface StoredLevel {
  present: Uint8Array;
  pagerank: Float64Array;
  trustrank: Float64Array;
  citationFlow: Uint8Array;
  trustFlow: Uint8Array;
  authority: Uint8Array;
  topRank: Int32Array;
  refDomains: Int32Array;
}

function storedLevel(n: number): StoredLevel {
  return {
    present: new Uint8Array(n),
    pagerank: new Float64Array(n),
    trustrank: new Float64Array(n),
    citationFlow: new Uint8Array(n),
    trustFlow: new Uint8Array(n),
    authority: new Uint8Array(n),
    topRank: new Int32Array(n),
    refDomains: new Int32Array(n),
  };
}

function loadStoredMetrics(raw: SqliteDatabase.Database, e: EntityArrays): StoredLevel[] {
  const levels = [storedLevel(e.pageCount), storedLevel(e.hostCount), storedLevel(e.rootCount)];
  for (const [level, id, pr, tr, cf, tf, authority, topRank, refDomains] of raw
    .prepare('SELECT level, entity_id, pagerank, trustrank, citation_flow, trust_flow, authority, top_rank, ref_domains FROM entity_metrics')
    .raw()
    .iterate() as IterableIterator<number[]>) {
    const s = levels[level];
    if (!s || id < 1 || id > s.present.length) continue;
    const i = id - 1;
    s.present[i] = 1;
    s.pagerank[i] = pr;
    s.trustrank[i] = tr;
    s.citationFlow[i] = cf;
    s.trustFlow[i] = tf;
    s.authority[i] = authority;
    s.topRank[i] = topRank;
    s.refDomains[i] = refDomains;
  }
  return levels;
}

/** A vector that sums to 1 (a warm start must be a distribution); null when it is all zeros. */
function normalised(values: Float64Array): Float64Array | null {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  if (!(sum > 0)) return null;
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] / sum;
  return out;
}

/**
 * Whether a stored TopRank (a position, 1 best) may stay for the exact one: within 1 % of it
 * (positions are ratios, as the history smoother treats them), so the first hundred are exact.
 */
export function nearRank(stored: number, exact: number): boolean {
  return Math.abs(stored - exact) <= Math.floor(exact / 100);
}

/** A score after the update: the stored one while the exact value stays within a point of it. */
function settle(present: number, stored: number, exact: number): number {
  return present && Math.abs(exact - stored) < 1 ? stored : roundScore(exact);
}

/** What the metrics need of a link's state (0-based indexes, LINK_TYPES codes, day numbers). */
interface LinkState {
  type: number;
  nofollow: number;
  deleted: number;
  firstDay: number;
  /** Its last-seen day when lost, else the as-of day (graphLoader.ts). */
  endDay: number;
}

interface ChangedLink {
  id: number;
  sourcePage: number;
  targetPage: number;
  sourceHost: number;
  targetHost: number;
  sourceRoot: number;
  targetRoot: number;
  https: number;
  /** Null when the import created the link. */
  before: LinkState | null;
  after: LinkState;
  score: number;
  strength: number;
}

/** A link of a (source root, target root) pair, as the distinct counts and histories need it. */
interface PairRow extends LinkState {
  id: number;
  sourcePage: number;
  sourceHost: number;
  sourceRoot: number;
  targetPage: number;
  targetHost: number;
}

const TYPE_CODES = new Map<string, number>(LINK_TYPES.map((t, i) => [t, i]));
const MENTION = LINK_TYPES.indexOf('mention');

function linkState(asOfDay: number, type: string, nofollow: number, deleted: number, firstSeen: string, lastSeen: string): LinkState {
  return { type: TYPE_CODES.get(type) ?? 0, nofollow, deleted, firstDay: dayFromIso(firstSeen), endDay: deleted ? dayFromIso(lastSeen) : asOfDay };
}

/** The logged changes with the links' current state; null when a logged link is gone. */
function loadChanges(raw: SqliteDatabase.Database, asOfDay: number): ChangedLink[] | null {
  const rows = raw
    .prepare(
      `SELECT c.link_id, c.existed, c.type, c.nofollow, c.deleted, c.first_seen, c.last_seen,
         l.id, l.source_page_id, l.target_page_id, l.source_host_id, l.target_host_id, l.source_root_id, l.target_root_id, l.https,
         l.type, l.nofollow, l.deleted, l.first_seen, l.last_seen, l.score, l.strength
       FROM link_changes c LEFT JOIN links l ON l.id = c.link_id ORDER BY c.link_id`,
    )
    .raw()
    .all() as [number, number, string, number, number, string, string, ...(number | string | null)[]][];
  const out: ChangedLink[] = [];
  for (const r of rows) {
    if (r[7] === null) return null;
    const [sp, tp, sh, th, sr, tr, https, type, nofollow, deleted, first, last, score, strength] = r.slice(8) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      string,
      number,
      number,
      string,
      string,
      number,
      number,
    ];
    out.push({
      id: r[0],
      sourcePage: sp - 1,
      targetPage: tp - 1,
      sourceHost: sh - 1,
      targetHost: th - 1,
      sourceRoot: sr - 1,
      targetRoot: tr - 1,
      https,
      before: r[1] ? linkState(asOfDay, r[2], r[3], r[4], r[5], r[6]) : null,
      after: linkState(asOfDay, type, nofollow, deleted, first, last),
      score,
      strength,
    });
  }
  return out;
}

/** Recomputes every metric (recomputeLinkMetrics.ts), reported as an update. */
export function fullRecomputeUpdate(
  raw: SqliteDatabase.Database,
  asOf: number,
  onStage: (stage: UpdateStage) => void = () => {},
  reason = 'asked for',
): MetricsUpdate {
  const result = recomputeLinkMetrics(raw, asOf, onStage);
  return {
    mode: 'full',
    reason,
    linksRead: result.links,
    changedLinks: result.changedLinks,
    changedEntities: -1,
    changedHistories: -1,
    pageRankIterations: -1,
  };
}

/** Updates the stored link metrics after the link changes logged in `link_changes` (and empties the log). */
export function updateLinkMetrics(raw: SqliteDatabase.Database, asOf: number, onStage: (stage: UpdateStage) => void = () => {}): MetricsUpdate {
  const full = (reason: string): MetricsUpdate => fullRecomputeUpdate(raw, asOf, onStage, reason);
  const asOfDay = dayNumber(asOf);
  const storedAsOf = metricsAsOf(raw);
  if (storedAsOf === null || dayNumber(storedAsOf) !== asOfDay) return full('the stored metrics are as of another day');

  onStage('load');
  const logged = raw.prepare('SELECT COUNT(*) FROM link_changes').pluck().get() as number;
  const linkCount = raw.prepare('SELECT COALESCE(MAX(id), 0) FROM links').pluck().get() as number;
  if (logged > linkCount * INCREMENTAL_SHARE) return full('the import changed more than a twentieth of the links');
  const changes = loadChanges(raw, asOfDay);
  if (!changes) return full('a changed link is missing');
  const e = loadEntities(raw, asOfDay);
  const stored = loadStoredMetrics(raw, e);
  const historyText = loadHistories(raw, e.rootCount);
  const months = monthIndexSince2016(asOfDay) + 1;
  const storedHistory = storedHistories(historyText, e.rootCount, months);
  if (!storedHistory) return full('the stored histories cover other months');
  const { counts, storedTopRank } = storedHistory;
  /** Roots whose monthly counts change (their histories are rebuilt). */
  const countsChanged = new Uint8Array(e.rootCount);

  // Ranks over every rank-passing link, warm-started from the stored ranks (a new page
  // starts at the teleport share, as in a cold start).
  const passes = (state: LinkState) => state.deleted === 0 && state.nofollow === 0 && state.type !== MENTION;
  const edges = currentRankEdges(
    raw,
    changes.map((c) => ({
      id: c.id,
      sourcePage: c.sourcePage,
      targetPage: c.targetPage,
      passedBefore: c.before && passes(c.before),
      passesNow: passes(c.after),
    })),
    e.pageCount,
  );
  const graph = buildInEdgeCsr(e.pageCount, edges.source, edges.target);
  const [storedPages, , storedRoots] = stored;
  const warmPr = new Float64Array(e.pageCount);
  const warmTr = new Float64Array(e.pageCount);
  for (let p = 0; p < e.pageCount; p++) {
    warmPr[p] = storedPages.present[p] ? storedPages.pagerank[p] : (1 - DAMPING) / e.pageCount;
    warmTr[p] = storedPages.present[p] ? storedPages.trustrank[p] : 0;
  }
  const pr = normalised(warmPr);
  const tr = normalised(warmTr);
  const ranks = rankPages(e, graph, onStage, pr && tr ? { pagerank: pr, trustrank: tr } : undefined);
  const prFloor = (1 - DAMPING) / Math.max(1, e.pageCount);
  const levelRanks = [
    { pagerank: ranks.pagerank, trustrank: ranks.trustrank, floor: prFloor },
    { pagerank: aggregate(ranks.pagerank, prFloor, e.hostCount, e.pageHost), trustrank: aggregate(ranks.trustrank, 0, e.hostCount, e.pageHost), floor: 0 },
    { pagerank: aggregate(ranks.pagerank, prFloor, e.rootCount, e.pageRoot), trustrank: aggregate(ranks.trustrank, 0, e.rootCount, e.pageRoot), floor: 0 },
  ];
  const cf = levelRanks.map((l, level) => settleAll(stored[level], (s) => s.citationFlow, flowValues(l.pagerank, l.floor)));
  const tf = levelRanks.map((l, level) => settleAll(stored[level], (s) => s.trustFlow, flowValues(l.trustrank, 0)));

  onStage('counters');
  const entityOf = [(p: number) => p, (p: number) => e.pageHost[p], (p: number) => e.pageRoot[p]];
  const sizes = [e.pageCount, e.hostCount, e.rootCount];
  const counters = sizes.map((n) => Object.fromEntries(COUNTER_NAMES.map((name) => [name, new Int32Array(n)])) as Counters);
  const affected = sizes.map((n) => new Uint8Array(n));
  const markAffected = (page: number) => {
    for (let l = 0; l < 3; l++) affected[l][entityOf[l](page)] = 1;
  };
  for (const c of changes) {
    markAffected(c.sourcePage);
    markAffected(c.targetPage);
  }
  for (let p = 0; p < e.pageCount; p++) if (!storedPages.present[p]) markAffected(p);
  loadStoredCounters(raw, affected, stored, counters);
  let linksRead = changes.length;
  // New pages (entities without stored metrics are the import's: it created them).
  for (let p = 0; p < e.pageCount; p++) {
    if (storedPages.present[p]) continue;
    for (let l = 0; l < 3; l++) {
      counters[l].indexed_urls[entityOf[l](p)]++;
      counters[l].social[entityOf[l](p)] += e.pageShares[p];
    }
  }
  const counted: CountedLink = { live: false, external: false, type: 0, nofollow: false, https: false, fromHome: false, edu: 0, gov: 0 };
  for (const c of changes) {
    counted.external = c.sourceRoot !== c.targetRoot;
    counted.https = c.https === 1;
    counted.fromHome = e.pageIsHome[c.sourcePage] === 1;
    counted.edu = e.rootEdu[c.sourceRoot];
    counted.gov = e.rootGov[c.sourceRoot];
    for (const [sign, state] of [
      [-1, c.before],
      [1, c.after],
    ] as const) {
      if (!state) continue;
      counted.live = state.deleted === 0;
      counted.type = state.type;
      counted.nofollow = state.nofollow === 1;
      for (let l = 0; l < 3; l++) countLink(counters[l], sign, entityOf[l](c.sourcePage), entityOf[l](c.targetPage), counted);
    }
  }
  linksRead += applyDistinctChanges(raw, e, changes, counters, counts, countsChanged);

  const refDomains = counters.map((c, l) => {
    const merged = new Int32Array(sizes[l]);
    for (let i = 0; i < merged.length; i++) merged[i] = affected[l][i] ? c.ref_domains[i] : stored[l].refDomains[i];
    return merged;
  });
  const authority = refDomains.map((rd, l) => {
    let max = 0;
    for (let i = 0; i < rd.length; i++) if (rd[i] > max) max = rd[i];
    const out = new Uint8Array(rd.length);
    for (let i = 0; i < rd.length; i++) out[i] = settle(stored[l].present[i], stored[l].authority[i], authorityValue(cf[l][i], tf[l][i], rd[i], max));
    return out;
  });
  const pda = authority[2];
  const exactTopRank = topRanks(pda, cf[2], refDomains[2]);
  const topRank = exactTopRank.map((exact, r) => (storedRoots.present[r] && nearRank(storedRoots.topRank[r], exact) ? storedRoots.topRank[r] : exact));

  // Link scores: the changed links, and the links out of pages whose flows changed or
  // domains whose pda changed (a link's strength follows its source).
  onStage('strength');
  const newScores = new Map<number, { score: number; strength: number }>();
  /** (source root, target root) pairs whose best-link flags may have changed, as sourceRoot · rootCount + targetRoot. */
  const flagPairs = new Set<number>();
  // A changed link is scored afresh; another keeps its stored score while its strength
  // value (0–100, the score / 100) stays within a point of the exact one, as flows do.
  const rescore = (
    id: number,
    source: number,
    sourceRoot: number,
    targetRoot: number,
    state: { nofollow: number; deleted: number; type: number },
    oldScore: number,
    oldStrength: number,
    changedLink: boolean,
  ) => {
    const value = linkStrengthValue(cf[0][source], tf[0][source], pda[sourceRoot], state.nofollow === 1, state.deleted === 1, state.type === MENTION);
    if (!changedLink && Math.abs(value - oldScore / 100) < 1) return;
    const score = linkScore(value);
    const strength = linkStrength(value);
    if (score === oldScore && strength === oldStrength) return;
    newScores.set(id, { score, strength });
    if (sourceRoot !== targetRoot) flagPairs.add(sourceRoot * e.rootCount + targetRoot);
  };
  for (const c of changes) {
    rescore(c.id, c.sourcePage, c.sourceRoot, c.targetRoot, c.after, c.score, c.strength, true);
    // A new, revived or lost link can change which link of its pair is the best one, whatever its score.
    if (c.sourceRoot !== c.targetRoot) flagPairs.add(c.sourceRoot * e.rootCount + c.targetRoot);
  }
  const sourceRootChanged = new Uint8Array(e.rootCount);
  for (let r = 0; r < e.rootCount; r++) sourceRootChanged[r] = storedRoots.present[r] && pda[r] !== storedRoots.authority[r] ? 1 : 0;
  const outLinks = 'SELECT id, source_page_id, source_root_id, target_root_id, nofollow, deleted, type, score, strength FROM links';
  const byPage = raw.prepare(`${outLinks} WHERE source_page_id = ?`).raw();
  const byRoot = raw.prepare(`${outLinks} WHERE source_root_id = ?`).raw();
  const rescoreRows = (rows: [number, number, number, number, number, number, string, number, number][]) => {
    for (const [id, sp, sr, tr, nofollow, deleted, type, score, strength] of rows) {
      if (newScores.has(id)) continue;
      rescore(id, sp - 1, sr - 1, tr - 1, { nofollow, deleted, type: TYPE_CODES.get(type) ?? 0 }, score, strength, false);
    }
    linksRead += rows.length;
  };
  for (let r = 0; r < e.rootCount; r++) if (sourceRootChanged[r]) rescoreRows(byRoot.all(r + 1) as never);
  for (let p = 0; p < e.pageCount; p++) {
    if (!storedPages.present[p] || sourceRootChanged[e.pageRoot[p]]) continue;
    if (cf[0][p] !== storedPages.citationFlow[p] || tf[0][p] !== storedPages.trustFlow[p]) rescoreRows(byPage.all(p + 1) as never);
  }
  const flagUpdates = bestFlagUpdates(raw, e.rootCount, flagPairs, newScores);
  linksRead += flagUpdates.read;

  onStage('history');
  // Rebuilt: the histories of new domains, of domains whose counts, flows, pda or TopRank
  // changed, and of those whose monthly TopRank moved beyond the tolerance (nearRank).
  const monthlyRanks = historyRanks(counts, e.rootCount, pda, topRank);
  const histories = new Map<number, string>();
  for (let r = 0; r < e.rootCount; r++) {
    let rebuild =
      historyText[r] === undefined ||
      countsChanged[r] === 1 ||
      !storedRoots.present[r] ||
      cf[2][r] !== storedRoots.citationFlow[r] ||
      tf[2][r] !== storedRoots.trustFlow[r] ||
      pda[r] !== storedRoots.authority[r] ||
      topRank[r] !== storedRoots.topRank[r];
    for (let m = r * months; !rebuild && m < (r + 1) * months; m++) rebuild = !nearRank(storedTopRank[m], monthlyRanks.topRank[m]);
    if (!rebuild) continue;
    const text = JSON.stringify(historyDocument(r, counts, monthlyRanks, cf[2], tf[2]));
    if (text !== historyText[r]) histories.set(r, text);
  }

  onStage('write');
  return withPageCache(raw, () => {
    let changedEntities = 0;
    const insertRow = raw.prepare(
      `INSERT OR REPLACE INTO entity_metrics (${ENTITY_METRIC_COLUMNS.join(', ')}) VALUES (${ENTITY_METRIC_COLUMNS.map(() => '?').join(', ')})`,
    );
    const updateRow = raw.prepare(
      'UPDATE entity_metrics SET pagerank = ?, trustrank = ?, citation_flow = ?, trust_flow = ?, authority = ?, top_rank = ? WHERE level = ? AND entity_id = ?',
    );
    const updateScore = raw.prepare('UPDATE links SET score = ?, strength = ? WHERE id = ?');
    const updateFlags = raw.prepare('UPDATE links SET best_root = ?, best_host = ?, best_url = ? WHERE id = ?');
    const updateHistory = raw.prepare('INSERT OR REPLACE INTO root_history (root_domain_id, history) VALUES (?, ?)');
    const moved = (a: number, b: number) => Math.abs(a - b) > RANK_WRITE_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
    raw.transaction(() => {
      const levels = [LEVEL.url, LEVEL.subdomain, LEVEL.root];
      levels.forEach((level, l) => {
        const s = stored[l];
        const ranksOf = levelRanks[l];
        const values = {
          pagerank: ranksOf.pagerank,
          trustrank: ranksOf.trustrank,
          citationFlow: cf[l],
          trustFlow: tf[l],
          authority: authority[l],
          topRank: l === 2 ? topRank : null,
          counters: counters[l],
        };
        const row: (number | string)[] = new Array(ENTITY_METRIC_COLUMNS.length);
        for (let i = 0; i < sizes[l]; i++) {
          const rank = l === 2 ? topRank[i] : 0;
          if (!s.present[i] || affected[l][i]) {
            insertRow.run(entityMetricRow(row, level, i, values));
            changedEntities++;
          } else if (
            cf[l][i] !== s.citationFlow[i] ||
            tf[l][i] !== s.trustFlow[i] ||
            authority[l][i] !== s.authority[i] ||
            rank !== s.topRank[i] ||
            moved(ranksOf.pagerank[i], s.pagerank[i]) ||
            moved(ranksOf.trustrank[i], s.trustrank[i])
          ) {
            updateRow.run(ranksOf.pagerank[i], ranksOf.trustrank[i], cf[l][i], tf[l][i], authority[l][i], rank, level, i + 1);
            changedEntities++;
          }
        }
      });
      for (const id of [...newScores.keys()].sort((a, b) => a - b)) {
        const v = newScores.get(id)!;
        updateScore.run(v.score, v.strength, id);
      }
      for (const [id, flags] of flagUpdates.flags) updateFlags.run(flags & 1, (flags >> 1) & 1, (flags >> 2) & 1, id);
      for (const [root, text] of histories) updateHistory.run(root + 1, text);

      raw.prepare('DELETE FROM link_changes').run();
      storeRankEdges(raw, edges);
      raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
      raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)').run(METRICS_AS_OF_KEY, String(asOf));
    })();
    const changedLinks = new Set([...newScores.keys(), ...flagUpdates.flags.keys()]).size;
    return { mode: 'incremental', linksRead, changedLinks, changedEntities, changedHistories: histories.size, pageRankIterations: ranks.iterations };
  });
}

/**
 * Runs `fn` with a 256 MiB SQLite page cache. The score updates land on random pages of the
 * link indexes (ordered by target): with SQLite's 2 MB default they were read and spilled
 * again and again within the transaction (a third more time on the small world).
 */
function withPageCache<T>(raw: SqliteDatabase.Database, fn: () => T): T {
  const previous = raw.pragma('cache_size', { simple: true }) as number;
  raw.pragma('cache_size = -262144');
  try {
    return fn();
  } finally {
    raw.pragma(`cache_size = ${previous}`);
  }
}

/** Scores of one level after the update (see `settle`). */
function settleAll(s: StoredLevel, storedScores: (s: StoredLevel) => Uint8Array, exact: Float64Array): Uint8Array {
  const previous = storedScores(s);
  const out = new Uint8Array(exact.length);
  for (let i = 0; i < exact.length; i++) out[i] = settle(s.present[i], previous[i], exact[i]);
  return out;
}

/** The stored counters of the affected entities that have stored metrics, into `counters`. */
function loadStoredCounters(raw: SqliteDatabase.Database, affected: Uint8Array[], stored: StoredLevel[], counters: Counters[]): void {
  const select = raw.prepare(`SELECT ${COUNTER_COLUMNS.join(', ')} FROM entity_metrics WHERE level = ? AND entity_id = ?`).raw();
  for (let l = 0; l < 3; l++) {
    for (let i = 0; i < affected[l].length; i++) {
      if (!affected[l][i] || !stored[l].present[i]) continue;
      const values = select.get(l, i + 1) as number[];
      for (let c = 0; c < COUNTER_NAMES.length; c++) counters[l][COUNTER_NAMES[c]][i] = values[c];
    }
  }
}

/** Every stored root history document by root index (undefined where none). */
function loadHistories(raw: SqliteDatabase.Database, rootCount: number): (string | undefined)[] {
  const out = new Array<string | undefined>(rootCount);
  for (const [id, text] of raw.prepare('SELECT root_domain_id, history FROM root_history').raw().iterate() as IterableIterator<[number, string]>) {
    if (id >= 1 && id <= rootCount) out[id - 1] = text;
  }
  return out;
}

/**
 * The monthly counts and TopRanks of the stored histories (zeros for new domains); null when
 * one covers other months.
 */
function storedHistories(texts: (string | undefined)[], rootCount: number, months: number): { counts: HistoryCounts; storedTopRank: Int32Array } | null {
  const storedTopRank = new Int32Array(rootCount * months);
  const counts: HistoryCounts = {
    months,
    domains: new Int32Array(rootCount * months),
    ips: new Int32Array(rootCount * months),
    subnets: new Int32Array(rootCount * months),
    social: new Float64Array(rootCount * months),
  };
  for (let r = 0; r < rootCount; r++) {
    const text = texts[r];
    if (text === undefined) continue;
    const h = JSON.parse(text) as RootHistory;
    if (h.refDomains.length !== months) return null;
    const base = r * months;
    for (let m = 0; m < months; m++) {
      counts.domains[base + m] = h.refDomains[m];
      counts.ips[base + m] = h.refIps[m];
      counts.subnets[base + m] = h.refSubnets[m];
      counts.social[base + m] = h.social[m];
      storedTopRank[base + m] = h.topRank[m];
    }
  }
  return { counts, storedTopRank };
}

/**
 * The distinct counts the changed external links move: referring domains (and their
 * EDU/GOV parts, and with lost links), IPs and subnets of their targets, external target
 * domains of their sources, and the monthly referring domains, IPs and subnets of the
 * target domains. A value (a referring root, IP or subnet) counts for an entity while one
 * of the links carrying it is there, so each one's presence is compared before and after
 * the import over every link that could carry it: the links into the target domain from
 * the source domains of the changed links and from every domain with a host on the same
 * IP or subnet. "Before" is "after" with the changed links put back as they were.
 * Returns how many links it read.
 */
function applyDistinctChanges(
  raw: SqliteDatabase.Database,
  e: EntityArrays,
  changes: ChangedLink[],
  counters: Counters[],
  counts: HistoryCounts,
  countsChanged: Uint8Array,
): number {
  const rootsOf = (keyOfHost: Int32Array) => {
    const out = new Map<number, Set<number>>();
    for (let h = 0; h < e.hostCount; h++) {
      let roots = out.get(keyOfHost[h]);
      if (!roots) out.set(keyOfHost[h], (roots = new Set()));
      roots.add(e.hostRoot[h]);
    }
    return out;
  };
  const ipRoots = rootsOf(e.hostIp);
  const subnetRoots = rootsOf(e.hostSubnet);
  const byTarget = new Map<number, ChangedLink[]>();
  for (const c of changes) {
    if (c.sourceRoot === c.targetRoot) continue;
    let list = byTarget.get(c.targetRoot);
    if (!list) byTarget.set(c.targetRoot, (list = []));
    list.push(c);
  }
  const select = raw
    .prepare(
      `SELECT id, source_page_id, source_host_id, source_root_id, target_page_id, target_host_id, type, nofollow, deleted, first_seen, last_seen
       FROM links INDEXED BY links_source_root WHERE source_root_id IN (SELECT value FROM json_each(?)) AND target_root_id = ?`,
    )
    .raw();
  const { months } = counts;
  let read = 0;
  for (const [target, list] of byTarget) {
    // What to compare: per level, (target entity, kind, value) and (source entity, 'o', target domain).
    const wanted = new Map<string, { level: number; entity: number; kind: 'r' | 'i' | 's' | 'o'; value: number }>();
    const want = (level: number, entity: number, kind: 'r' | 'i' | 's' | 'o', value: number) => {
      const key = `${level}:${entity}:${kind}${value}`;
      if (!wanted.has(key)) wanted.set(key, { level, entity, kind, value });
    };
    const sourceRoots = new Set<number>();
    const changed = new Map<number, ChangedLink>();
    for (const c of list) {
      changed.set(c.id, c);
      const targets = [c.targetPage, c.targetHost, target];
      const sources = [c.sourcePage, c.sourceHost, c.sourceRoot];
      for (let l = 0; l < 3; l++) {
        want(l, targets[l], 'r', c.sourceRoot);
        want(l, targets[l], 'i', e.hostIp[c.sourceHost]);
        want(l, targets[l], 's', e.hostSubnet[c.sourceHost]);
        want(l, sources[l], 'o', target);
      }
      sourceRoots.add(c.sourceRoot);
      for (const r of ipRoots.get(e.hostIp[c.sourceHost]) ?? []) sourceRoots.add(r);
      for (const r of subnetRoots.get(e.hostSubnet[c.sourceHost]) ?? []) sourceRoots.add(r);
    }
    sourceRoots.delete(target);
    const after: PairRow[] = [];
    for (const [id, sp, sh, sr, tp, th, type, nofollow, deleted, first, last] of select.iterate(
      JSON.stringify([...sourceRoots].map((r) => r + 1)),
      target + 1,
    ) as IterableIterator<[number, number, number, number, number, number, string, number, number, string, string]>) {
      after.push({
        id,
        sourcePage: sp - 1,
        sourceHost: sh - 1,
        sourceRoot: sr - 1,
        targetPage: tp - 1,
        targetHost: th - 1,
        ...linkState(e.asOfDay, type, nofollow, deleted, first, last),
      });
    }
    read += after.length;
    const before: PairRow[] = [];
    for (const row of after) {
      const c = changed.get(row.id);
      if (!c) before.push(row);
      else if (c.before) before.push({ ...row, ...c.before });
    }
    const presence = (rows: PairRow[]) => {
      const live = new Set<string>();
      const any = new Set<string>();
      /** Alive span [first, end] per root-level value (histories). */
      const spans = new Map<string, [number, number]>();
      const see = (key: string, row: PairRow, history: boolean) => {
        if (!wanted.has(key)) return;
        any.add(key);
        if (row.deleted === 0) live.add(key);
        if (!history) return;
        const span = spans.get(key);
        if (!span) spans.set(key, [row.firstDay, row.endDay]);
        else {
          if (row.firstDay < span[0]) span[0] = row.firstDay;
          if (row.endDay > span[1]) span[1] = row.endDay;
        }
      };
      for (const row of rows) {
        const targets = [row.targetPage, row.targetHost, target];
        const sources = [row.sourcePage, row.sourceHost, row.sourceRoot];
        for (let l = 0; l < 3; l++) {
          see(`${l}:${targets[l]}:r${row.sourceRoot}`, row, l === 2);
          see(`${l}:${targets[l]}:i${e.hostIp[row.sourceHost]}`, row, l === 2);
          see(`${l}:${targets[l]}:s${e.hostSubnet[row.sourceHost]}`, row, l === 2);
          see(`${l}:${sources[l]}:o${target}`, row, false);
        }
      }
      return { live, any, spans };
    };
    const was = presence(before);
    const is = presence(after);
    for (const [key, { level, entity, kind, value }] of wanted) {
      const c = counters[level];
      const live = Number(is.live.has(key)) - Number(was.live.has(key));
      if (kind === 'o') {
        c.out_domains_external[entity] += live;
        continue;
      }
      if (kind === 'r') {
        c.ref_domains[entity] += live;
        c.ref_domains_all[entity] += Number(is.any.has(key)) - Number(was.any.has(key));
        const [edu, gov] = [e.rootEdu[value], e.rootGov[value]];
        if (edu > 0) c.ref_domains_edu[entity] += live;
        if (edu === 2) c.ref_domains_edu_exact[entity] += live;
        if (gov > 0) c.ref_domains_gov[entity] += live;
        if (gov === 2) c.ref_domains_gov_exact[entity] += live;
      } else if (kind === 'i') c.ref_ips[entity] += live;
      else c.ref_subnets[entity] += live;
      if (level !== 2) continue;
      countsChanged[entity] = 1;
      const monthly = kind === 'r' ? counts.domains : kind === 'i' ? counts.ips : counts.subnets;
      for (const [sign, span] of [
        [-1, was.spans.get(key)],
        [1, is.spans.get(key)],
      ] as const) {
        if (!span) continue;
        const [from, to] = aliveMonths(span[0], span[1], months, e.asOfDay);
        for (let m = from; m <= to; m++) monthly[entity * months + m] += sign;
      }
    }
  }
  return read;
}

/**
 * Best-link flags of the (source root, target root) pairs in `pairs`, with the new scores:
 * the strongest link (highest score, then lowest id) per target page, host and domain
 * among each pair's links (linkMetrics.ts bestLinkFlags). Returns the links whose flags
 * changed (bit 0 root, 1 host, 2 url) and how many links it read.
 */
function bestFlagUpdates(
  raw: SqliteDatabase.Database,
  rootCount: number,
  pairs: Set<number>,
  newScores: Map<number, { score: number }>,
): { flags: Map<number, number>; read: number } {
  const select = raw
    .prepare(
      'SELECT id, target_host_id, target_page_id, score, best_root, best_host, best_url FROM links INDEXED BY links_source_root WHERE source_root_id = ? AND target_root_id = ? ORDER BY id',
    )
    .raw();
  const flags = new Map<number, number>();
  let read = 0;
  for (const pair of pairs) {
    const [sourceRoot, targetRoot] = [Math.floor(pair / rootCount), pair % rootCount];
    const rows = select.all(sourceRoot + 1, targetRoot + 1) as [number, number, number, number, number, number, number][];
    read += rows.length;
    const winners = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
    const scores = rows.map((r) => newScores.get(r[0])?.score ?? r[3]);
    rows.forEach((r, k) => {
      const keys = [0, r[1], r[2]];
      for (let l = 0; l < 3; l++) {
        const current = winners[l].get(keys[l]);
        if (current === undefined || scores[k] > scores[current]) winners[l].set(keys[l], k);
      }
    });
    const next = new Uint8Array(rows.length);
    for (let l = 0; l < 3; l++) for (const k of winners[l].values()) next[k] |= 1 << l;
    rows.forEach((r, k) => {
      if ((r[4] | (r[5] << 1) | (r[6] << 2)) !== next[k]) flags.set(r[0], next[k]);
    });
  }
  return { flags, read };
}
