/**
 * PageRank by power iteration (Page, Brin, Motwani, Winograd 1999, "The PageRank Citation
 * Ranking: Bringing Order to the Web", Stanford InfoLab):
 *
 *   r'(v) = (1 − d) · t(v) + d · ( Σ_{u→v} r(u) / out(u)  +  D · t(v) )
 *
 * where d is the damping factor (0.85 in the paper), t the teleport distribution
 * (uniform 1/N for PageRank) and D the rank mass on dangling nodes (no out-links), which
 * is redistributed along t so that the ranks keep summing to 1.
 *
 * TrustRank (Gyöngyi, Garcia-Molina, Pedersen 2004, "Combating Web Spam with TrustRank",
 * VLDB) is the same iteration with t concentrated on a hand-checked seed set of trusted
 * pages ("biased PageRank", their Algorithm 2); see trustRank.ts.
 */
import type { CsrGraph } from './csrGraph.js';

export interface PageRankOptions {
  damping?: number;
  /** Stop when the L1 change of one iteration falls below this. */
  tolerance?: number;
  maxIterations?: number;
  /** Teleport distribution (sums to 1); uniform when omitted. */
  teleport?: Float64Array;
}

export interface PageRankResult {
  ranks: Float64Array;
  iterations: number;
  /** L1 change of the last iteration. */
  delta: number;
}

export function pageRank(graph: CsrGraph, options: PageRankOptions = {}): PageRankResult {
  const n = graph.nodeCount;
  const d = options.damping ?? 0.85;
  const tolerance = options.tolerance ?? 1e-9;
  const maxIterations = options.maxIterations ?? 100;
  const { offsets, sources, outDegree } = graph;
  if (n === 0) return { ranks: new Float64Array(0), iterations: 0, delta: 0 };
  const teleport = options.teleport ?? new Float64Array(n).fill(1 / n);
  let ranks = new Float64Array(teleport);
  let next = new Float64Array(n);
  const contribution = new Float64Array(n);
  let iterations = 0;
  let delta = Infinity;
  while (iterations < maxIterations && delta > tolerance) {
    let dangling = 0;
    for (let u = 0; u < n; u++) {
      const deg = outDegree[u];
      if (deg === 0) {
        dangling += ranks[u];
        contribution[u] = 0;
      } else {
        contribution[u] = ranks[u] / deg;
      }
    }
    delta = 0;
    for (let v = 0; v < n; v++) {
      let sum = 0;
      const end = offsets[v + 1];
      for (let e = offsets[v]; e < end; e++) sum += contribution[sources[e]];
      const value = (1 - d) * teleport[v] + d * (sum + dangling * teleport[v]);
      next[v] = value;
      delta += Math.abs(value - ranks[v]);
    }
    [ranks, next] = [next, ranks];
    iterations++;
  }
  return { ranks, iterations, delta };
}
