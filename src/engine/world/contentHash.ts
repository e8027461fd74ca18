/**
 * SHA-256 over the contents of a research store: every table in a fixed order, rows in
 * primary-key order, each row as JSON of its column values. Two builds with the same
 * (size, seed, build date) must give the same hash; `world_meta.content_hash` itself,
 * the wall-clock build timing and the seed are left out (see UNHASHED_META_KEYS).
 */
import { createHash } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';

const TABLE_ORDER: readonly { table: string; orderBy: string }[] = [
  { table: 'world_meta', orderBy: 'key' },
  { table: 'niches', orderBy: 'id' },
  { table: 'keywords', orderBy: 'id' },
  { table: 'keyword_markets', orderBy: 'keyword_id, location_id' },
  { table: 'keyword_history', orderBy: 'keyword_id, location_id, year, month' },
  { table: 'root_domains', orderBy: 'id' },
  { table: 'hosts', orderBy: 'id' },
  { table: 'pages', orderBy: 'id' },
  { table: 'links', orderBy: 'id' },
  { table: 'entity_metrics', orderBy: 'level, entity_id' },
  { table: 'root_history', orderBy: 'root_domain_id' },
];

/**
 * Meta keys that describe a build rather than the world's content. The seed is one: with
 * it in the hash, two seeds would differ even if the generator ignored the seed, and the
 * determinism test (another seed gives another hash) could not fail.
 */
export const UNHASHED_META_KEYS = ['content_hash', 'build_ms', 'state', 'seed'];

export function contentHashOf(raw: SqliteDatabase.Database): string {
  const hash = createHash('sha256');
  for (const { table, orderBy } of TABLE_ORDER) {
    hash.update(`#${table}\n`);
    const where = table === 'world_meta' ? ` WHERE key NOT IN (${UNHASHED_META_KEYS.map((k) => `'${k}'`).join(', ')})` : '';
    const statement = raw.prepare(`SELECT * FROM ${table}${where} ORDER BY ${orderBy}`).raw(true);
    // Rows go to the hash in batches: one update per row cost more than the hashing itself.
    let batch = '';
    for (const row of statement.iterate()) {
      batch += `${JSON.stringify(row)}\n`;
      if (batch.length >= 1 << 20) {
        hash.update(batch);
        batch = '';
      }
    }
    hash.update(batch);
  }
  return hash.digest('hex');
}

/** Content hash of a research store file (opened read-only). */
export function contentHash(file: string): string {
  const raw = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return contentHashOf(raw);
  } finally {
    raw.close();
  }
}
