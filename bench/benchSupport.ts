/**
 * What the benchmarks share: the date their worlds are as of, the worlds themselves and
 * percentiles. Worlds live in `.bench-data/` (gitignored): `bench:engine-world` builds the
 * `small` one; the tiny one is built here the first time a bench needs it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildWorld } from '../src/engine/world/buildWorld.js';

/** The fake clock's "now" of every bench world. */
export const BENCH_AS_OF = Date.UTC(2026, 10, 22, 12);

const BENCH_DATA = path.resolve('.bench-data');

/** The bench's tiny sandbox web, `.bench-data/search-tiny.db`, built when missing. */
export async function tinyBenchWorld(): Promise<string> {
  const tiny = path.join(BENCH_DATA, 'search-tiny.db');
  if (!fs.existsSync(tiny)) {
    fs.mkdirSync(BENCH_DATA, { recursive: true });
    await buildWorld({ size: 'tiny', seed: 1, file: tiny, asOf: BENCH_AS_OF });
  }
  return tiny;
}

/** The `small` world that `npm run bench:engine-world` builds (`.bench-data/world-small-s<seed>.db`), if there is one. */
export function smallBenchWorld(): string | undefined {
  const small = fs.existsSync(BENCH_DATA) ? fs.readdirSync(BENCH_DATA).find((f) => f.startsWith('world-small') && f.endsWith('.db')) : undefined;
  return small === undefined ? undefined : path.join(BENCH_DATA, small);
}

/** $QUARRY_BENCH_WORLD, else the `small` world, else the tiny one. */
export async function largestBenchWorld(): Promise<string> {
  return process.env.QUARRY_BENCH_WORLD ?? smallBenchWorld() ?? (await tinyBenchWorld());
}

/** The p-th percentile (0–100) of the samples, by nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}
