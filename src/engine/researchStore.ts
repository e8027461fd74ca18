/**
 * Opens and migrates the research store (`<dataDir>/research.db`), separate from the
 * state store because it can always be rebuilt from a seed or re-imported.
 *
 * Example:
 * ```ts
 * const store = await openResearchStore(path.join(config.dataDir, 'research.db'));
 * const n = await store.db.selectFrom('links').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
 * ```
 */
import path from 'node:path';
import { sql, type Kysely, type Migration } from 'kysely';
import { migrate, openSqlite, type SqliteHandle, type SqliteOptions } from '../store/database.js';
import { COUNTER_COLUMNS, type ResearchDatabase } from './researchSchema.js';

export type ResearchStore = SqliteHandle<ResearchDatabase>;

/**
 * Secondary indexes of `links`, chosen for the engine's queries: backlinks of a root
 * domain / host / page strongest first (`score DESC, id`; the trailing best/deleted/
 * nofollow flags make paging with OFFSET a covering scan of the index alone), referring-domain lookups
 * (competitors share referring domains). One-per-referring-domain pages filter the
 * `best_*` flags along the same indexes: the best link of a domain is by definition
 * among the strongest, so the scan stops early. Kept in one list because the
 * world generator drops them before its bulk load and recreates them after (building an
 * index once over sorted data is far cheaper than maintaining it row by row).
 */
export const LINK_INDEXES: readonly { name: string; sql: string; migration?: string }[] = [
  { name: 'links_target_root', sql: 'CREATE INDEX links_target_root ON links (target_root_id, internal, score DESC, id, best_root, deleted, nofollow)' },
  { name: 'links_target_host', sql: 'CREATE INDEX links_target_host ON links (target_host_id, internal, score DESC, id, best_host, deleted, nofollow)' },
  { name: 'links_target_page', sql: 'CREATE INDEX links_target_page ON links (target_page_id, internal, score DESC, id, best_url, deleted, nofollow)' },
  {
    name: 'links_target_root_first_seen',
    sql: 'CREATE INDEX links_target_root_first_seen ON links (target_root_id, first_seen, internal, score, target_host_id, target_page_id)',
  },
  {
    name: 'links_target_root_lost',
    sql: 'CREATE INDEX links_target_root_lost ON links (target_root_id, deleted_on, internal, last_seen, score, target_host_id, target_page_id) WHERE deleted = 1',
  },
  { name: 'links_source_root', sql: 'CREATE INDEX links_source_root ON links (source_root_id, target_root_id)' },
  // Importers find a link by (source page, target page, anchor) before inserting it: through
  // the target's index alone, a popular target's every link would be read (added by 0015).
  { name: 'links_source_page', sql: 'CREATE INDEX links_source_page ON links (source_page_id, target_page_id, anchor)', migration: '0015' },
];

/** Versioned migrations of the research store; append, never edit a released one. */
export const researchMigrations: Record<string, Migration> = {
  '0001_sandbox_web': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('world_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('niches')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('season_peak', 'integer', (c) => c.notNull())
        .addColumn('season_amplitude', 'real', (c) => c.notNull())
        .addColumn('trend', 'real', (c) => c.notNull())
        .addColumn('vocabulary', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('keywords')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('kw', 'text', (c) => c.notNull())
        .addColumn('language_id', 'integer', (c) => c.notNull())
        .addColumn('niche_id', 'integer')
        .addColumn('head', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('intent', 'text', (c) => c.notNull())
        .addColumn('volume', 'integer', (c) => c.notNull())
        .addColumn('trend', 'real', (c) => c.notNull())
        .addColumn('noise_seed', 'integer', (c) => c.notNull())
        .addColumn('cpc', 'real', (c) => c.notNull())
        .addColumn('ppc', 'integer', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .execute();
      await sql`CREATE UNIQUE INDEX keywords_kw_language ON keywords (kw, language_id)`.execute(db);
      await sql`CREATE INDEX keywords_niche ON keywords (niche_id, language_id)`.execute(db);
      await sql`CREATE INDEX keywords_head ON keywords (head, language_id)`.execute(db);
      await db.schema
        .createTable('keyword_markets')
        .addColumn('keyword_id', 'integer', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('share', 'real', (c) => c.notNull())
        .addPrimaryKeyConstraint('keyword_markets_pk', ['keyword_id', 'location_id'])
        .execute();
      await sql`CREATE INDEX keyword_markets_location ON keyword_markets (location_id, keyword_id)`.execute(db);
      await db.schema
        .createTable('keyword_history')
        .addColumn('keyword_id', 'integer', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('year', 'integer', (c) => c.notNull())
        .addColumn('month', 'integer', (c) => c.notNull())
        .addColumn('searches', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('keyword_history_pk', ['keyword_id', 'location_id', 'year', 'month'])
        .execute();
      await db.schema
        .createTable('root_domains')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('domain', 'text', (c) => c.notNull().unique())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('niche_id', 'integer')
        .addColumn('language_id', 'integer', (c) => c.notNull())
        .addColumn('brand', 'text', (c) => c.notNull())
        .addColumn('trusted', 'integer', (c) => c.notNull())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('hosts')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('host', 'text', (c) => c.notNull().unique())
        .addColumn('root_domain_id', 'integer', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('subnet', 'text', (c) => c.notNull())
        .execute();
      await sql`CREATE INDEX hosts_root ON hosts (root_domain_id)`.execute(db);
      await db.schema
        .createTable('pages')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull().unique())
        .addColumn('host_id', 'integer', (c) => c.notNull())
        .addColumn('root_domain_id', 'integer', (c) => c.notNull())
        .addColumn('https', 'integer', (c) => c.notNull())
        .addColumn('is_homepage', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('keyword', 'text', (c) => c.notNull())
        .addColumn('niche_id', 'integer')
        .addColumn('language_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('published', 'text', (c) => c.notNull())
        .addColumn('shares', 'integer', (c) => c.notNull())
        .execute();
      await sql`CREATE INDEX pages_host ON pages (host_id)`.execute(db);
      await sql`CREATE INDEX pages_root ON pages (root_domain_id)`.execute(db);
      await db.schema
        .createTable('links')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('source_page_id', 'integer', (c) => c.notNull())
        .addColumn('target_page_id', 'integer', (c) => c.notNull())
        .addColumn('source_host_id', 'integer', (c) => c.notNull())
        .addColumn('target_host_id', 'integer', (c) => c.notNull())
        .addColumn('source_root_id', 'integer', (c) => c.notNull())
        .addColumn('target_root_id', 'integer', (c) => c.notNull())
        .addColumn('anchor', 'text', (c) => c.notNull())
        .addColumn('alt', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('nofollow', 'integer', (c) => c.notNull())
        .addColumn('https', 'integer', (c) => c.notNull())
        .addColumn('first_seen', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull())
        .addColumn('deleted_on', 'text')
        .addColumn('reason_lost', 'text', (c) => c.notNull())
        .addColumn('internal', 'integer', (c) => c.notNull())
        .addColumn('score', 'integer', (c) => c.notNull())
        .addColumn('strength', 'integer', (c) => c.notNull())
        .addColumn('best_root', 'integer', (c) => c.notNull())
        .addColumn('best_host', 'integer', (c) => c.notNull())
        .addColumn('best_url', 'integer', (c) => c.notNull())
        .execute();
      for (const index of LINK_INDEXES.filter((i) => i.migration === undefined)) await sql.raw(index.sql).execute(db);
      await db.schema
        .createTable('entity_metrics')
        .addColumn('level', 'integer', (c) => c.notNull())
        .addColumn('entity_id', 'integer', (c) => c.notNull())
        .addColumn('pagerank', 'real', (c) => c.notNull())
        .addColumn('trustrank', 'real', (c) => c.notNull())
        .addColumn('citation_flow', 'integer', (c) => c.notNull())
        .addColumn('trust_flow', 'integer', (c) => c.notNull())
        .addColumn('authority', 'integer', (c) => c.notNull())
        .addColumn('top_rank', 'integer', (c) => c.notNull())
        .addColumn('ac_rank', 'integer', (c) => c.notNull())
        .$call((t) => {
          let table = t;
          for (const col of COUNTER_COLUMNS) table = table.addColumn(col, 'integer', (c) => c.notNull());
          return table;
        })
        .addPrimaryKeyConstraint('entity_metrics_pk', ['level', 'entity_id'])
        .execute();
      await sql`CREATE INDEX entity_metrics_top_rank ON entity_metrics (level, top_rank)`.execute(db);
      await db.schema
        .createTable('root_history')
        .addColumn('root_domain_id', 'integer', (c) => c.primaryKey())
        .addColumn('history', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0015_import_runs': {
    async up(db: Kysely<any>) {
      // Resumable imports: one row per imported file (by kind, path, size and mtime), the
      // records committed so far, and the root domains whose links changed since the last
      // metrics update, so a restarted import skips what is done and updates what changed.
      await db.schema
        .createTable('import_runs')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('file_key', 'text', (c) => c.notNull().unique())
        .addColumn('records_done', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('started_at', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('import_touched_roots')
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('root_domain_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_touched_roots_pk', ['run_id', 'root_domain_id'])
        .execute();
      // Priors from public rank lists (Common Crawl web graph ranks, Tranco), per domain
      // name, whether or not the index holds the domain yet.
      await db.schema
        .createTable('domain_priors')
        .addColumn('domain', 'text', (c) => c.primaryKey())
        .addColumn('cc_harmonic_rank', 'integer')
        .addColumn('cc_harmonic_value', 'real')
        .addColumn('cc_pagerank_rank', 'integer')
        .addColumn('cc_pagerank_value', 'real')
        .addColumn('tranco_rank', 'integer')
        .execute();
      for (const index of LINK_INDEXES.filter((i) => i.migration === '0015'))
        await sql.raw(index.sql.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS')).execute(db);
    },
  },
  '0022_link_changes': {
    async up(db: Kysely<any>) {
      // The links changed since the last metrics update, as they were before (researchSchema.ts
      // LinkChangesTable): the incremental update applies each change's difference.
      await db.schema
        .createTable('link_changes')
        .addColumn('link_id', 'integer', (c) => c.primaryKey())
        .addColumn('existed', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('nofollow', 'integer', (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull())
        .addColumn('first_seen', 'text', (c) => c.notNull())
        .addColumn('last_seen', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0024_drop_import_touched_roots': {
    async up(db: Kysely<any>) {
      // The change log (0022) replaced the touched domains: the metrics update reads it instead.
      await db.schema.dropTable('import_touched_roots').ifExists().execute();
    },
  },
  '0047_domain_priors_staging': {
    async up(db: Kysely<any>) {
      // A rank list being imported (engine/import/priorsImport.ts): its rows wait here, per run,
      // until the file has been read to its end, and replace the list in domain_priors in one
      // transaction. A truncated or foreign file leaves the priors as they were.
      await db.schema
        .createTable('domain_priors_staging')
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('cc_harmonic_rank', 'integer')
        .addColumn('cc_harmonic_value', 'real')
        .addColumn('cc_pagerank_rank', 'integer')
        .addColumn('cc_pagerank_value', 'real')
        .addColumn('tranco_rank', 'integer')
        .addPrimaryKeyConstraint('domain_priors_staging_pk', ['run_id', 'domain'])
        .execute();
    },
  },
};

/** Opens (and migrates) a research store file (see SqliteOptions for a build's options). */
export async function openResearchStore(file: string, options: SqliteOptions = {}): Promise<ResearchStore> {
  const handle = openSqlite<ResearchDatabase>(file, options);
  // The research store has no foreign keys worth enforcing during bulk loads; referential
  // integrity is guaranteed by the generator and importers.
  handle.raw.pragma('foreign_keys = OFF');
  await migrate(handle.db, researchMigrations);
  return handle;
}

/** `<dataDir>/research.db`. */
export function researchStoreFile(dataDir: string): string {
  return path.join(dataDir, 'research.db');
}
