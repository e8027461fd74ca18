/**
 * The scale mode's research store at the start of `quarry serve`: a process on a new host
 * fetches the newest published generation instead of building a sandbox web of its own, and
 * the first process of a deployment publishes what it has, so that other hosts can fetch it.
 */
import type { Config } from '../../config.js';
import { openPostgresStateStore, type StateStore } from '../../store/database.js';
import type { RedisHandle } from '../../lib/redis.js';
import type { LiveResearch } from './liveResearch.js';
import type { ResearchSet } from './researchSet.js';
import { fetchMissingGeneration, type ReloadLogger } from './researchReloads.js';
import { publishSnapshot, sharedGenerations } from './snapshots.js';

/** Fetches the newest published generation into the data directory when it lacks it. */
export async function fetchPublishedResearch(config: Config, baseFile: string, log?: ReloadLogger): Promise<void> {
  if (!config.databaseUrl) return;
  const state = await openPostgresStateStore(config.databaseUrl, { max: 2 });
  try {
    await fetchMissingGeneration(baseFile, sharedGenerations(state.pool, null), log);
  } finally {
    await state.close();
  }
}

/** Publishes the loaded store as the first generation when none is published yet; answers its number, or null. */
export async function publishFirstGeneration(state: StateStore, redis: RedisHandle | null, live: LiveResearch<ResearchSet>): Promise<number | null> {
  if (state.dialect !== 'postgres') return null;
  if ((await sharedGenerations(state.pool, null).latest()) !== null) return null;
  const set = live.current;
  const generation = await publishSnapshot(state.pool, set.engine.store.raw, { redis });
  // The store now carries the published number; the loaded set holds that very data, so the
  // reloads must not take the change for a new import.
  set.generation = generation;
  return generation;
}
