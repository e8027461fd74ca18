/**
 * Reads the search corpus from the research store (engine/researchSchema.ts): pages with
 * their text and the authority metrics computed by engine/links, keywords with their
 * markets and stored histories, niches and brand names.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { ProgressListener } from '../../lib/progress.js';
import { LEVEL, type KeywordsTable, type NichesTable } from '../researchSchema.js';
import { Bm25Index, PAGE_FIELD_WEIGHTS } from './bm25Index.js';
import { Bm25Builder } from './bm25Builder.js';
import type { SearchStore } from './searchStore.js';
import type { CorpusKeyword, CorpusNiche, CorpusPage, SearchCorpus } from './searchCorpus.js';
import { normaliseKeyword, tokenize } from './text.js';

/** A page row as `raw(true)` gives it, in the SELECT's column order. */
type PageRow = [
  id: number,
  url: string,
  hostId: number,
  rootDomainId: number,
  title: string,
  description: string,
  body: string,
  nicheId: number | null,
  languageId: number,
  kind: string,
  isHomepage: number,
  published: string,
  shares: number,
  keyword: string | null,
];

/** A page's link metrics (entity_metrics at the URL level) as `raw(true)` gives them. */
type PageMetricRow = [pageId: number, authority: number, citationFlow: number, trustFlow: number, refDomains: number, extBackLinks: number];

export interface LoadedCorpus {
  corpus: SearchCorpus;
  /** BM25 index over the pages' title, description and body, built while reading them. */
  index: Bm25Index;
  /** Identifies the page texts the index was built from (what stored rank candidates depend on). */
  textFingerprint: string;
}

/**
 * Reads the corpus and indexes page text in one pass over the pages; page bodies are
 * indexed and dropped (`body` is left empty), which keeps a small world's corpus lean.
 * With a store, the built index is saved and later opens of the same pages load it
 * instead of reading every body again (most of a small world's open time).
 */
export function loadSearchCorpus(
  raw: SqliteDatabase.Database,
  store?: SearchStore,
  onProgress: ProgressListener = () => {},
  options: { pagesPerRead?: number } = {},
): LoadedCorpus {
  // Tables are read one by one and joined in memory: faster than SQLite's join plan here.
  // Rows come as arrays (`raw`), not objects: on `small` (211,543 pages, as many metric rows)
  // that is ~0.4 of the open's CPU-seconds less, and less garbage (issue 26, restart).
  const hosts = new Map<number, string>();
  for (const [id, host] of raw.prepare('SELECT id, host FROM hosts').raw(true).all() as [number, string][]) hosts.set(id, host);
  const roots = new Map<number, { domain: string; kind: string }>();
  for (const [id, domain, kind] of raw.prepare('SELECT id, domain, kind FROM root_domains').raw(true).all() as [number, string, string][]) {
    roots.set(id, { domain, kind });
  }
  const rootMetrics = new Map<number, { authority: number; topRank: number; trustFlow: number }>();
  const rootMetricRows = raw.prepare(`SELECT entity_id, authority, top_rank, trust_flow FROM entity_metrics WHERE level = ${LEVEL.root}`).raw(true).all() as [
    number,
    number,
    number,
    number,
  ][];
  for (const [id, authority, topRank, trustFlow] of rootMetricRows) rootMetrics.set(id, { authority, topRank, trustFlow });
  // The pages' metrics in page id order, joined to the pages (also in id order) by a cursor.
  const pageMetrics = raw
    .prepare(
      `SELECT entity_id, authority, citation_flow, trust_flow, ref_domains, ext_backlinks
         FROM entity_metrics WHERE level = ${LEVEL.url} ORDER BY entity_id`,
    )
    .raw(true)
    .all() as PageMetricRow[];
  let metricAt = 0;

  const fingerprint = pagesFingerprint(raw);
  const storedIndex = store?.textIndex(fingerprint);
  const builder = storedIndex ? undefined : new Bm25Builder(PAGE_FIELD_WEIGHTS, { preTokenized: [false, false, true] });
  const pageCount = (raw.prepare('SELECT COUNT(*) FROM pages').pluck().get() as number) ?? 0;
  const stage = builder ? 'index page text' : 'read pages';
  onProgress(stage, 0, pageCount);
  const pages: CorpusPage[] = [];
  const pageRows = readPages(
    raw,
    `id, url, host_id, root_domain_id, title, description, ${builder ? 'body' : "'' AS body"}, niche_id, language_id, kind,
              is_homepage, published, shares, keyword`,
    options.pagesPerRead,
  );
  for (const [id, url, hostId, rootDomainId, title, description, body, nicheId, languageId, kind, isHomepage, published, shares, keyword] of pageRows) {
    const root = roots.get(rootDomainId);
    while (metricAt < pageMetrics.length && pageMetrics[metricAt][0] < id) metricAt++;
    const pm = metricAt < pageMetrics.length && pageMetrics[metricAt][0] === id ? pageMetrics[metricAt] : undefined;
    const rm = rootMetrics.get(rootDomainId);
    if (pages.length % 10_000 === 0) onProgress(stage, pages.length, pageCount);
    builder?.add([title, description, body]);
    pages.push({
      id,
      url,
      host: hosts.get(hostId) ?? '',
      domain: root?.domain ?? '',
      rootId: rootDomainId,
      title,
      description,
      body: '',
      nicheId,
      languageId,
      keyword: keyword ?? '',
      kind,
      siteKind: root?.kind ?? kind,
      isHomepage: isHomepage === 1,
      published,
      shares,
      upa: pm?.[1] ?? 0,
      pda: rm?.authority ?? 0,
      citationFlow: pm?.[2] ?? 0,
      trustFlow: pm?.[3] ?? 0,
      rootTrustFlow: rm?.trustFlow ?? 0,
      refDomains: pm?.[4] ?? 0,
      extBackLinks: pm?.[5] ?? 0,
      topRank: rm?.topRank ?? 0,
    });
  }

  const niches: CorpusNiche[] = (
    raw.prepare('SELECT id, name, season_peak, season_amplitude, trend, vocabulary FROM niches ORDER BY id').all() as NichesTable[]
  ).map((r) => ({
    id: r.id,
    name: r.name,
    vocabulary: r.vocabulary.split(' ').filter(Boolean),
    seasonPeak: r.season_peak,
    seasonAmplitude: r.season_amplitude,
    trend: r.trend,
  }));

  // Brand sites are the named entities: a single-word brand name in a keyword makes it navigational.
  const brands = new Map<string, number>();
  for (const r of raw.prepare(`SELECT id, brand FROM root_domains WHERE kind = 'brand' ORDER BY id`).all() as { id: number; brand: string }[]) {
    const tokens = tokenize(r.brand);
    if (tokens.length === 1 && tokens[0].length >= 4 && !brands.has(tokens[0])) brands.set(tokens[0], r.id);
  }

  const metricsTs = metricsTimestamp(raw);
  onProgress(builder ? 'store text index' : 'load text index', 0, 1);
  let index: Bm25Index;
  if (builder) {
    index = builder.finish();
    store?.saveTextIndex(fingerprint, index.toParts());
  } else {
    index = Bm25Index.fromParts(storedIndex!);
  }
  onProgress('read keywords', 0, 1);
  return { corpus: { pages, niches, brands, metricsTs, ...loadKeywordData(raw) }, index, textFingerprint: fingerprint };
}

/**
 * The pages in id order: one statement, or with `perRead` one statement per slice of that many
 * pages. Sliced, no read lasts long: a world build writes the file in SQLite's rollback-journal
 * locking meanwhile (buildWorld.ts), where a statement being read holds off the writer's commits
 * until it ends, and indexing every page's text takes seconds.
 */
function* readPages(raw: SqliteDatabase.Database, columns: string, perRead?: number): Generator<PageRow> {
  if (perRead === undefined) {
    yield* raw.prepare(`SELECT ${columns} FROM pages ORDER BY id`).raw(true).iterate() as Iterable<PageRow>;
    return;
  }
  const slice = raw.prepare(`SELECT ${columns} FROM pages WHERE id > ? ORDER BY id LIMIT ?`).raw(true);
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const rows = slice.all(after, perRead) as PageRow[];
    yield* rows;
    if (rows.length < perRead) return;
    after = rows[rows.length - 1][0];
  }
}

export type KeywordData = Pick<SearchCorpus, 'keywords' | 'marketShare' | 'hasMarkets' | 'storedHistory'>;

/**
 * Keywords with their markets and stored histories: sandbox keywords and the ones
 * importers (keyword-planner CSVs) added, so that a reload finds new imports.
 */
export function loadKeywordData(raw: SqliteDatabase.Database): KeywordData {
  const keywords: CorpusKeyword[] = (
    raw
      .prepare('SELECT id, kw, language_id, niche_id, head, kind, intent, volume, trend, noise_seed, cpc, ppc, origin FROM keywords ORDER BY id')
      .all() as KeywordsTable[]
  ).map((r) => ({
    id: r.id,
    kw: normaliseKeyword(r.kw),
    languageId: r.language_id,
    nicheId: r.niche_id,
    head: r.head,
    kind: r.kind,
    intentHints: r.intent ? r.intent.split(',') : [],
    volume: r.volume,
    trend: r.trend,
    noiseSeed: r.noise_seed,
    cpc: r.cpc,
    ppc: r.ppc,
    origin: r.origin,
  }));

  // Rows as arrays and keys as numbers (a small world has 186,059 market rows): objects per
  // row and a string key per pair were most of reading the keywords (issue 26, restart).
  const markets = new Map<number, Map<number, number>>();
  for (const [keywordId, locationId, share] of raw.prepare('SELECT keyword_id, location_id, share FROM keyword_markets').raw(true).iterate() as Iterable<
    [number, number, number]
  >) {
    let m = markets.get(keywordId);
    if (!m) markets.set(keywordId, (m = new Map()));
    m.set(locationId, share);
  }

  const storedHistory = raw.prepare('SELECT year, month, searches FROM keyword_history WHERE keyword_id = ? AND location_id = ? ORDER BY year, month');
  const hasStoredHistory = new Map<number, Set<number>>();
  for (const [keywordId, locationId] of raw.prepare('SELECT DISTINCT keyword_id, location_id FROM keyword_history').raw(true).iterate() as Iterable<
    [number, number]
  >) {
    let locations = hasStoredHistory.get(keywordId);
    if (!locations) hasStoredHistory.set(keywordId, (locations = new Set()));
    locations.add(locationId);
  }

  return {
    keywords,
    marketShare: (keywordId, locationId) => markets.get(keywordId)?.get(locationId),
    hasMarkets: (keywordId) => markets.has(keywordId),
    storedHistory: (keywordId, locationId) =>
      hasStoredHistory.get(keywordId)?.has(locationId)
        ? (storedHistory.all(keywordId, locationId) as { year: number; month: number; searches: number }[]).map((r) => [r.year, r.month, r.searches])
        : [],
  };
}

/**
 * Identifies the page set a stored text index was built from: the world's content hash
 * and the pages' count and largest id (imports add pages with new ids).
 */
function pagesFingerprint(raw: SqliteDatabase.Database): string {
  // What the build was (not its content hash: `world info --hash` stores one after the
  // build, which must not throw away the index the build stored).
  const meta = new Map(
    (
      raw.prepare(`SELECT key, value FROM world_meta WHERE key IN ('origin', 'size', 'seed', 'as_of_ms', 'generator_version')`).all() as {
        key: string;
        value: string;
      }[]
    ).map((r) => [r.key, r.value]),
  );
  const build = ['origin', 'size', 'seed', 'as_of_ms', 'generator_version'].map((k) => meta.get(k) ?? '').join(',');
  const pages = raw.prepare('SELECT COUNT(*) AS n, MAX(id) AS max FROM pages').get() as { n: number; max: number | null };
  return `v2|${build}|${pages.n}|${pages.max ?? 0}`;
}

/** The world's build time (`as_of_ms` in world_meta) in Unix seconds: when the metrics were computed. */
function metricsTimestamp(raw: SqliteDatabase.Database): number {
  const row = raw.prepare(`SELECT value FROM world_meta WHERE key = 'as_of_ms'`).get() as { value: string } | undefined;
  const ms = row ? Number(row.value) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}
