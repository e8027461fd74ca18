/**
 * Compressed sparse row adjacency in typed arrays (Int32Array offsets/sources), stored
 * by target ("pull" form): the in-edges of node v are sources[offsets[v] .. offsets[v+1]).
 * Power iteration then reads each edge once per iteration, sequentially.
 */
export interface CsrGraph {
  nodeCount: number;
  edgeCount: number;
  /** offsets[v] .. offsets[v + 1] index the in-edges of v in `sources`; length nodeCount + 1. */
  offsets: Int32Array;
  sources: Int32Array;
  /** Out-degree of every node over the included edges. */
  outDegree: Int32Array;
}

/**
 * Builds the in-edge CSR of the edges `source[i] → target[i]` for which `include(i)` is
 * true (counting sort by target: two passes, O(n + m)).
 */
export function buildInEdgeCsr(
  nodeCount: number,
  source: Int32Array,
  target: Int32Array,
  include: (edge: number) => boolean = () => true,
): CsrGraph {
  const offsets = new Int32Array(nodeCount + 1);
  const outDegree = new Int32Array(nodeCount);
  let edgeCount = 0;
  for (let i = 0; i < source.length; i++) {
    if (!include(i)) continue;
    offsets[target[i] + 1]++;
    outDegree[source[i]]++;
    edgeCount++;
  }
  for (let v = 0; v < nodeCount; v++) offsets[v + 1] += offsets[v];
  const cursor = offsets.slice(0, nodeCount);
  const sources = new Int32Array(edgeCount);
  for (let i = 0; i < source.length; i++) {
    if (!include(i)) continue;
    sources[cursor[target[i]]++] = source[i];
  }
  return { nodeCount, edgeCount, offsets, sources, outDegree };
}
