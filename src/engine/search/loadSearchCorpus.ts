/**
 * Reads the search corpus from the research store (engine/researchSchema.ts): pages with
 * their text and the authority metrics computed by engine/links, keywords with their
 * markets and stored histories, niches and brand names.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { ProgressListener } from '../../lib/progress.js';
import { LEVEL, type KeywordsTable, type NichesTable } from '../researchSchema.js';
import { Bm25Builder, Bm25Index, PAGE_FIELD_WEIGHTS } from './bm25Index.js';
import type { SearchStore } from './searchStore.js';
import type { CorpusKeyword, CorpusNiche, CorpusPage, SearchCorpus } from './searchCorpus.js';
import { normaliseKeyword, tokenize } from './text.js';

interface PageRow {
  id: number;
  url: string;
  host_id: number;
  root_domain_id: number;
  title: string;
  description: string;
  body: string;
  niche_id: number | null;
  language_id: number;
  kind: string;
  is_homepage: number;
  published: string;
  shares: number;
  keyword: string | null;
}

interface MetricRow {
  level: number;
  entity_id: number;
  authority: number;
  citation_flow: number;
  trust_flow: number;
  ref_domains: number;
  ext_backlinks: number;
  top_rank: number;
}

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
export function loadSearchCorpus(raw: SqliteDatabase.Database, store?: SearchStore, onProgress: ProgressListener = () => {}): LoadedCorpus {
  // Tables are read one by one and joined in memory: faster than SQLite's join plan here.
  const hosts = new Map<number, string>();
  for (const r of raw.prepare('SELECT id, host FROM hosts').all() as { id: number; host: string }[]) hosts.set(r.id, r.host);
  const roots = new Map<number, { domain: string; kind: string }>();
  for (const r of raw.prepare('SELECT id, domain, kind FROM root_domains').all() as { id: number; domain: string; kind: string }[]) {
    roots.set(r.id, { domain: r.domain, kind: r.kind });
  }
  const pageMetrics = new Map<number, MetricRow>();
  const rootMetrics = new Map<number, MetricRow>();
  const metricRows = raw
    .prepare(
      `SELECT level, entity_id, authority, citation_flow, trust_flow, ref_domains, ext_backlinks, top_rank
         FROM entity_metrics WHERE level IN (${LEVEL.url}, ${LEVEL.root})`,
    )
    .all() as MetricRow[];
  for (const m of metricRows) (m.level === LEVEL.url ? pageMetrics : rootMetrics).set(m.entity_id, m);

  const fingerprint = pagesFingerprint(raw);
  const storedIndex = store?.textIndex(fingerprint);
  const builder = storedIndex ? undefined : new Bm25Builder(PAGE_FIELD_WEIGHTS, { preTokenized: [false, false, true] });
  const pageCount = (raw.prepare('SELECT COUNT(*) FROM pages').pluck().get() as number) ?? 0;
  const stage = builder ? 'index page text' : 'read pages';
  onProgress(stage, 0, pageCount);
  const pages: CorpusPage[] = [];
  const pageRows = raw
    .prepare(
      `SELECT id, url, host_id, root_domain_id, title, description, ${builder ? 'body' : "'' AS body"}, niche_id, language_id, kind,
              is_homepage, published, shares, keyword
         FROM pages ORDER BY id`,
    )
    .iterate() as Iterable<PageRow>;
  for (const r of pageRows) {
    const root = roots.get(r.root_domain_id);
    const pm = pageMetrics.get(r.id);
    const rm = rootMetrics.get(r.root_domain_id);
    if (pages.length % 10_000 === 0) onProgress(stage, pages.length, pageCount);
    builder?.add([r.title, r.description, r.body]);
    pages.push({
      id: r.id,
      url: r.url,
      host: hosts.get(r.host_id) ?? '',
      domain: root?.domain ?? '',
      rootId: r.root_domain_id,
      title: r.title,
      description: r.description,
      body: '',
      nicheId: r.niche_id,
      languageId: r.language_id,
      keyword: r.keyword ?? '',
      kind: r.kind,
      siteKind: root?.kind ?? r.kind,
      isHomepage: r.is_homepage === 1,
      published: r.published,
      shares: r.shares,
      upa: pm?.authority ?? 0,
      pda: rm?.authority ?? 0,
      citationFlow: pm?.citation_flow ?? 0,
      trustFlow: pm?.trust_flow ?? 0,
      refDomains: pm?.ref_domains ?? 0,
      extBackLinks: pm?.ext_backlinks ?? 0,
      topRank: rm?.top_rank ?? 0,
    });
  }
  pageMetrics.clear();

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

  const markets = new Map<number, Map<number, number>>();
  for (const r of raw.prepare('SELECT keyword_id, location_id, share FROM keyword_markets').iterate() as Iterable<{
    keyword_id: number;
    location_id: number;
    share: number;
  }>) {
    let m = markets.get(r.keyword_id);
    if (!m) markets.set(r.keyword_id, (m = new Map()));
    m.set(r.location_id, r.share);
  }

  const storedHistory = raw.prepare('SELECT year, month, searches FROM keyword_history WHERE keyword_id = ? AND location_id = ? ORDER BY year, month');
  const hasStoredHistory = new Set<string>(
    (raw.prepare('SELECT DISTINCT keyword_id, location_id FROM keyword_history').all() as { keyword_id: number; location_id: number }[]).map(
      (r) => `${r.keyword_id}|${r.location_id}`,
    ),
  );

  return {
    keywords,
    marketShare: (keywordId, locationId) => markets.get(keywordId)?.get(locationId),
    hasMarkets: (keywordId) => markets.has(keywordId),
    storedHistory: (keywordId, locationId) =>
      hasStoredHistory.has(`${keywordId}|${locationId}`)
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
