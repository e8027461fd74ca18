/**
 * The research engine facade: one object over the research store that the tool
 * handlers use, and nothing else touches the store.
 *
 * Example:
 * ```ts
 * await ensureWorld({ dataDir: config.dataDir, size: config.worldSize, seed: config.worldSeed, clock });
 * const engine = await openEngine({ file: researchStoreFile(config.dataDir), clock });
 * const page = engine.links.backlinks('example.com', { source: 1 }, { offset: 0, limit: 500 });
 * const { pda, upa } = engine.authority.forUrl('example.com')!;
 * await engine.close();
 * ```
 */
import fs from 'node:fs';
import SqliteReadonly from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import type { WorldSetting } from '../config.js';
import { openResearchStore, researchStoreFile, type ResearchStore } from './researchStore.js';
import { LinksService } from './links/linksService.js';
import { AuthorityService } from './authority/authorityService.js';
import { SitesService } from './sites/sitesService.js';
import { buildWorld, type ProgressListener, type BuiltWorld } from './world/buildWorld.js';
import { contentHashOf } from './world/contentHash.js';
import { buildEmptyWorld } from './world/emptyWorld.js';
import { buildingFile, installBuiltStore, removeAbandonedBuilds, removeBuild } from './world/storeFile.js';
import { openSearch, type SearchEngine } from './search/index.js';
import { DEFAULT_SERP_LOCATION } from './search/searchEngine.js';

export { researchStoreFile } from './researchStore.js';
export type { ResearchStore } from './researchStore.js';
export type {
  BacklinkFilter,
  BacklinkItem,
  BacklinkRow,
  BacklinkPage,
  LinkIndexMetrics,
  BacklinkProfile,
  TopContentItem,
  ExportSuggestion,
} from './links/backlinkTypes.js';
export { BACKLINK_FIELDS } from './links/backlinkTypes.js';
export { emptyLinkIndex } from './links/linkIndex.js';
export type { ResolvedTarget, TargetType } from './links/targets.js';
export { hexId, parseHexId } from './links/targets.js';
export type { AuthorityMetrics } from './authority/authorityService.js';
export type { SiteOverview, SiteCompetitor, SocialValue } from './sites/sitesService.js';
export type { RootHistory } from './sites/siteHistory.js';
export { LinksService, AuthorityService, SitesService };
export type {
  SearchEngine,
  KeywordItem,
  Serp,
  SerpItem,
  KeywordDetail,
  CompetitorKeywords,
  GapResult,
  SuggestedKeyword,
  ImportedKeyword,
  HostRankStats,
} from './search/index.js';

/** Facts about the loaded world. */
export interface WorldMetadata {
  /** 'sandbox' for a generated world, 'none' for a store created without one, 'import' for one an import created. */
  origin: string | null;
  size: WorldSetting | null;
  seed: number | null;
  /** Build date `YYYY-MM-DD`. */
  builtOn: string | null;
  asOfMs: number | null;
  generatorVersion: number | null;
  /** Content hash stored at build time, or null when not computed (see `computeContentHash`). */
  contentHash: string | null;
}

/** How much the store holds (`quarry world info`). */
export interface WorldCounts {
  keywords: number;
  rootDomains: number;
  hosts: number;
  pages: number;
  links: number;
}

export interface Engine {
  store: ResearchStore;
  links: LinksService;
  authority: AuthorityService;
  sites: SitesService;
  /**
   * Keywords, SERPs and the rank index (engine/search), opened on first use with the
   * default market's rank index loaded (a built world stores both; a world without them,
   * such as an import, is indexed and ranked here: minutes on `small`).
   */
  search(): Promise<SearchEngine>;
  /** True when the store holds a completely built (or imported) world. */
  isBuilt(): boolean;
  metadata(): WorldMetadata;
  /** Row counts of the store's main tables (one COUNT each: seconds on `large`). */
  counts(): WorldCounts;
  /** Hashes the store's contents now (a full read; seconds on `small`) and stores the hash. */
  computeContentHash(): string;
  /**
   * The link index on a connection of its own, for long reads (backlink exports): a
   * statement being iterated keeps its connection busy, and on the shared one every lookup
   * in between would fail with "This database connection is busy executing a query".
   * Close it when the read is done.
   */
  openLinksReader(): LinksReader;
  close(): Promise<void>;
}

/** A read-only link index on a private connection (see Engine.openLinksReader). */
export interface LinksReader {
  links: LinksService;
  close(): void;
}

export interface OpenEngineOptions {
  file: string;
  clock: Clock;
  /** Stages of opening the search half (see `Engine.search`). */
  onProgress?: ProgressListener;
}

function readMeta(store: ResearchStore): Map<string, string> {
  const rows = store.raw.prepare('SELECT key, value FROM world_meta').all() as { key: string; value: string }[];
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** How much of the store file a links reader maps (SQLite caps it at its compile-time limit, 2 GiB). */
const READER_MMAP_BYTES = 2 ** 40;
/** KiB of SQLite page cache of a links reader: a scan of scattered rows gets no use of a larger one. */
const READER_CACHE_KIB = 2048;

/** Opens (and migrates) the research store and the engine services over it. */
export async function openEngine(options: OpenEngineOptions): Promise<Engine> {
  const store = await openResearchStore(options.file);
  const links = new LinksService(store.raw, options.clock);
  const authority = new AuthorityService(store.raw);
  const sites = new SitesService(store.raw, links, authority);
  let search: Promise<SearchEngine> | undefined;
  return {
    store,
    links,
    authority,
    sites,
    search: () => (search ??= openSearch({ store, clock: options.clock, rankIndexes: [DEFAULT_SERP_LOCATION], onProgress: options.onProgress })),
    isBuilt: () => readMeta(store).get('state') === 'ready',
    metadata: () => {
      const meta = readMeta(store);
      const num = (key: string): number | null => (meta.has(key) ? Number(meta.get(key)) : null);
      return {
        origin: meta.get('origin') ?? null,
        size: (meta.get('size') as WorldSetting | undefined) ?? null,
        seed: num('seed'),
        builtOn: meta.get('built_on') ?? null,
        asOfMs: num('as_of_ms'),
        generatorVersion: num('generator_version'),
        contentHash: meta.get('content_hash') ?? null,
      };
    },
    counts: () => {
      const count = (table: string): number => store.raw.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
      return { keywords: count('keywords'), rootDomains: count('root_domains'), hosts: count('hosts'), pages: count('pages'), links: count('links') };
    },
    computeContentHash: () => {
      const hash = contentHashOf(store.raw);
      store.raw.prepare("INSERT OR REPLACE INTO world_meta (key, value) VALUES ('content_hash', ?)").run(hash);
      return hash;
    },
    openLinksReader: () => {
      const raw = new SqliteReadonly(store.raw.name, { readonly: true, fileMustExist: true });
      // A reader never waits for long: WAL lets it read beside the writer.
      raw.pragma('busy_timeout = 5000');
      // An export reads a row of `links` for each entry of the strongest-first index, scattered
      // over the table: through SQLite's page cache that is a pread(2) and a copy per row (its
      // cache rarely holds the page again), mapped it is a memory read (on `small`, 1.1 M rows:
      // ~5 → ~3 CPU-s for the query). The mapped pages are the OS page cache, shared and given
      // back under memory pressure (RssFile, not RssAnon); the connection's own cache is kept small.
      raw.pragma(`mmap_size = ${READER_MMAP_BYTES}`);
      raw.pragma(`cache_size = -${READER_CACHE_KIB}`);
      return { links: new LinksService(raw, options.clock), close: () => raw.close() };
    },
    close: () => store.close(),
  };
}

export interface EnsureWorldOptions {
  dataDir: string;
  /** A sandbox size, or 'none': an empty store that providers and imports fill (world/emptyWorld.ts). */
  size: WorldSetting;
  seed: number;
  clock: Clock;
  onProgress?: ProgressListener;
}

/** True when the research store file exists and holds a completely built world. */
export function isWorldReady(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  return readyState(file);
}

/** The `origin` of a ready store file ('sandbox', 'none', 'import'), read without migrating; null when none is there. */
export function worldOrigin(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  try {
    const db = new SqliteReadonly(file, { readonly: true });
    try {
      const row = db.prepare("SELECT value FROM world_meta WHERE key = 'origin'").get() as { value: string } | undefined;
      return row?.value ?? null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** Read-only peek without migrating: a half-built or foreign file answers false. */
function readyState(file: string): boolean {
  try {
    const db = new SqliteReadonly(file);
    try {
      const row = db.prepare("SELECT value FROM world_meta WHERE key = 'state'").get() as { value: string } | undefined;
      return row?.value === 'ready';
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/**
 * Builds the sandbox world into `<dataDir>/research.db` unless a ready one is there (the
 * service calls this at first start). Builds into a temporary file and renames it once synced
 * (world/storeFile.ts), so a crash mid-build never leaves a half-built store behind; returns
 * null when nothing was built.
 */
export async function ensureWorld(options: EnsureWorldOptions): Promise<BuiltWorld | null> {
  const file = researchStoreFile(options.dataDir);
  if (isWorldReady(file)) return null;
  fs.mkdirSync(options.dataDir, { recursive: true });
  // What a killed build left (~1 GB on `small`) goes before this build writes another.
  removeAbandonedBuilds(file);
  const temporary = buildingFile(file);
  try {
    const built =
      options.size === 'none'
        ? await buildEmptyWorld({ file: temporary, asOf: options.clock.now() })
        : await buildWorld({ size: options.size, seed: options.seed, file: temporary, asOf: options.clock.now(), onProgress: options.onProgress });
    installBuiltStore(temporary, file);
    return { ...built, file };
  } catch (error) {
    removeBuild(temporary);
    throw error;
  }
}
