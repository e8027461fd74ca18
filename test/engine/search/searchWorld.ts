/**
 * A search engine over the tiny sandbox world for tests: the world is built once per
 * (seed, generator version) into the temp directory and reused by later runs; each
 * caller gets its own copy of the file, so the search tables it writes stay private.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openResearchStore, type ResearchStore } from '../../../src/engine/researchStore.js';
import { buildWorld, GENERATOR_VERSION } from '../../../src/engine/world/buildWorld.js';
import { openSearch } from '../../../src/engine/search/index.js';
import type { SearchEngine } from '../../../src/engine/search/searchEngine.js';
import { FakeClock } from '../../../src/lib/clock.js';

/** The build date of test worlds. */
export const WORLD_AS_OF = Date.UTC(2026, 10, 22, 12, 0, 0);

async function builtTinyWorld(seed: number): Promise<string> {
  const dir = path.join(os.tmpdir(), 'quarry-search-tests');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `tiny-${seed}-v${GENERATOR_VERSION}.db`);
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.building`;
    await buildWorld({ size: 'tiny', seed, file: partial, asOf: WORLD_AS_OF });
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${partial}${suffix}`, { force: true });
    fs.renameSync(partial, file);
  }
  return file;
}

export interface TestSearch {
  search: SearchEngine;
  clock: FakeClock;
  store: ResearchStore;
  close(): Promise<void>;
}

export async function openTinySearch(seed = 1): Promise<TestSearch> {
  const source = await builtTinyWorld(seed);
  const copy = path.join(os.tmpdir(), 'quarry-search-tests', `copy-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.db`);
  fs.copyFileSync(source, copy);
  const store = await openResearchStore(copy);
  const clock = new FakeClock(WORLD_AS_OF);
  const search = await openSearch({ store, clock });
  return {
    search,
    clock,
    store,
    close: async () => {
      await store.close();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${copy}${suffix}`, { force: true });
    },
  };
}

/** Spearman's rank correlation (average ranks for ties). */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rank = (v: readonly number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length; ) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const rx = rank(xs);
  const ry = rank(ys);
  const mean = (rx.length + 1) / 2;
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i] - mean) * (ry[i] - mean);
    dx += (rx[i] - mean) ** 2;
    dy += (ry[i] - mean) ** 2;
  }
  return num / Math.sqrt(dx * dy);
}
