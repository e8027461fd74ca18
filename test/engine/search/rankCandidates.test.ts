import { after, before, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index } from '../../../src/engine/search/bm25Index.js';
import { buildBm25Index } from '../../../src/engine/search/bm25Builder.js';
import { openSearch } from '../../../src/engine/search/index.js';
import type { MarketRanking } from '../../../src/engine/search/marketRanking.js';
import { bestFirst } from '../../../src/engine/search/organicRanking.js';
import { RANK_DEPTH } from '../../../src/engine/search/rankIndex.js';
import type { SearchEngine } from '../../../src/engine/search/searchEngine.js';
import { openTinySearch, type TestSearch } from './searchWorld.js';

let t: TestSearch;
before(async () => {
  t = await openTinySearch();
});
after(async () => {
  await t.close();
  mock.restoreAll();
});

/** The per-keyword ranking the rank index stands for: a fresh BM25 retrieval, then scoring (private API). */
function organicTop(search: SearchEngine, keyword: number, market: number): number[] {
  const ranking = (search as unknown as { ranking: MarketRanking }).ranking;
  return ranking.organicPages(search.catalog.at(keyword), market, RANK_DEPTH);
}

test('scoreDocs gives the documents a search returned the same scores and coverage', () => {
  // 2,000 documents: "rare" in 60 of them, "common" in all (scored on the rare term's
  // documents only, by binary search), "mid" in one in five.
  const texts = Array.from({ length: 2000 }, (_, i) =>
    ['common', i % 33 === 0 ? 'rare rare' : '', i % 5 === 0 ? 'mid' : '', `doc${i}`, i % 7 === 0 ? 'common' : ''].join(' '),
  );
  const index = buildBm25Index(texts.length, (i) => [texts[i]], [1]);
  for (const query of [['rare', 'common'], ['rare', 'rare', 'mid'], ['mid', 'common', 'unknown'], ['common'], ['doc7', 'mid']]) {
    const found = index.search(query, 10);
    assert.ok(found.docs.length > 0, query.join(' '));
    const rescored = index.scoreDocs(query, found.docs);
    assert.deepEqual(Array.from(rescored.docs), Array.from(found.docs));
    assert.deepEqual(Array.from(rescored.scores), Array.from(found.scores), query.join(' '));
    assert.deepEqual(Array.from(rescored.coverage), Array.from(found.coverage), query.join(' '));
  }
});

test('candidates are ordered by score, highest first, equal scores by page id (as a comparator sort orders them)', () => {
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (const count of [0, 1, 2, 15, 16, 17, 200, 601]) {
    // Few distinct scores: many ties to break by page id.
    const score = Float64Array.from({ length: count }, () => Math.floor(random() * 20) / 7);
    const id = Float64Array.from({ length: count }, (_, i) => (i * 7919) % 10007);
    const expected = Array.from({ length: count }, (_, c) => c).sort((a, b) => score[b] - score[a] || id[a] - id[b]);
    assert.deepEqual(Array.from(bestFirst(score, id, count)), expected, `${count} candidates`);
  }
});

test('a further market re-scores the candidates of the first build: same rankings as ranking each keyword, no search', async () => {
  const us = await t.search.buildRankIndex(2840);
  const searches = mock.method(Bm25Index.prototype, 'search');
  const uk = await t.search.buildRankIndex(2826);
  assert.equal(searches.mock.callCount(), 0, 'the UK ranks the US keywords without searching again');
  searches.mock.restore();

  let compared = 0;
  for (let k = 0; k < t.search.catalog.size; k += 7) {
    for (const index of [us, uk]) {
      if (!index.covers(k)) continue;
      assert.deepEqual(index.top(k, RANK_DEPTH), organicTop(t.search, k, index.locationId), `${t.search.catalog.at(k).kw} in ${index.locationId}`);
      compared++;
    }
  }
  assert.ok(compared > 400, `${compared} rankings compared`);
});

test('a later process re-scores the stored candidates, and a market with other keywords retrieves only those', async () => {
  const uk = await t.search.rankIndex(2826);
  const again = await openSearch({ store: t.store, clock: t.clock });
  const searches = mock.method(Bm25Index.prototype, 'search');
  const rebuilt = await again.buildRankIndex(2826);
  assert.equal(searches.mock.callCount(), 0);
  assert.deepEqual(rebuilt.allRows(), uk.allRows());

  // Germany's keywords are German: none were retrieved for the English markets.
  const germany = await again.buildRankIndex(2276);
  const german = Array.from({ length: again.catalog.size }, (_, k) => k).filter((k) => germany.covers(k));
  // One search per German keyword, two for those matching few pages (their fallback search:
  // most of them, the tiny world has few German pages), and one per head term of the longer
  // keywords (remembered across its keywords).
  const count = searches.mock.callCount();
  const heads = new Set(
    german
      .map((k) => again.catalog.at(k))
      .filter((k) => k.head !== k.kw)
      .map((k) => k.head),
  ).size;
  assert.ok(count > german.length && count <= 2 * german.length + heads, `${count} searches for ${german.length} German keywords (${heads} heads)`);
  searches.mock.restore();
  for (const k of german.filter((_, i) => i % 5 === 0)) assert.deepEqual(germany.top(k, RANK_DEPTH), organicTop(again, k, 2276));
});

test('a background warm-up gives way to a build a lookup waits for', async () => {
  const fresh = await openTinySearch();
  try {
    const finished: number[] = [];
    // Germany (385 keywords) would end long before Canada (2,115) if both took turns.
    const warm = fresh.search.warmRankIndex(2276).then(() => finished.push(2276));
    await new Promise((resolve) => setImmediate(resolve));
    const asked = fresh.search.rankIndex(2124).then(() => finished.push(2124));
    await Promise.all([warm, asked]);
    assert.deepEqual(finished, [2124, 2276]);
  } finally {
    await fresh.close();
  }
});

test('a lookup for the market being warmed up makes its build urgent: it no longer gives way', async () => {
  const fresh = await openTinySearch();
  try {
    const finished: number[] = [];
    const warm = fresh.search.warmRankIndex(2276);
    await new Promise((resolve) => setImmediate(resolve));
    // Canada (2,115 keywords) would pause the warm-up of Germany (385) to the end...
    const canada = fresh.search.rankIndex(2124).then(() => finished.push(2124));
    // ...but a lookup now waits for Germany: both builds take turns, and the small one ends first.
    const germany = fresh.search.rankIndex(2276);
    assert.equal(germany, warm, 'the lookup shares the warm-up build');
    await Promise.all([germany.then(() => finished.push(2276)), canada]);
    assert.deepEqual(finished, [2276, 2124]);
  } finally {
    await fresh.close();
  }
});
