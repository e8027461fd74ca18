/**
 * Entry of the search engine: opens it over a research store.
 *
 * @example
 * const store = await openResearchStore(file);
 * const search = await openSearch({ store, clock });
 * search.relatedKeywords('running shoes', 2840, 1000, 200);
 */
import type { Clock } from '../../lib/clock.js';
import type { ProgressListener } from '../../lib/progress.js';
import { loadLocations, type LocationRegistry } from '../../locations/registry.js';
import type { ResearchStore } from '../researchStore.js';
import { loadKeywordData, loadSearchCorpus } from './loadSearchCorpus.js';
import { SearchEngine } from './searchEngine.js';
import { migrateSearchTables, SearchStore } from './searchStore.js';

export { SearchEngine } from './searchEngine.js';
export type { KeywordDetail, ImportedKeyword, SerpQuery } from './searchEngine.js';
export type { CompetitorKeywords, GapResult, SuggestedKeyword, RankingKeyword } from './competitorAnalysis.js';
export { classifyTarget, type UrlType } from './searchTargets.js';
export type { KeywordItem } from './keywordMetrics.js';
export type { HostRankStats } from './hostRankStats.js';
export type { Serp, SerpItem } from './serpTypes.js';
export { keywordId, isKeywordId } from './keywordIds.js';
export { parseSnapshotId, serpSnapshotId } from './serpIdentity.js';

export interface OpenSearchOptions {
  store: ResearchStore;
  clock: Clock;
  locations?: LocationRegistry;
  /**
   * Locations whose rank index to load, or build in the background when none is stored
   * (ranking a small world's market takes minutes), so that the first competitor-keywords
   * lookup does not wait for it. The build gives way to builds lookups wait for.
   */
  warmRankIndexes?: readonly number[];
  /**
   * Locations whose rank index must be loaded (or built, when none is stored) before the
   * engine is returned: the service's default market, so that it never reports ready
   * with answers that would change minutes later (null difficulty, no SERP overlap).
   */
  rankIndexes?: readonly number[];
  /** Stages of the opening (reading pages, the text index, each rank index), for a start-up display. */
  onProgress?: ProgressListener;
}

/** Migrates the search tables, loads the corpus and builds the in-memory index. */
export async function openSearch(options: OpenSearchOptions): Promise<SearchEngine> {
  await migrateSearchTables(options.store.db);
  const store = new SearchStore(options.store.raw);
  const progress = options.onProgress ?? (() => {});
  const { corpus, index, textFingerprint } = loadSearchCorpus(options.store.raw, store, progress);
  progress('keyword catalogue', 0, 1);
  const origin = options.store.raw.prepare("SELECT value FROM world_meta WHERE key = 'origin'").pluck().get() as string | undefined;
  const search = new SearchEngine({
    corpus,
    index,
    textFingerprint,
    clock: options.clock,
    locations: options.locations ?? loadLocations(),
    store,
    // Unknown text gets derived figures only over the sandbox's own keywords (a built sandbox web).
    sandboxKeywords: origin === 'sandbox',
  });
  for (const location of options.rankIndexes ?? []) {
    const stage = `${store.hasRankIndex(search.marketOf(location) || location) ? 'load' : 'rank'} market ${location}`;
    progress(stage, 0, 1);
    await search.requireRankIndex(location, (done, total) => progress(stage, done, total));
  }
  for (const location of options.warmRankIndexes ?? []) {
    // A failure here (the store closed during a build) only means a later lookup builds it.
    search.warmRankIndex(location).catch(() => undefined);
  }
  return search;
}

/** Makes keywords added to the research store since opening (imports) visible to the engine. */
export function reloadSearchKeywords(search: SearchEngine, store: ResearchStore): void {
  search.reloadKeywords(loadKeywordData(store.raw));
}
