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
import { loadEntities } from './graphLoader.js';
import { currentRankEdges, storeRankEdges } from './rankEdgeCache.js';
import { aggregate, rankPages, DAMPING, type MetricsStage } from './linkMetrics.js';
import { flowValues } from './flows.js';
import { linkScore, linkStrength, linkStrengthValue } from './linkStrength.js';
import { entityMetricRow } from './metricsWriter.js';
import { METRICS_AS_OF_KEY, metricsAsOf, recomputeLinkMetrics } from './recomputeLinkMetrics.js';
import { authorityValue, topRanks } from '../authority/authorityScores.js';
import { historyDocument, historyRanks } from '../sites/siteHistory.js';
import { ENTITY_METRIC_COLUMNS, LEVEL } from '../researchSchema.js';
import { dayNumber, monthIndexSince2016 } from '../world/dates.js';
import { MENTION, TYPE_CODES, loadChanges, type LinkState } from './linkChanges.js';
import { loadHistories, loadStoredCounters, loadStoredMetrics, nearRank, normalised, settle, settleAll, storedHistories } from './storedLinkMetrics.js';
import { applyDistinctChanges, bestFlagUpdates } from './distinctChanges.js';

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
