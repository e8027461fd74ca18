/**
 * TrustRank (Gyöngyi, Garcia-Molina, Pedersen 2004, "Combating Web Spam with TrustRank"):
 * trust flows from a seed set of good pages along links, attenuated by the damping
 * factor at each step, so spam pages — rarely linked from good ones — score near zero.
 *
 * The paper selects seeds by inverse PageRank and manual review; the sandbox web knows
 * which sites are trustworthy (.edu, .gov, the large wikis and part of the news sites,
 * flagged `trusted` on their root domains), and imports keep the same rule by TLD. The
 * seed pages are the homepages of trusted root domains, weighted uniformly.
 */
import type { CsrGraph, TiledCsr } from './csrGraph.js';
import { pageRank, type PageRankResult } from './pageRank.js';

export function trustRank(
  graph: CsrGraph,
  seedNodes: readonly number[] | Int32Array,
  damping = 0.85,
  tiles?: TiledCsr,
  initial?: Float64Array,
): PageRankResult {
  const teleport = new Float64Array(graph.nodeCount);
  if (seedNodes.length === 0) return { ranks: teleport, iterations: 0, delta: 0 };
  for (const node of seedNodes) teleport[node] += 1 / seedNodes.length;
  return pageRank(graph, { damping, teleport, tolerance: 1e-10, tiles, initial });
}
