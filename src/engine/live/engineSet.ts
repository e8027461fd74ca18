/**
 * One loaded generation of the research data as background jobs read it: the engine over
 * the store file (links, authority, sites) and nothing else. A backlink export reads links
 * and pages only; the search half (page texts, keyword catalogue, rank indexes: hundreds of
 * MiB on `small`) is what the API's set adds on top (researchSet.ts), and a `quarry worker`
 * process never opens it.
 */
import fs from 'node:fs';
import type { Clock } from '../../lib/clock.js';
import { openEngine, type Engine } from '../index.js';
import { generationOf } from './generation.js';
import type { LoadedSet } from './liveResearch.js';

export interface EngineSet extends LoadedSet {
  engine: Engine;
}

/** Opens the engine of a store file, its search half left closed. */
export async function openEngineSet(file: string, options: { clock: Clock }): Promise<EngineSet> {
  const engine = await openEngine({ file, clock: options.clock });
  try {
    return { file, ino: fs.statSync(file).ino, generation: generationOf(engine.store.raw), engine, close: () => engine.close() };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
