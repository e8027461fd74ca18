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
import { segmentCsr, type CsrGraph, type SegmentedCsr } from './csrGraph.js';

export interface PageRankOptions {
  damping?: number;
  /** Stop when the L1 change of one iteration falls below this. */
  tolerance?: number;
  maxIterations?: number;
  /** Teleport distribution (sums to 1); uniform when omitted. */
  teleport?: Float64Array;
  /**
   * Nodes per cache segment (csrGraph.ts segmentCsr); graphs with more nodes are
   * processed segment by segment. 131,072 nodes = 1 MiB of float64 contributions, half
   * of a 2 MiB L2 cache.
   */
  segmentSize?: number;
  /** A segmentation of `graph` computed beforehand (reused across runs, e.g. PageRank then TrustRank). */
  segmented?: SegmentedCsr | null;
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
  const segmentSize = options.segmentSize ?? 131_072;
  const segmented = options.segmented !== undefined ? options.segmented : n > segmentSize ? segmentCsr(graph, segmentSize) : null;
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
    if (segmented === null) {
      for (let v = 0; v < n; v++) {
        let sum = 0;
        const end = offsets[v + 1];
        for (let e = offsets[v]; e < end; e++) sum += contribution[sources[e]];
        next[v] = sum;
      }
    } else {
      next.fill(0);
      for (const segment of segmented.segments) {
        const { targets, offsets: segOffsets, sources: segSources } = segment;
        for (let j = 0; j < targets.length; j++) {
          let sum = 0;
          const end = segOffsets[j + 1];
          for (let e = segOffsets[j]; e < end; e++) sum += contribution[segSources[e]];
          next[targets[j]] += sum;
        }
      }
    }
    for (let v = 0; v < n; v++) {
      const value = (1 - d) * teleport[v] + d * (next[v] + dangling * teleport[v]);
      next[v] = value;
      delta += Math.abs(value - ranks[v]);
    }
    [ranks, next] = [next, ranks];
    iterations++;
  }
  return { ranks, iterations, delta };
}
