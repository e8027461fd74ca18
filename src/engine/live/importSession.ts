/**
 * Where `quarry import …` writes: the research store a serving process of the data directory
 * loads (generation.ts, liveResearchFile), and what an import does when it has written.
 * It raises the store's data generation, which the processes of this data directory notice
 * within seconds and reload (researchReloads.ts). In scale mode (QUARRY_DATABASE_URL) it
 * also publishes the store to PostgreSQL as that generation and announces it on Redis, so
 * that processes on other hosts fetch it; imports then run one at a time across hosts (an
 * advisory lock), each on top of the newest published generation, so none loses another's data.
 *
 * @example
 * await importSession(config, async (engine) => importLinksCsv(file, { store: engine.store, asOf }));
 */
import type { Config } from '../../config.js';
import { systemClock } from '../../lib/clock.js';
import { progressBars } from '../../lib/progress.js';
import { openRedis, type RedisHandle } from '../../lib/redis.js';
import { openPostgresStateStore, type PostgresStateStore } from '../../store/database.js';
import { ADVISORY_LOCKS } from '../../store/advisoryLock.js';
import { openEngine, type Engine } from '../index.js';
import { researchStoreFile } from '../researchStore.js';
import { bumpGeneration, liveResearchFile } from './generation.js';
import { fetchMissingGeneration } from './researchReloads.js';
import { publishSnapshot, sharedGenerations } from './snapshots.js';

export interface ImportSessionOptions {
  /** Print what happens around the import (fetching, publishing) on stderr. */
  quiet?: boolean;
  /**
   * `quarry world publish`: a new generation even when `fn` changed nothing, and no fetch of
   * a newer published one first (the operator publishes this store as it is).
   */
  publishAsIs?: boolean;
  /** The store to open instead of the live one (a rebuilt `research.db`, published as it is). */
  file?: string;
}

export async function importSession<T>(config: Config, fn: (engine: Engine) => Promise<T>, options: ImportSessionOptions = {}): Promise<T> {
  const say = (line: string) => {
    if (!options.quiet) process.stderr.write(`${line}\n`);
  };
  const baseFile = researchStoreFile(config.dataDir);
  let state: PostgresStateStore | null = null;
  let redis: RedisHandle | null = null;
  let unlock: (() => Promise<void>) | null = null;
  try {
    if (config.databaseUrl) {
      state = await openPostgresStateStore(config.databaseUrl, { max: 2 });
      redis = config.redisUrl ? await openRedis(config.redisUrl, config.redisPrefix) : null;
      const client = await state.pool.connect();
      // Waits for an import running on another host (AdvisoryLock only tries: it is for standbys),
      // however long it runs: this session's wait is not cut by the pool's statement deadline.
      await client.query('SET statement_timeout = 0');
      await client.query('SELECT pg_advisory_lock($1, $2)', [...ADVISORY_LOCKS.researchImports]);
      unlock = async () => {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [...ADVISORY_LOCKS.researchImports]).catch(() => undefined);
        client.release();
      };
      const log = { info: (_: object, msg: string) => say(msg), error: (_: object, msg: string) => say(msg) };
      if (!options.publishAsIs) await fetchMissingGeneration(baseFile, sharedGenerations(state.pool, null), log);
    }
    const engine = await openEngine({ file: options.file ?? liveResearchFile(baseFile), clock: systemClock });
    try {
      const changes = () => engine.store.raw.prepare('SELECT total_changes()').pluck().get() as number;
      const before = changes();
      const result = await fn(engine);
      // A file imported before (skipped) changes nothing: no new generation, no reload anywhere.
      if (changes() === before && !options.publishAsIs) return result;
      if (state) {
        // The published number becomes the store's generation (above every published one).
        const bar = options.quiet ? { listener: () => undefined, stop: () => undefined } : progressBars();
        try {
          const published = await publishSnapshot(state.pool, engine.store.raw, { redis, onProgress: bar.listener });
          bar.stop();
          say(`published research generation ${published} to PostgreSQL; serving processes fetch and load it`);
        } catch (error) {
          bar.stop();
          throw new Error(
            `the data is in ${engine.store.raw.name}, but publishing it to PostgreSQL failed (${(error as Error).message}); run \`quarry world publish\` to share it`,
            { cause: error },
          );
        }
      } else {
        const generation = bumpGeneration(engine.store.raw);
        say(`research store at generation ${generation}; serving processes on this data directory load it within seconds`);
      }
      return result;
    } finally {
      await engine.close();
    }
  } finally {
    await unlock?.();
    await redis?.close();
    await state?.close();
  }
}
