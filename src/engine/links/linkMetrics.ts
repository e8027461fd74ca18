/**
 * All computed link metrics of a research store in one pass over typed arrays:
 * PageRank and TrustRank on the page graph, CitationFlow/TrustFlow per page, host and
 * root domain, authority (upa/pda), TopRank, exact counters, link strength with the
 * best-link-per-referring-domain flags, and monthly root histories.
 *
 * The page graph for PageRank/TrustRank uses live, followed links with an href (nofollow
 * and mentions pass no rank, as search engines document for rel=nofollow), internal
 * links included (they route a site's rank to its pages).
 */
import type { LinkGraphInput } from './linkGraphInput.js';
import { buildInEdgeCsr, tileCsr, type CsrGraph } from './csrGraph.js';
import { pageRank } from './pageRank.js';
import { trustRank } from './trustRank.js';
import { flows } from './flows.js';
import { computeCounters, linkFacts, type Counters, type LinkFacts } from './counters.js';
import { groupByKey } from './grouping.js';
import { linkScore, linkStrength, linkStrengthValue } from './linkStrength.js';
import { authorityScores, topRanks } from '../authority/authorityScores.js';
import { computeRootHistories, type RootHistory } from '../sites/siteHistory.js';

export interface LevelMetrics {
  pagerank: Float64Array;
  trustrank: Float64Array;
  citationFlow: Uint8Array;
  trustFlow: Uint8Array;
  authority: Uint8Array;
  counters: Counters;
}

export interface LinkMetrics {
  pages: LevelMetrics;
  hosts: LevelMetrics;
  roots: LevelMetrics & { topRank: Int32Array };
  linkScore: Int32Array;
  linkStrength: Uint8Array;
  bestRoot: Uint8Array;
  bestHost: Uint8Array;
  bestUrl: Uint8Array;
  histories: RootHistory[];
  pageRankIterations: number;
  /** The rank-passing links as page pairs (cached for the next incremental update: rankEdgeCache.ts). */
  rankEdges: { source: Int32Array; target: Int32Array };
}

export type MetricsStage = 'pagerank' | 'trustrank' | 'counters' | 'strength' | 'history';

/**
 * Rolls page ranks up to hosts and root domains: the sum over an entity's pages of the rank
 * above `floor`. PageRank is the random surfer's stationary distribution (Page et al. 1999),
 * so the sum over a set of pages is the probability of being on that site. The floor
 * ((1 − d)/N for PageRank: the teleport share every page gets with no link at all, as in
 * flows.ts) is left out so that a site does not gain rank from its page count alone,
 * only from the links it receives.
 */
export function aggregate(ranks: Float64Array, floor: number, entityCount: number, entityOfPage: Int32Array): Float64Array {
  const out = new Float64Array(entityCount);
  for (let p = 0; p < ranks.length; p++) out[entityOfPage[p]] += Math.max(0, ranks[p] - floor);
  return out;
}

/**
 * ACRank 0–15 from referring domains: ⌊log2(1 + RefDomains)⌋ capped at 15. Our definition:
 * Majestic, who named the metric, describes it as 0–15 by the number of unique referring
 * root domains but publishes only a threshold table, changed over the years (Majestic SEO
 * glossary, "ACRank"). A log2 keeps that input and range, each level doubling the domains,
 * and needs no table (docs/decisions.md, research engine conventions).
 */
export function acRank(refDomains: number): number {
  return Math.min(15, Math.floor(Math.log2(1 + refDomains)));
}

/** PageRank and TrustRank of the page graph: the graph of the live, followed links with an href. */
export interface PageRanks {
  pagerank: Float64Array;
  trustrank: Float64Array;
  iterations: number;
}

export const DAMPING = 0.85;

/**
 * PageRank and TrustRank over `graph` (the in-edge CSR of the rank-passing links), from
 * `warm` ranks when given (an earlier run's, see pageRank.ts `initial`).
 */
export function rankPages(
  g: Pick<LinkGraphInput, 'pageCount' | 'pageRoot' | 'pageIsHome' | 'rootCount' | 'rootTrusted'>,
  graph: CsrGraph,
  onStage: (stage: MetricsStage) => void = () => {},
  warm?: { pagerank: Float64Array; trustrank: Float64Array },
): PageRanks {
  onStage('pagerank');
  const tiles = tileCsr(graph);
  const pr = pageRank(graph, { damping: DAMPING, tolerance: 1e-7 * Math.max(1, g.pageCount / 1e4), maxIterations: 60, tiles, initial: warm?.pagerank });
  onStage('trustrank');
  // Seeds: homepages of trusted root domains; a trusted domain known only by inner pages
  // (imports) seeds with all of them.
  const seeds: number[] = [];
  const hasHome = new Uint8Array(g.rootCount);
  for (let p = 0; p < g.pageCount; p++) if (g.pageIsHome[p]) hasHome[g.pageRoot[p]] = 1;
  for (let p = 0; p < g.pageCount; p++) {
    const r = g.pageRoot[p];
    if (g.rootTrusted[r] && (g.pageIsHome[p] || !hasHome[r])) seeds.push(p);
  }
  const tr = trustRank(graph, seeds, DAMPING, tiles, warm?.trustrank);
  return { pagerank: pr.ranks, trustrank: tr.ranks, iterations: pr.iterations };
}

/** The edges of an in-edge CSR as (source, target) pairs. */
function csrPairs(graph: CsrGraph): { source: Int32Array; target: Int32Array } {
  const source = graph.sources.slice();
  const target = new Int32Array(graph.edgeCount);
  for (let v = 0; v < graph.nodeCount; v++) target.fill(v, graph.offsets[v], graph.offsets[v + 1]);
  return { source, target };
}

/** Whether link i passes rank: live, followed, with an href (mentions have none). */
export function passesRank(g: Pick<LinkGraphInput, 'linkDeleted' | 'linkNofollow' | 'linkType'>, i: number): boolean {
  return g.linkDeleted[i] === 0 && g.linkNofollow[i] === 0 && g.linkType[i] !== 4;
}

/** Ranks rolled up to hosts and root domains, and the flows of the three levels. */
export interface LevelFlows {
  pages: { pagerank: Float64Array; trustrank: Float64Array; citationFlow: Uint8Array; trustFlow: Uint8Array };
  hosts: { pagerank: Float64Array; trustrank: Float64Array; citationFlow: Uint8Array; trustFlow: Uint8Array };
  roots: { pagerank: Float64Array; trustrank: Float64Array; citationFlow: Uint8Array; trustFlow: Uint8Array };
}

export function levelFlows(g: Pick<LinkGraphInput, 'pageCount' | 'hostCount' | 'rootCount' | 'pageHost' | 'pageRoot'>, ranks: PageRanks): LevelFlows {
  const prFloor = (1 - DAMPING) / Math.max(1, g.pageCount);
  const hostPr = aggregate(ranks.pagerank, prFloor, g.hostCount, g.pageHost);
  const hostTr = aggregate(ranks.trustrank, 0, g.hostCount, g.pageHost);
  const rootPr = aggregate(ranks.pagerank, prFloor, g.rootCount, g.pageRoot);
  const rootTr = aggregate(ranks.trustrank, 0, g.rootCount, g.pageRoot);
  return {
    pages: { pagerank: ranks.pagerank, trustrank: ranks.trustrank, citationFlow: flows(ranks.pagerank, prFloor), trustFlow: flows(ranks.trustrank, 0) },
    hosts: { pagerank: hostPr, trustrank: hostTr, citationFlow: flows(hostPr, 0), trustFlow: flows(hostTr, 0) },
    roots: { pagerank: rootPr, trustrank: rootTr, citationFlow: flows(rootPr, 0), trustFlow: flows(rootTr, 0) },
  };
}

/**
 * The strongest external link (highest score, then lowest index: links are in id order)
 * per (target entity, referring root) at one level: links grouped by target entity, a
 * per-root winner marked by entity.
 */
export function bestLinkFlags(
  g: Pick<LinkGraphInput, 'linkCount' | 'linkTarget' | 'rootCount'>,
  facts: Pick<LinkFacts, 'external' | 'sourceRoot'>,
  score: Int32Array,
  entityCount: number,
  entityOfPage: Int32Array | null,
): Uint8Array {
  const flags = new Uint8Array(g.linkCount);
  const target = new Int32Array(g.linkCount);
  for (let i = 0; i < g.linkCount; i++) target[i] = entityOfPage ? entityOfPage[g.linkTarget[i]] : g.linkTarget[i];
  const groups = groupByKey(entityCount, g.linkCount, target, facts.external);
  const seen = new Int32Array(g.rootCount).fill(-1);
  const winner = new Int32Array(g.rootCount);
  const roots: number[] = [];
  for (let e = 0; e < entityCount; e++) {
    roots.length = 0;
    for (let k = groups.offsets[e]; k < groups.offsets[e + 1]; k++) {
      const i = groups.order[k];
      const sr = facts.sourceRoot[i];
      if (seen[sr] !== e) {
        seen[sr] = e;
        winner[sr] = i;
        roots.push(sr);
      } else if (score[i] > score[winner[sr]]) {
        winner[sr] = i;
      }
    }
    for (const sr of roots) flags[winner[sr]] = 1;
  }
  return flags;
}

/** The link metrics but the root histories (which need the rest: a world build computes both in a worker, metricsWorker.ts). */
export type LinkMetricsWithoutHistories = Omit<LinkMetrics, 'histories'>;

export function computeLinkMetrics(g: LinkGraphInput, onStage: (stage: MetricsStage) => void = () => {}): LinkMetrics {
  const metrics = computeLinkMetricsWithoutHistories(g, onStage);
  onStage('history');
  // The history ends at today's TopRank (the smoother then leads up to it).
  const { roots } = metrics;
  return { ...metrics, histories: computeRootHistories(g, roots.citationFlow, roots.trustFlow, roots.authority, roots.topRank) };
}

export function computeLinkMetricsWithoutHistories(g: LinkGraphInput, onStage: (stage: MetricsStage) => void = () => {}): LinkMetricsWithoutHistories {
  const graph = buildInEdgeCsr(g.pageCount, g.linkSource, g.linkTarget, (i) => passesRank(g, i));
  const ranks = rankPages(g, graph, onStage);
  const level = levelFlows(g, ranks);
  const pr = { ranks: ranks.pagerank, iterations: ranks.iterations };
  const tr = { ranks: ranks.trustrank };
  const [pageCf, pageTf] = [level.pages.citationFlow, level.pages.trustFlow];
  const [hostPr, hostTr, hostCf, hostTf] = [level.hosts.pagerank, level.hosts.trustrank, level.hosts.citationFlow, level.hosts.trustFlow];
  const [rootPr, rootTr, rootCf, rootTf] = [level.roots.pagerank, level.roots.trustrank, level.roots.citationFlow, level.roots.trustFlow];

  onStage('counters');
  const facts = linkFacts(g);
  const pageCounters = computeCounters(g, g.pageCount, null, facts);
  const hostCounters = computeCounters(g, g.hostCount, g.pageHost, facts);
  const rootCounters = computeCounters(g, g.rootCount, g.pageRoot, facts);
  const upa = authorityScores(pageCf, pageTf, pageCounters.ref_domains);
  const hostPda = authorityScores(hostCf, hostTf, hostCounters.ref_domains);
  const pda = authorityScores(rootCf, rootTf, rootCounters.ref_domains);
  const topRank = topRanks(pda, rootCf, rootCounters.ref_domains);

  onStage('strength');
  const score = new Int32Array(g.linkCount);
  const strength = new Uint8Array(g.linkCount);
  for (let i = 0; i < g.linkCount; i++) {
    const s = g.linkSource[i];
    const value = linkStrengthValue(pageCf[s], pageTf[s], pda[g.pageRoot[s]], g.linkNofollow[i] === 1, g.linkDeleted[i] === 1, g.linkType[i] === 4);
    score[i] = linkScore(value);
    strength[i] = linkStrength(value);
  }
  const bestRoot = bestLinkFlags(g, facts, score, g.rootCount, g.pageRoot);
  const bestHost = bestLinkFlags(g, facts, score, g.hostCount, g.pageHost);
  const bestUrl = bestLinkFlags(g, facts, score, g.pageCount, null);

  return {
    pages: { pagerank: pr.ranks, trustrank: tr.ranks, citationFlow: pageCf, trustFlow: pageTf, authority: upa, counters: pageCounters },
    hosts: { pagerank: hostPr, trustrank: hostTr, citationFlow: hostCf, trustFlow: hostTf, authority: hostPda, counters: hostCounters },
    roots: { pagerank: rootPr, trustrank: rootTr, citationFlow: rootCf, trustFlow: rootTf, authority: pda, counters: rootCounters, topRank },
    linkScore: score,
    linkStrength: strength,
    bestRoot,
    bestHost,
    bestUrl,
    pageRankIterations: pr.iterations,
    rankEdges: csrPairs(graph),
  };
}
