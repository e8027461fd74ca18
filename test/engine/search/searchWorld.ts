/**
 * A search engine over a private copy of a shared sandbox world (test/support/world.ts),
 * so that the search tables it writes stay private.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openResearchStore, type ResearchStore } from '../../../src/engine/researchStore.js';
import { openSearch } from '../../../src/engine/search/index.js';
import type { SearchEngine } from '../../../src/engine/search/searchEngine.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { copyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';
import type { WorldSize } from '../../../src/config.js';

export interface TestSearch {
  search: SearchEngine;
  clock: FakeClock;
  store: ResearchStore;
  close(): Promise<void>;
}

/**
 * `withoutRankIndexes`: forget the rank indexes the build stored, as in a world that has
 * none yet (an imported one), to see what the engine does while it ranks.
 */
export function openTinySearch(seed = 1, options: { withoutRankIndexes?: boolean } = {}): Promise<TestSearch> {
  return openWorldSearch('tiny', seed, options);
}

export async function openWorldSearch(size: WorldSize, seed = 1, options: { withoutRankIndexes?: boolean } = {}): Promise<TestSearch> {
  const copy = await copyWorld(size, seed);
  const store = await openResearchStore(copy);
  if (options.withoutRankIndexes) store.raw.prepare('DELETE FROM search_rank_index').run();
  const clock = new FakeClock(TINY_WORLD_AS_OF);
  const search = await openSearch({ store, clock });
  return {
    search,
    clock,
    store,
    close: async () => {
      await store.close();
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    },
  };
}

/** Spearman's rank correlation (average ranks for ties). */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rank = (v: readonly number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length;) {
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
