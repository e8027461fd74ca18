/**
 * Incremental link metrics: after an import changed the links of a few root domains,
 * update what those changes can move instead of recomputing everything
 * (recomputeLinkMetrics.ts), with the same results:
 *
 * - PageRank and TrustRank are global, but start from the stored ranks (a warm start,
 *   pageRank.ts `initial`) and so converge in a few iterations over the lean edge list;
 * - exact counters are recomputed only for the touched root domains and their hosts and
 *   pages, from the links into and out of those domains (every counter of an entity
 *   depends only on the links into or out of it, counters.ts); the others keep theirs;
 * - flows, authority and TopRank follow from the new ranks for every entity (they are
 *   normalised over the population), but only rows whose values changed are written;
 * - link scores are recomputed for the links of the touched domains and of the domains
 *   whose pages changed flow or pda; best-per-domain flags for the targets of the links
 *   whose score changed; root histories are rebuilt from the new counts of the touched
 *   domains and the stored counts of the others, and rewritten where they differ.
 *
 * A stored rank that moved by less than RANK_WRITE_TOLERANCE (relative) is not
 * rewritten: the power iteration stops within its tolerance of the fixed point anyway,
 * and writing every page's rank would make a small import cost a full table rewrite.
 *
 * It falls back to the full recompute when the stored metrics were computed as of another
 * day (the last month of the histories and every live link's end day move with it), when
 * an untouched entity has no stored metrics, or when most root domains were touched.
 */
import type SqliteDatabase from 'better-sqlite3';
import { buildInEdgeCsr } from './csrGraph.js';
import { computeCounters, linkFacts, type Counters } from './counters.js';
import { graphInput, loadAllLinks, loadEntities, selectLinks, type EntityArrays } from './graphLoader.js';
import { levelFlows, rankPages, DAMPING, type MetricsStage } from './linkMetrics.js';
import { linkScore, linkStrength, linkStrengthValue } from './linkStrength.js';
import { entityMetricRow } from './metricsWriter.js';
import { METRICS_AS_OF_KEY, metricsAsOf, recomputeLinkMetrics } from './recomputeLinkMetrics.js';
import { authorityScores, topRanks } from '../authority/authorityScores.js';
import { historyCounts, historyDocuments, type HistoryCounts, type RootHistory } from '../sites/siteHistory.js';
import { ENTITY_METRIC_COLUMNS, LEVEL } from '../researchSchema.js';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayNumber } from '../world/dates.js';

export const RANK_WRITE_TOLERANCE = 1e-3;

export type UpdateStage = MetricsStage | 'load' | 'write';

export interface MetricsUpdate {
  mode: 'incremental' | 'full';
  /** Why the full recompute ran (mode 'full'). */
  reason?: string;
  /** Links read to update counters, scores and flags (all links for a full recompute). */
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

/**
 * Updates the stored link metrics after the links of `touchedRootIds` (root_domains ids:
 * the domains of the sources and targets of every inserted or changed link, and of every
 * new page) changed.
 */
export function updateLinkMetrics(
  raw: SqliteDatabase.Database,
  asOf: number,
  touchedRootIds: Iterable<number>,
  onStage: (stage: UpdateStage) => void = () => {},
): MetricsUpdate {
  const full = (reason: string): MetricsUpdate => fullRecomputeUpdate(raw, asOf, onStage, reason);
  const asOfDay = dayNumber(asOf);
  const storedAsOf = metricsAsOf(raw);
  if (storedAsOf === null || dayNumber(storedAsOf) !== asOfDay) return full('the stored metrics are as of another day');

  onStage('load');
  const e = loadEntities(raw, asOfDay);
  const touched = new Uint8Array(e.rootCount);
  let touchedCount = 0;
  for (const id of touchedRootIds) {
    if (id >= 1 && id <= e.rootCount && !touched[id - 1]) {
      touched[id - 1] = 1;
      touchedCount++;
    }
  }
  if (touchedCount * 2 > e.rootCount) return full('most root domains were touched');
  const stored = loadStoredMetrics(raw, e);
  const [storedPages, storedHosts, storedRoots] = stored;
  const pageIn = (p: number) => touched[e.pageRoot[p]] === 1;
  const hostIn = (h: number) => touched[e.hostRoot[h]] === 1;
  for (let p = 0; p < e.pageCount; p++) if (!storedPages.present[p] && !pageIn(p)) return full('an untouched page has no stored metrics');
  for (let h = 0; h < e.hostCount; h++) if (!storedHosts.present[h] && !hostIn(h)) return full('an untouched host has no stored metrics');
  for (let r = 0; r < e.rootCount; r++) if (!storedRoots.present[r] && !touched[r]) return full('an untouched root domain has no stored metrics');

  // One pass over the link table in id order (a sequential scan, the same read as a full
  // recompute's): the rank-passing edges, the links around the touched domains, and what
  // the score and flag updates below need of the others. Selecting those subsets with
  // SQL instead (UNION … ORDER BY id, IN/NOT IN temp tables) sorted and looked up millions
  // of rows whenever a large domain was touched, which cost more than this scan.
  const all = loadAllLinks(raw, asOfDay);
  const mentionCode = LINK_TYPES.indexOf('mention');
  let edges = 0;
  for (let i = 0; i < all.ids.length; i++) if (all.deleted[i] === 0 && all.nofollow[i] === 0 && all.type[i] !== mentionCode) edges++;
  const src = new Int32Array(edges);
  const dst = new Int32Array(edges);
  for (let i = 0, k = 0; i < all.ids.length; i++) {
    if (all.deleted[i] !== 0 || all.nofollow[i] !== 0 || all.type[i] === mentionCode) continue;
    src[k] = all.source[i];
    dst[k] = all.target[i];
    k++;
  }
  // Ranks: warm-started from the stored ranks (a new page starts at the teleport share, as in a cold start).
  const graph = buildInEdgeCsr(e.pageCount, src, dst);
  const warmPr = new Float64Array(e.pageCount);
  for (let p = 0; p < e.pageCount; p++) warmPr[p] = storedPages.present[p] ? storedPages.pagerank[p] : (1 - DAMPING) / e.pageCount;
  const warmTr = new Float64Array(e.pageCount);
  for (let p = 0; p < e.pageCount; p++) warmTr[p] = storedPages.present[p] ? storedPages.trustrank[p] : 0;
  const pr = normalised(warmPr);
  const tr = normalised(warmTr);
  const ranks = rankPages(e, graph, onStage, pr && tr ? { pagerank: pr, trustrank: tr } : undefined);
  const level = levelFlows(e, ranks);

  // Counters of the touched domains from the links into and out of them.
  onStage('counters');
  const inSub = new Uint8Array(all.ids.length);
  for (let i = 0; i < all.ids.length; i++) inSub[i] = touched[e.pageRoot[all.source[i]]] | touched[e.pageRoot[all.target[i]]];
  const sub = selectLinks(all, inSub);
  const g = graphInput(e, sub);
  const facts = linkFacts(g);
  const counters: Counters[] = [
    computeCounters(g, e.pageCount, null, facts),
    computeCounters(g, e.hostCount, e.pageHost, facts),
    computeCounters(g, e.rootCount, e.pageRoot, facts),
  ];
  const inLevel = [pageIn, hostIn, (r: number) => touched[r] === 1];
  const refDomains = counters.map((c, l) => {
    const merged = new Int32Array(c.ref_domains.length);
    for (let i = 0; i < merged.length; i++) merged[i] = inLevel[l](i) ? c.ref_domains[i] : stored[l].refDomains[i];
    return merged;
  });
  const upa = authorityScores(level.pages.citationFlow, level.pages.trustFlow, refDomains[0]);
  const hostPda = authorityScores(level.hosts.citationFlow, level.hosts.trustFlow, refDomains[1]);
  const pda = authorityScores(level.roots.citationFlow, level.roots.trustFlow, refDomains[2]);
  const topRank = topRanks(pda, level.roots.citationFlow, refDomains[2]);

  // Link scores: the touched domains' links, and the links out of domains whose pages
  // changed flow or whose pda changed (a link's strength follows its source).
  onStage('strength');
  const sourceChanged = new Uint8Array(e.rootCount);
  for (let p = 0; p < e.pageCount; p++) {
    if (touched[e.pageRoot[p]]) continue;
    if (level.pages.citationFlow[p] !== storedPages.citationFlow[p] || level.pages.trustFlow[p] !== storedPages.trustFlow[p]) sourceChanged[e.pageRoot[p]] = 1;
  }
  for (let r = 0; r < e.rootCount; r++) if (!touched[r] && pda[r] !== storedRoots.authority[r]) sourceChanged[r] = 1;
  const newScore = new Map<number, { score: number; strength: number }>();
  const bestTargets = new Uint8Array(e.rootCount);
  const rescore = (id: number, s: number, nofollow: number, deleted: number, type: number, oldScore: number, oldStrength: number, targetRoot: number) => {
    const value = linkStrengthValue(
      level.pages.citationFlow[s],
      level.pages.trustFlow[s],
      pda[e.pageRoot[s]],
      nofollow === 1,
      deleted === 1,
      type === mentionCode,
    );
    const score = linkScore(value);
    const strength = linkStrength(value);
    if (score !== oldScore || strength !== oldStrength) {
      newScore.set(id, { score, strength });
      bestTargets[targetRoot] = 1;
    }
  };
  for (let i = 0; i < sub.ids.length; i++) {
    rescore(sub.ids[i], sub.source[i], sub.nofollow[i], sub.deleted[i], sub.type[i], sub.score[i], sub.strength[i], e.pageRoot[sub.target[i]]);
  }
  let linksRead = sub.ids.length;
  for (let i = 0; i < all.ids.length; i++) {
    if (inSub[i] || !sourceChanged[e.pageRoot[all.source[i]]]) continue;
    rescore(all.ids[i], all.source[i], all.nofollow[i], all.deleted[i], all.type[i], all.score[i], all.strength[i], e.pageRoot[all.target[i]]);
    linksRead++;
  }
  // Touched targets gained or lost links: their flags are recomputed even when no score moved.
  for (let i = 0; i < sub.ids.length; i++) bestTargets[e.pageRoot[sub.target[i]]] ||= touched[e.pageRoot[sub.target[i]]];

  // Best link per (target entity, referring root) among the external links into the
  // target domains above: highest score, then lowest id (the order of linkMetrics.ts).
  // (Indexes into `all`, in id order.)
  const flagRows: number[] = [];
  for (let i = 0; i < all.ids.length; i++) {
    const targetRoot = e.pageRoot[all.target[i]];
    if (bestTargets[targetRoot] && e.pageRoot[all.source[i]] !== targetRoot) flagRows.push(i);
  }
  linksRead += flagRows.length;
  const winners = [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  const scoreOf = (i: number) => newScore.get(all.ids[i])?.score ?? all.score[i];
  for (let k = 0; k < flagRows.length; k++) {
    const i = flagRows[k];
    const sourceRoot = e.pageRoot[all.source[i]];
    const t = all.target[i];
    const keys = [e.pageRoot[t] * e.rootCount + sourceRoot, e.pageHost[t] * e.rootCount + sourceRoot, t * e.rootCount + sourceRoot];
    for (let l = 0; l < 3; l++) {
      const current = winners[l].get(keys[l]);
      if (current === undefined || scoreOf(i) > scoreOf(flagRows[current])) winners[l].set(keys[l], k);
    }
  }
  const flags = new Uint8Array(flagRows.length);
  for (let l = 0; l < 3; l++) for (const k of winners[l].values()) flags[k] |= 1 << l;

  onStage('history');
  const histories = rebuildHistories(raw, g, touched, level.roots.citationFlow, level.roots.trustFlow, pda);
  if (!histories) return full('the stored histories cover other months');

  onStage('write');
  let changedEntities = 0;
  let changedLinks = 0;
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
    const levelData = [
      { l: LEVEL.url, flows: level.pages, authority: upa, topRank: null },
      { l: LEVEL.subdomain, flows: level.hosts, authority: hostPda, topRank: null },
      { l: LEVEL.root, flows: level.roots, authority: pda, topRank },
    ] as const;
    levelData.forEach(({ l, flows, authority, topRank: ranks }, index) => {
      const s = stored[index];
      const values = { ...flows, authority, topRank: ranks, counters: counters[index] };
      const row: (number | string)[] = new Array(ENTITY_METRIC_COLUMNS.length);
      for (let i = 0; i < s.present.length; i++) {
        const tr = ranks ? ranks[i] : 0;
        if (inLevel[index](i)) {
          insertRow.run(entityMetricRow(row, l, i, values));
          changedEntities++;
        } else if (
          flows.citationFlow[i] !== s.citationFlow[i] ||
          flows.trustFlow[i] !== s.trustFlow[i] ||
          authority[i] !== s.authority[i] ||
          tr !== s.topRank[i] ||
          moved(flows.pagerank[i], s.pagerank[i]) ||
          moved(flows.trustrank[i], s.trustrank[i])
        ) {
          updateRow.run(flows.pagerank[i], flows.trustrank[i], flows.citationFlow[i], flows.trustFlow[i], authority[i], tr, l, i + 1);
          changedEntities++;
        }
      }
    });
    for (const [id, v] of newScore) updateScore.run(v.score, v.strength, id);
    const flagged = new Set<number>();
    for (let k = 0; k < flagRows.length; k++) {
      const i = flagRows[k];
      if (all.best[i] === flags[k]) continue;
      updateFlags.run(flags[k] & 1, (flags[k] >> 1) & 1, (flags[k] >> 2) & 1, all.ids[i]);
      flagged.add(all.ids[i]);
    }
    changedLinks = new Set([...newScore.keys(), ...flagged]).size;
    for (const [root, text] of histories) updateHistory.run(root + 1, text);
    raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
    raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)').run(METRICS_AS_OF_KEY, String(asOf));
  })();
  return { mode: 'incremental', linksRead, changedLinks, changedEntities, changedHistories: histories.size, pageRankIterations: ranks.iterations };
}

/**
 * Root histories after the update: the touched domains' monthly counts come from their
 * links (`g` holds every link into them), the others' from their stored histories; every
 * document is rebuilt (flows and TopRank at each month depend on all domains) and the
 * ones that differ from the stored text are returned. Null when a stored history covers
 * other months than the as-of day's.
 */
function rebuildHistories(
  raw: SqliteDatabase.Database,
  g: ReturnType<typeof graphInput>,
  touched: Uint8Array,
  rootCf: Uint8Array,
  rootTf: Uint8Array,
  pda: Uint8Array,
): Map<number, string> | null {
  const fresh = historyCounts(g, touched);
  const { months } = fresh;
  const storedText = new Array<string | undefined>(g.rootCount);
  const counts: HistoryCounts = fresh;
  for (const [id, text] of raw.prepare('SELECT root_domain_id, history FROM root_history').raw().iterate() as IterableIterator<[number, string]>) {
    if (id < 1 || id > g.rootCount) continue;
    storedText[id - 1] = text;
    if (touched[id - 1]) continue;
    const h = JSON.parse(text) as RootHistory;
    if (h.refDomains.length !== months) return null;
    const base = (id - 1) * months;
    for (let m = 0; m < months; m++) {
      counts.domains[base + m] = h.refDomains[m];
      counts.ips[base + m] = h.refIps[m];
      counts.subnets[base + m] = h.refSubnets[m];
      counts.social[base + m] = h.social[m];
    }
  }
  for (let r = 0; r < g.rootCount; r++) if (!touched[r] && storedText[r] === undefined) return null;
  const docs = historyDocuments(counts, g.rootCount, rootCf, rootTf, pda);
  const changed = new Map<number, string>();
  docs.forEach((doc, r) => {
    const text = JSON.stringify(doc);
    if (text !== storedText[r]) changed.set(r, text);
  });
  return changed;
}
