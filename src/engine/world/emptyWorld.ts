/**
 * The research store of QUARRY_WORLD_SIZE=none: no sandbox web, nothing invented. The store
 * holds the schema, the search tables and an (empty) rank index of the default market, so
 * every operation answers in the contract's shapes from the first start (empty lists, null
 * figures); providers and imports fill it from then on. Takes well under a second.
 */
import fs from 'node:fs';
import { openResearchStore } from '../researchStore.js';
import { openSearch } from '../search/index.js';
import { DEFAULT_SERP_LOCATION } from '../search/searchEngine.js';
import { isoDay, dayNumber } from './dates.js';
import type { BuiltWorld } from './buildWorld.js';

/** `world_meta.origin` of a store created without a sandbox (engine metadata; `quarry world info`). */
export const NO_SANDBOX_ORIGIN = 'none';

export async function buildEmptyWorld(options: { file: string; asOf: number }): Promise<BuiltWorld> {
  const { file } = options;
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const store = await openResearchStore(file);
  try {
    const meta = store.raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)');
    meta.run('size', 'none');
    meta.run('built_on', isoDay(dayNumber(options.asOf)));
    meta.run('as_of_ms', String(options.asOf));
    meta.run('origin', NO_SANDBOX_ORIGIN);
    // The search tables and the default market's (empty) rank index, stored as a sandbox build stores them.
    await openSearch({ store, clock: { now: () => options.asOf }, rankIndexes: [DEFAULT_SERP_LOCATION] });
    store.raw.prepare("INSERT OR REPLACE INTO world_meta (key, value) VALUES ('state', 'ready')").run();
    store.raw.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    await store.close();
  }
  return { file, keywords: 0, rootDomains: 0, hosts: 0, pages: 0, links: 0, contentHash: null };
}
