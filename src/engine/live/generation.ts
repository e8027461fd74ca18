/**
 * The research store's data generation: a number in `world_meta` that every import raises
 * when it has written its data (and that a published snapshot carries, see snapshots.ts).
 * A serving process compares it with the generation it loaded to know that its in-memory
 * indexes are out of date (watcher.ts); writes of the process itself (rank indexes it
 * builds, keyword fills) do not raise it.
 *
 * @example
 * bumpGeneration(engine.store.raw);          // at the end of `quarry import links`
 * peekGeneration(liveResearchFile(researchStoreFile(dataDir)));  // { generation: 4, ready: true, ino: 1234 }
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

export const GENERATION_KEY = 'data_generation';

/** The generation a research store holds (0 before its first import). */
export function generationOf(raw: SqliteDatabase.Database): number {
  const value = raw.prepare('SELECT value FROM world_meta WHERE key = ?').pluck().get(GENERATION_KEY) as string | undefined;
  return value === undefined ? 0 : Number(value);
}

/** Sets the generation (a snapshot's number, assigned by the shared store). */
export function setGeneration(raw: SqliteDatabase.Database, generation: number): void {
  raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)').run(GENERATION_KEY, String(generation));
}

/** Raises the generation by one and answers the new one: an import has finished writing. */
export function bumpGeneration(raw: SqliteDatabase.Database): number {
  return raw
    .transaction(() => {
      const next = generationOf(raw) + 1;
      setGeneration(raw, next);
      return next;
    })
    .immediate();
}

export interface GenerationPeek {
  generation: number;
  /** Whether the file holds a completely built or imported world. */
  ready: boolean;
  /** The file's inode: a rebuild (`world build --force`) puts a new file in place with the same name. */
  ino: number;
}

/**
 * Reads a store's generation on a connection of its own, opened and closed here: cheap (one
 * row), and it sees the file now at that path, also when it was replaced since.
 */
export function peekGeneration(file: string): GenerationPeek | null {
  let ino: number;
  try {
    ino = fs.statSync(file).ino;
  } catch {
    return null;
  }
  try {
    const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT key, value FROM world_meta WHERE key IN (?, ?)').all(GENERATION_KEY, 'state') as { key: string; value: string }[];
      const meta = new Map(rows.map((r) => [r.key, r.value]));
      return { generation: Number(meta.get(GENERATION_KEY) ?? 0), ready: meta.get('state') === 'ready', ino };
    } finally {
      db.close();
    }
  } catch {
    // Half-built, or not a research store: nothing to load.
    return null;
  }
}

/** A generation fetched from the shared store lives in a file of its own (see liveResearchFile). */
const FETCHED = /^research\.g(\d+)\.db$/;

/** Where generation `generation` fetched beside `baseFile` (`<data dir>/research.db`) goes. */
export function fetchedResearchFile(baseFile: string, generation: number): string {
  return path.join(path.dirname(baseFile), `research.g${generation}.db`);
}

/** The generation files fetched beside `baseFile`, newest first. */
export function fetchedResearchFiles(baseFile: string): { file: string; generation: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(baseFile));
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, match: FETCHED.exec(name) }))
    .filter((n) => n.match !== null)
    .map((n) => ({ file: path.join(path.dirname(baseFile), n.name), generation: Number(n.match![1]) }))
    .sort((a, b) => b.generation - a.generation);
}

/**
 * The research store a process loads and an import writes into: the newest generation
 * fetched from the shared store (scale mode) beside `baseFile`, else `baseFile` itself
 * (`<data dir>/research.db`). A fetched generation is not renamed onto `research.db`: that
 * file is open while the new one loads, and SQLite finds its `-wal` and `-shm` files by
 * name, so the old and the new database would share them.
 */
export function liveResearchFile(baseFile: string): string {
  return fetchedResearchFiles(baseFile)[0]?.file ?? baseFile;
}
