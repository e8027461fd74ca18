/**
 * One loaded generation of the research data: the engine over the store file, its search
 * half with the default market's rank index in memory, and the configured sources over both.
 * The service opens one at start and, on each new generation, another beside it
 * (liveResearch.ts).
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Clock } from '../../lib/clock.js';
import type { ProgressListener } from '../../lib/progress.js';
import type { LocationRegistry } from '../../locations/registry.js';
import type { StateDatabase } from '../../store/schema.js';
import { openEngine } from '../index.js';
import { reloadSearchKeywords, type SearchEngine } from '../search/index.js';
import { createSources, type EngineSources, type SourcesConfig } from '../sources/index.js';
import { generationOf } from './generation.js';
import type { EngineSet } from './engineSet.js';

/** The engine plus what the API answers from besides (engineSet.ts has the engine alone). */
export interface ResearchSet extends EngineSet {
  search: SearchEngine;
  sources: EngineSources;
}

export interface ResearchSetOptions {
  clock: Clock;
  sources: SourcesConfig;
  state: Kysely<StateDatabase>;
  locations: LocationRegistry;
  onProgress?: ProgressListener;
}

export async function openResearchSet(file: string, options: ResearchSetOptions): Promise<ResearchSet> {
  const engine = await openEngine({ file, clock: options.clock, onProgress: options.onProgress });
  try {
    // The facade opens the search half once, with the default market's rank index loaded.
    const search = await engine.search();
    const asOfMs = engine.metadata().asOfMs;
    const sources = createSources(options.sources, {
      search,
      links: engine.links,
      authority: engine.authority,
      research: engine.store,
      reloadKeywords: () => reloadSearchKeywords(search, engine.store),
      state: options.state,
      locations: options.locations,
      clock: options.clock,
      metricsTs: asOfMs === null ? 0 : Math.floor(asOfMs / 1000),
    });
    return { file, ino: fs.statSync(file).ino, generation: generationOf(engine.store.raw), engine, search, sources, close: () => engine.close() };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
