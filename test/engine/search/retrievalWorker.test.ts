/**
 * A world build's ranking hands half its retrievals to a worker thread (retrievalWorker.ts):
 * the rank index and the stored candidates must be the same as when one thread retrieves all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLocations } from '../../../src/locations/registry.js';
import { Bm25Retriever, type Retrieval, type RetrievalQuery } from '../../../src/engine/search/bm25Retriever.js';
import { loadSearchCorpus, type LoadedCorpus } from '../../../src/engine/search/loadSearchCorpus.js';
import type { StoredCandidates } from '../../../src/engine/search/rankCandidates.js';
import { retrieveInWorker } from '../../../src/engine/search/retrievalWorker.js';
import { SearchEngine } from '../../../src/engine/search/searchEngine.js';
import { SearchStore } from '../../../src/engine/search/searchStore.js';
import { RANK_DEPTH } from '../../../src/engine/search/rankIndex.js';
import { openTinySearch, type TestSearch } from './searchWorld.js';

let t: TestSearch;
let loaded: LoadedCorpus;
before(async () => {
  t = await openTinySearch();
  loaded = loadSearchCorpus(t.store.raw);
});
after(async () => {
  await t.close();
});

/** A store that keeps what a build would save, in memory (as the ranking worker's does). */
class KeptStore extends SearchStore {
  candidates: StoredCandidates[] = [];
  override rankCandidates(): StoredCandidates[] {
    return [];
  }
  override saveRankCandidates(_fingerprint: string, rows: readonly StoredCandidates[]): void {
    this.candidates.push(...rows);
  }
  override saveRankIndex(): void {}
  override rankIndex(): undefined {
    return undefined;
  }
}

function engine(helper?: (queries: readonly RetrievalQuery[], limit: number, candidates: number) => Promise<Retrieval[]>): {
  search: SearchEngine;
  store: KeptStore;
} {
  const store = new KeptStore(t.store.raw);
  const search = new SearchEngine({
    corpus: loaded.corpus,
    index: loaded.index,
    textFingerprint: loaded.textFingerprint,
    clock: t.clock,
    locations: loadLocations(),
    store,
    retrievalHelper: helper,
  });
  return { search, store };
}

const plain = (r: Retrieval) => ({
  found: [Array.from(r.found.docs), Array.from(r.found.scores), Array.from(r.found.coverage)],
  fallback: r.fallback && [Array.from(r.fallback.docs), Array.from(r.fallback.scores), Array.from(r.fallback.coverage)],
});

test('the worker retrieves what this thread retrieves over the same index (documents, scores, coverage, fallback)', async () => {
  const queries: RetrievalQuery[] = loaded.corpus.keywords.slice(0, 300).map((k) => ({ keyword: k.kw, head: k.head, fallbackTokens: k.head.split(' ') }));
  const here = new Bm25Retriever(loaded.index);
  const there = await retrieveInWorker(loaded.index.toParts(), queries, RANK_DEPTH, 150);
  assert.equal(there.length, queries.length);
  assert.ok(
    there.some((r) => r.fallback),
    'some queries fall back to their topic',
  );
  queries.forEach((q, n) => assert.deepEqual(plain(there[n]), plain(here.retrieve(q, RANK_DEPTH, 150)), q.keyword));
});

test('a rank index built with the helper is the one built without it; the candidates are stored alike, in the same order', async () => {
  const alone = engine();
  const asked: number[] = [];
  const helped = engine((queries, limit, candidates) => {
    asked.push(queries.length);
    return retrieveInWorker(loaded.index.toParts(), queries, limit, candidates);
  });
  const expected = await alone.search.buildRankIndex(2840);
  const index = await helped.search.buildRankIndex(2840);
  assert.equal(asked.length, 1, 'the helper is asked once');
  const keywords = loaded.corpus.keywords.filter((k) => loaded.corpus.marketShare(k.id, 2840) !== undefined).length;
  assert.equal(asked[0], Math.floor(keywords / 2), 'for the last half of the market');
  assert.deepEqual(index.allRows(), expected.allRows());
  assert.equal(helped.store.candidates.length, keywords);
  assert.deepEqual(
    helped.store.candidates.map((c) => [c.keywordId, c.mainCount, c.hasFallback, Array.from(c.docs)]),
    alone.store.candidates.map((c) => [c.keywordId, c.mainCount, c.hasFallback, Array.from(c.docs)]),
  );
});

test('a helper that fails leaves the retrievals to this thread: the same rank index', async () => {
  const expected = await engine().search.buildRankIndex(2840);
  const failing = engine(() => Promise.reject(new Error('no worker')));
  assert.deepEqual((await failing.search.buildRankIndex(2840)).allRows(), expected.allRows());
});
