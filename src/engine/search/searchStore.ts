/**
 * The search engine's own tables in the research store: issued keyword ids, the text index,
 * the rank index and its candidates. They have their own migration history
 * (table `search_migration`), so the engine's schema evolves without touching the
 * sandbox web's migrations (engine/researchStore.ts) and the other way round.
 *
 * Queries run through better-sqlite3 prepared statements: they are hot (every related
 * keywords lookup records its ids) and synchronous SQLite is fastest without a pool.
 */
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, sql, type Migration } from 'kysely';
import type { Bm25Parts } from './bm25Index.js';
import type { StoredCandidates } from './rankCandidates.js';

export const searchMigrations: Record<string, Migration> = {
  '0001_search_tables': {
    async up(db: Kysely<any>) {
      await sql`CREATE TABLE search_keyword_refs (
        id TEXT PRIMARY KEY, kw TEXT NOT NULL, location_id INTEGER NOT NULL, language_id INTEGER NOT NULL
      ) WITHOUT ROWID`.execute(db);
      await sql`CREATE TABLE search_difficulty (
        kw TEXT NOT NULL, location_id INTEGER NOT NULL, seo INTEGER NOT NULL, seo_ts INTEGER NOT NULL,
        PRIMARY KEY (kw, location_id)
      ) WITHOUT ROWID`.execute(db);
      await sql`CREATE TABLE search_rank_builds (
        location_id INTEGER PRIMARY KEY, date TEXT NOT NULL, built_at INTEGER NOT NULL, keywords INTEGER NOT NULL
      )`.execute(db);
      await sql`CREATE TABLE search_rank_positions (
        location_id INTEGER NOT NULL, keyword_id INTEGER NOT NULL, position INTEGER NOT NULL, page_id INTEGER NOT NULL,
        PRIMARY KEY (location_id, keyword_id, position)
      ) WITHOUT ROWID`.execute(db);
    },
  },
};

/** The stored BM25 index of the pages (see loadSearchCorpus.ts), one row per array. */
searchMigrations['0002_search_text_index'] = {
  async up(db: Kysely<any>) {
    await sql`CREATE TABLE search_text_index (
      part TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, data BLOB NOT NULL
    )`.execute(db);
  },
};

/**
 * The rank index as blobs, one row per location: parallel arrays of research-store
 * keyword ids, positions and page ids (loading 2.7M rows as rows took seconds).
 */
searchMigrations['0003_search_rank_blobs'] = {
  async up(db: Kysely<any>) {
    await sql`CREATE TABLE search_rank_index (
      location_id INTEGER PRIMARY KEY, date TEXT NOT NULL, built_at INTEGER NOT NULL, keywords INTEGER NOT NULL,
      keyword_ids BLOB NOT NULL, positions BLOB NOT NULL, page_ids BLOB NOT NULL
    )`.execute(db);
    // Carry over indexes built before (a small world's takes minutes to rebuild).
    const builds = await sql<RankBuild>`SELECT location_id AS "locationId", date, built_at AS "builtAt", keywords FROM search_rank_builds`.execute(db);
    for (const build of builds.rows) {
      const rows = await sql<{ k: number; p: number; g: number }>`SELECT keyword_id AS k, position AS p, page_id AS g
        FROM search_rank_positions WHERE location_id = ${build.locationId} ORDER BY keyword_id, position`.execute(db);
      const n = rows.rows.length;
      const keywordIds = new Int32Array(n);
      const positions = new Uint8Array(n);
      const pageIds = new Int32Array(n);
      rows.rows.forEach((r, i) => {
        keywordIds[i] = r.k;
        positions[i] = r.p;
        pageIds[i] = r.g;
      });
      await sql`INSERT INTO search_rank_index (location_id, date, built_at, keywords, keyword_ids, positions, page_ids)
        VALUES (${build.locationId}, ${build.date}, ${build.builtAt}, ${build.keywords}, ${bytesOf(keywordIds)}, ${Buffer.from(positions)}, ${bytesOf(pageIds)})`.execute(
        db,
      );
    }
    await sql`DROP TABLE search_rank_positions`.execute(db);
    await sql`DROP TABLE search_rank_builds`.execute(db);
  },
};

/**
 * The rank index's BM25 candidates per keyword (rankCandidates.ts), valid for the page
 * texts of `fingerprint` (the text index's): a later process ranks a further market by
 * re-scoring them instead of searching every keyword again.
 */
searchMigrations['0004_search_rank_candidates'] = {
  async up(db: Kysely<any>) {
    await sql`CREATE TABLE search_rank_candidates (
      keyword_id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, main_count INTEGER NOT NULL,
      has_fallback INTEGER NOT NULL, docs BLOB NOT NULL
    )`.execute(db);
  },
};

/**
 * Difficulty is no longer kept per research store: the one value of a keyword's day lives in
 * the state store (engine/sources/difficultyBook.ts, state migration 0045), which every process
 * shares; the rows kept here were written by SERPs ranked deeper than the rank index and
 * disagreed with it.
 */
searchMigrations['0046_search_difficulty_dropped'] = {
  async up(db: Kysely<any>) {
    await sql`DROP TABLE IF EXISTS search_difficulty`.execute(db);
  },
};

/** Runs the search tables' migrations on a research store. */
export async function migrateSearchTables(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => searchMigrations },
    migrationTableName: 'search_migration',
    migrationLockTableName: 'search_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`search migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}

/**
 * Deletes every stored rank index, so that each market is ranked again on next use.
 * Imports call it in their transaction: new keywords, market shares and links change the
 * rankings, and a stored index is otherwise reused forever. A store the search engine
 * never opened has no search tables, hence nothing to delete. Returns the markets deleted.
 */
export function deleteStoredRankIndexes(raw: SqliteDatabase.Database): number {
  const exists = raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_rank_index'").get();
  return exists ? raw.prepare('DELETE FROM search_rank_index').run().changes : 0;
}

export interface KeywordRef {
  id: string;
  kw: string;
  locationId: number;
  languageId: number;
}

export interface RankBuild {
  locationId: number;
  date: string;
  builtAt: number;
  keywords: number;
}

const TEXT_INDEX_PARTS = ['terms', 'offsets', 'postingDocs', 'postingTf', 'docLength', 'params'] as const;

function bytesOf(array: Int32Array | Float32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * A typed array over the blob's own bytes when they are aligned for it (better-sqlite3 gives a
 * large blob a buffer of its own, at offset 0: a small world's text index has two 21.9 MB
 * postings blobs, copied at every open before), else over a copy (a small blob may be a slice
 * of Node's shared pool, at any offset). The blob is read for this array alone: nothing else
 * holds or writes it.
 */
function int32Of(blob: Buffer): Int32Array {
  const bytes = blob.byteOffset % Int32Array.BYTES_PER_ELEMENT === 0 ? blob : new Uint8Array(blob);
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / Int32Array.BYTES_PER_ELEMENT);
}

function float32Of(blob: Buffer): Float32Array {
  const bytes = blob.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0 ? blob : new Uint8Array(blob);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / Float32Array.BYTES_PER_ELEMENT);
}

export class SearchStore {
  private readonly insertRef: SqliteDatabase.Statement;
  private readonly selectRef: SqliteDatabase.Statement;

  constructor(private readonly raw: SqliteDatabase.Database) {
    this.insertRef = raw.prepare('INSERT OR IGNORE INTO search_keyword_refs (id, kw, location_id, language_id) VALUES (?, ?, ?, ?)');
    this.selectRef = raw.prepare('SELECT id, kw, location_id AS locationId, language_id AS languageId FROM search_keyword_refs WHERE id = ?');
  }

  /** Records issued keyword ids so that exports and lists can resolve them later. */
  recordKeywordRefs(refs: readonly KeywordRef[]): void {
    if (refs.length === 0) return;
    this.raw.transaction(() => {
      for (const r of refs) this.insertRef.run(r.id, r.kw, r.locationId, r.languageId);
    })();
  }

  keywordRef(id: string): KeywordRef | undefined {
    return this.selectRef.get(id) as KeywordRef | undefined;
  }

  /** The stored text index when it was built for this fingerprint of the pages. */
  textIndex(fingerprint: string): Bm25Parts | undefined {
    const rows = this.raw.prepare('SELECT part, data FROM search_text_index WHERE fingerprint = ?').all(fingerprint) as { part: string; data: Buffer }[];
    const parts = new Map(rows.map((r) => [r.part, r.data]));
    if (!TEXT_INDEX_PARTS.every((p) => parts.has(p))) return undefined;
    const params = JSON.parse(parts.get('params')!.toString('utf8')) as { k1: number; b: number };
    return {
      terms: JSON.parse(parts.get('terms')!.toString('utf8')) as string[],
      offsets: int32Of(parts.get('offsets')!),
      postingDocs: int32Of(parts.get('postingDocs')!),
      postingTf: float32Of(parts.get('postingTf')!),
      docLength: float32Of(parts.get('docLength')!),
      k1: params.k1,
      b: params.b,
    };
  }

  saveTextIndex(fingerprint: string, parts: Bm25Parts): void {
    const insert = this.raw.prepare('INSERT OR REPLACE INTO search_text_index (part, fingerprint, data) VALUES (?, ?, ?)');
    this.raw.transaction(() => {
      insert.run('terms', fingerprint, Buffer.from(JSON.stringify(parts.terms), 'utf8'));
      insert.run('offsets', fingerprint, bytesOf(parts.offsets));
      insert.run('postingDocs', fingerprint, bytesOf(parts.postingDocs));
      insert.run('postingTf', fingerprint, bytesOf(parts.postingTf));
      insert.run('docLength', fingerprint, bytesOf(parts.docLength));
      insert.run('params', fingerprint, Buffer.from(JSON.stringify({ k1: parts.k1, b: parts.b }), 'utf8'));
    })();
  }

  /**
   * The stored rank candidates of the pages of `fingerprint`; candidates stored for other
   * page texts (before an import added pages) are deleted.
   */
  rankCandidates(fingerprint: string): StoredCandidates[] {
    this.raw.prepare('DELETE FROM search_rank_candidates WHERE fingerprint <> ?').run(fingerprint);
    const rows = this.raw
      .prepare('SELECT keyword_id AS keywordId, main_count AS mainCount, has_fallback AS hasFallback, docs FROM search_rank_candidates')
      .all() as { keywordId: number; mainCount: number; hasFallback: number; docs: Buffer }[];
    return rows.map((r) => ({ keywordId: r.keywordId, mainCount: r.mainCount, hasFallback: r.hasFallback === 1, docs: int32Of(r.docs) }));
  }

  saveRankCandidates(fingerprint: string, rows: readonly StoredCandidates[]): void {
    if (rows.length === 0) return;
    const insert = this.raw.prepare(
      'INSERT OR REPLACE INTO search_rank_candidates (keyword_id, fingerprint, main_count, has_fallback, docs) VALUES (?, ?, ?, ?, ?)',
    );
    this.raw.transaction(() => {
      for (const r of rows) insert.run(r.keywordId, fingerprint, r.mainCount, r.hasFallback ? 1 : 0, bytesOf(r.docs));
    })();
  }

  hasRankIndex(locationId: number): boolean {
    return this.raw.prepare('SELECT 1 FROM search_rank_index WHERE location_id = ?').get(locationId) !== undefined;
  }

  /** A location's stored rank index: build facts and rows of research-store ids. */
  rankIndex(locationId: number): (RankBuild & { keywordIds: Int32Array; positions: Uint8Array; pageIds: Int32Array }) | undefined {
    const row = this.raw
      .prepare(
        `SELECT location_id AS locationId, date, built_at AS builtAt, keywords, keyword_ids AS keywordIds, positions, page_ids AS pageIds
           FROM search_rank_index WHERE location_id = ?`,
      )
      .get(locationId) as (RankBuild & { keywordIds: Buffer; positions: Buffer; pageIds: Buffer }) | undefined;
    if (!row) return undefined;
    return { ...row, keywordIds: int32Of(row.keywordIds), positions: new Uint8Array(row.positions), pageIds: int32Of(row.pageIds) };
  }

  /** Replaces a location's rank index. */
  saveRankIndex(build: RankBuild, keywordIds: Int32Array, positions: Uint8Array, pageIds: Int32Array): void {
    this.raw
      .prepare(
        `INSERT OR REPLACE INTO search_rank_index (location_id, date, built_at, keywords, keyword_ids, positions, page_ids)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(build.locationId, build.date, build.builtAt, build.keywords, bytesOf(keywordIds), Buffer.from(positions), bytesOf(pageIds));
  }
}
