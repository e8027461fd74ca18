/** The best-scored documents of a query, without sorting every match (bm25Index.ts). */

/**
 * The `k` docs with the highest scores (`score[2·doc]`), best first (ties: lower doc first),
 * by a bounded min-heap: O(n log k) instead of sorting every matching document. The heap
 * keeps its docs' scores beside them, so the usual case (a doc below the heap's worst) is
 * one comparison.
 */
export function selectTop(docs: Int32Array, count: number, score: Float64Array, k: number): Int32Array {
  const size = Math.min(k, count);
  const heap = new Int32Array(size);
  const heapScore = new Float64Array(size);
  let n = 0;
  for (let i = 0; i < count; i++) {
    const doc = docs[i];
    const s = score[2 * doc];
    if (n < size) {
      // Sift up: the new doc rises while it is worse (lower score, or equal and higher doc) than its parent.
      let j = n++;
      while (j > 0) {
        const p = (j - 1) >> 1;
        if (!(s < heapScore[p] || (s === heapScore[p] && doc > heap[p]))) break;
        heap[j] = heap[p];
        heapScore[j] = heapScore[p];
        j = p;
      }
      heap[j] = doc;
      heapScore[j] = s;
    } else if (size > 0 && (heapScore[0] < s || (heapScore[0] === s && heap[0] > doc))) {
      // Replaces the worst and sifts it down to where its children are no worse than it.
      let j = 0;
      for (;;) {
        const l = 2 * j + 1;
        if (l >= n) break;
        const r = l + 1;
        let m = l;
        if (r < n && (heapScore[r] < heapScore[l] || (heapScore[r] === heapScore[l] && heap[r] > heap[l]))) m = r;
        if (!(heapScore[m] < s || (heapScore[m] === s && heap[m] > doc))) break;
        heap[j] = heap[m];
        heapScore[j] = heapScore[m];
        j = m;
      }
      heap[j] = doc;
      heapScore[j] = s;
    }
  }
  const out = Array.from(heap.subarray(0, n));
  out.sort((a, b) => score[2 * b] - score[2 * a] || a - b);
  return Int32Array.from(out);
}
