/**
 * Grouping of links by an integer key with a counting sort (Knuth, TAOCP vol. 3,
 * §5.2 "Sorting by counting"): O(n + keys), stable, no comparisons. The metrics use it
 * to visit the links of each target (or source) entity together and count distinct
 * referring domains, IPs and subnets with marker arrays instead of sorting pairs.
 */
export interface Groups {
  /** Link indexes, grouped by key (stable within a group). */
  order: Int32Array;
  /** offsets[k] .. offsets[k + 1] index the group of key k in `order`. */
  offsets: Int32Array;
}

export function groupByKey(keyCount: number, itemCount: number, keyOf: Int32Array, include?: Uint8Array): Groups {
  const offsets = new Int32Array(keyCount + 1);
  for (let i = 0; i < itemCount; i++) if (!include || include[i]) offsets[keyOf[i] + 1]++;
  for (let k = 0; k < keyCount; k++) offsets[k + 1] += offsets[k];
  const cursor = offsets.slice(0, keyCount);
  const order = new Int32Array(offsets[keyCount]);
  for (let i = 0; i < itemCount; i++) if (!include || include[i]) order[cursor[keyOf[i]]++] = i;
  return { order, offsets };
}
