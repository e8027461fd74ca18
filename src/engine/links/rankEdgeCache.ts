/**
 * The rank-passing links (graphLoader.ts loadRankEdges) as of the last link metrics
 * update, kept in the research store so that the next incremental update need not read
 * the link table: it takes the cached pairs, removes the changed links' old pairs and adds
 * their new ones (import/linkWriter.ts logs every change in `link_changes`). Reading the
 * pairs of the small world's 1.9 M rank-passing links from the table took a second; the
 * cache is two blobs.
 *
 * A derived cache, so its table is created on first use rather than by a migration, and
 * a store without it (a fresh world, an older store) reads the table once. It is written
 * in the transaction of every metrics update, full or incremental, with the highest link
 * id it covers; a cache whose id and the logged new links do not reach the table's highest
 * id (links written by something that does not log) is not used.
 */
import type SqliteDatabase from 'better-sqlite3';
import { loadRankEdges } from './graphLoader.js';

export interface RankEdges {
  source: Int32Array;
  target: Int32Array;
}

/** What the cache needs of a changed link: its pages, whether it passed rank before (null: it is new) and now. */
export interface RankEdgeChange {
  id: number;
  sourcePage: number;
  targetPage: number;
  /** Null when the import created the link. */
  passedBefore: boolean | null;
  passesNow: boolean;
}

function ensureTable(raw: SqliteDatabase.Database): void {
  raw
    .prepare(
      'CREATE TABLE IF NOT EXISTS rank_edge_cache (id INTEGER PRIMARY KEY CHECK (id = 1), max_link_id INTEGER NOT NULL, sources BLOB NOT NULL, targets BLOB NOT NULL)',
    )
    .run();
}

function int32s(blob: Buffer): Int32Array {
  // A copy: a Buffer's offset in its memory need not be a multiple of 4.
  const bytes = new Uint8Array(blob.byteLength);
  bytes.set(blob);
  return new Int32Array(bytes.buffer);
}

function maxLinkId(raw: SqliteDatabase.Database): number {
  return raw.prepare('SELECT COALESCE(MAX(id), 0) FROM links').pluck().get() as number;
}

/** The current rank-passing links: the cache with `changes` applied, else read from the link table. */
export function currentRankEdges(raw: SqliteDatabase.Database, changes: readonly RankEdgeChange[], pageCount: number): RankEdges {
  ensureTable(raw);
  const cached = raw.prepare('SELECT max_link_id, sources, targets FROM rank_edge_cache WHERE id = 1').raw().get() as [number, Buffer, Buffer] | undefined;
  if (cached) {
    let reach = cached[0];
    const removed = new Map<number, number>();
    const added: number[] = [];
    for (const c of changes) {
      if (c.passedBefore === null) reach = Math.max(reach, c.id);
      if (c.passedBefore) removed.set(c.sourcePage * pageCount + c.targetPage, (removed.get(c.sourcePage * pageCount + c.targetPage) ?? 0) + 1);
      if (c.passesNow) added.push(c.sourcePage, c.targetPage);
    }
    if (reach === maxLinkId(raw)) {
      const [source, target] = [int32s(cached[1]), int32s(cached[2])];
      const n = source.length - [...removed.values()].reduce((a, b) => a + b, 0) + added.length / 2;
      const out = { source: new Int32Array(Math.max(0, n)), target: new Int32Array(Math.max(0, n)) };
      let k = 0;
      for (let i = 0; i < source.length; i++) {
        const key = source[i] * pageCount + target[i];
        const left = removed.get(key);
        if (left) {
          removed.set(key, left - 1);
          continue;
        }
        if (k === n) break;
        out.source[k] = source[i];
        out.target[k] = target[i];
        k++;
      }
      for (let j = 0; j < added.length && k < n; j += 2, k++) {
        out.source[k] = added[j];
        out.target[k] = added[j + 1];
      }
      // Every removed pair was found: the cache matched the table.
      if (k === n && [...removed.values()].every((left) => left === 0)) return out;
    }
  }
  return loadRankEdges(raw);
}

/** Stores `edges` as the rank-passing links of the link table now; call it in the metrics update's transaction. */
export function storeRankEdges(raw: SqliteDatabase.Database, edges: RankEdges): void {
  ensureTable(raw);
  const blob = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  raw
    .prepare('INSERT OR REPLACE INTO rank_edge_cache (id, max_link_id, sources, targets) VALUES (1, ?, ?, ?)')
    .run(maxLinkId(raw), blob(edges.source), blob(edges.target));
}
