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

/**
 * CSR segmenting (Zhang, Kiriansky, Mendis, Amarasinghe, Zaharia 2017, "Making Caches
 * Work for Graph Analytics", IEEE BigData): the in-edges are split by source range into
 * segments whose source data (one float64 per node) fits in a core's L2 cache. Power
 * iteration then processes one segment at a time, so the random reads of per-source
 * contributions hit the cache, and accumulates per target. Within a segment the edges
 * keep their target order.
 */
export interface CsrSegment {
  /** Targets that have in-edges from this segment's sources, ascending. */
  targets: Int32Array;
  /** offsets[j] .. offsets[j + 1] index the in-edges of targets[j] in `sources`. */
  offsets: Int32Array;
  sources: Int32Array;
}

export interface SegmentedCsr {
  segmentSize: number;
  segments: CsrSegment[];
}

export function segmentCsr(graph: CsrGraph, segmentSize: number): SegmentedCsr {
  const count = Math.max(1, Math.ceil(graph.nodeCount / segmentSize));
  const edgesPer = new Int32Array(count);
  const targetsPer = new Int32Array(count);
  const lastTarget = new Int32Array(count).fill(-1);
  const { offsets, sources } = graph;
  for (let v = 0; v < graph.nodeCount; v++) {
    for (let e = offsets[v]; e < offsets[v + 1]; e++) {
      const s = (sources[e] / segmentSize) | 0;
      edgesPer[s]++;
      if (lastTarget[s] !== v) {
        lastTarget[s] = v;
        targetsPer[s]++;
      }
    }
  }
  const segments: CsrSegment[] = [];
  for (let s = 0; s < count; s++) {
    segments.push({ targets: new Int32Array(targetsPer[s]), offsets: new Int32Array(targetsPer[s] + 1), sources: new Int32Array(edgesPer[s]) });
  }
  const edgeCursor = new Int32Array(count);
  const targetCursor = new Int32Array(count);
  lastTarget.fill(-1);
  for (let v = 0; v < graph.nodeCount; v++) {
    for (let e = offsets[v]; e < offsets[v + 1]; e++) {
      const s = (sources[e] / segmentSize) | 0;
      const segment = segments[s];
      if (lastTarget[s] !== v) {
        lastTarget[s] = v;
        segment.targets[targetCursor[s]] = v;
        segment.offsets[targetCursor[s]] = edgeCursor[s];
        targetCursor[s]++;
      }
      segment.sources[edgeCursor[s]++] = sources[e];
    }
  }
  for (let s = 0; s < count; s++) segments[s].offsets[targetsPer[s]] = edgesPer[s];
  return { segmentSize, segments };
}
