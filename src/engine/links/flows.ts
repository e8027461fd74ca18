/**
 * CitationFlow and TrustFlow: 0–100 log-scaled scores of PageRank and TrustRank.
 *
 * Link-index vendors publish these as "a logarithmic scale of 0–100" over their
 * citation (PageRank-like) and trust (TrustRank-like) computations (Majestic,
 * "Flow Metric Scores" glossary). We use
 *
 *   flow(x) = round(100 · ln(1 + x / x₀) / ln(1 + x_max / x₀)),  x = N · (rank − floor)
 *
 * where N is the number of nodes (so x = 1 is an average node), `floor` the rank every
 * node receives by teleport alone ((1 − d)/N for PageRank, 0 for TrustRank), and x_max
 * the largest x of the population. The map is strictly increasing in rank, gives 0 to
 * nodes nothing links to and 100 to the strongest node.
 */
export interface FlowScale {
  nodeCount: number;
  floor: number;
  xMax: number;
  x0: number;
}

export function flowScale(ranks: Float64Array, floor: number, x0 = 0.05): FlowScale {
  const n = ranks.length;
  let max = 0;
  for (let i = 0; i < n; i++) if (ranks[i] > max) max = ranks[i];
  return { nodeCount: n, floor, xMax: Math.max(1e-12, n * (max - floor)), x0 };
}

/** The flow before rounding (0–100). */
export function flowValue(rank: number, scale: FlowScale): number {
  const x = Math.max(0, scale.nodeCount * (rank - scale.floor));
  return (100 * Math.log1p(x / scale.x0)) / Math.log1p(scale.xMax / scale.x0);
}

/** A 0–100 score from its value before rounding. */
export function roundScore(value: number): number {
  return Math.max(0, Math.min(100, Math.round(value)));
}

export function flowOf(rank: number, scale: FlowScale): number {
  return roundScore(flowValue(rank, scale));
}

/** Flows of every node. */
export function flows(ranks: Float64Array, floor: number): Uint8Array {
  const scale = flowScale(ranks, floor);
  const out = new Uint8Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) out[i] = flowOf(ranks[i], scale);
  return out;
}

/** Flows of every node before rounding (the incremental update compares them with the stored scores). */
export function flowValues(ranks: Float64Array, floor: number): Float64Array {
  const scale = flowScale(ranks, floor);
  const out = new Float64Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) out[i] = flowValue(ranks[i], scale);
  return out;
}
