/**
 * How far V8 lets the server's heap grow past what is alive before it collects it all.
 *
 * V8 collects the old space lazily: after a full collection it lets the heap grow to up to
 * about 4× what survived (its "heap growing factor"), under a limit of about 4 GB on a machine
 * of 16 GB or more. Bulk answers (lists, CSVs, exports, stats) are built over many turns of
 * the event loop, so their short-lived objects survive young collections and pile up in the
 * old space as garbage. Measured in bench:fairness (small world): ~330–360 MiB alive after a
 * full collection, the old space grown to ~940 MiB before the next one, 1.28–1.76 GiB of
 * anonymous memory at the peak (docs/decisions.md, "The server's heap grows to 1.5× its live
 * size"). A growing factor of 1.5 collects sooner; unlike a cap on the old space
 * (`--max-old-space-size`) it bounds nothing absolutely, so a burst that really needs more
 * memory gets it instead of crashing the process.
 */
import v8 from 'node:v8';

/** The heap may grow to (100 + this) % of its live size before a full collection. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The V8 flag to set, or null when the operator's own Node options (`execArgv`, NODE_OPTIONS)
 * already set the growing factor: theirs wins.
 */
export function heapGrowingFlag(nodeOptions: readonly string[]): string | null {
  const given = nodeOptions.some((o) => /^--heap[-_]growing[-_]percent\b/.test(o));
  return given ? null : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/**
 * Applies the growing factor to this process. V8 reads the flag at each full collection, so
 * setting it at run time takes effect (unlike the heap's size limits, fixed at start).
 */
export function boundHeapGrowth(): void {
  const flag = heapGrowingFlag([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]);
  if (flag !== null) v8.setFlagsFromString(flag);
}
