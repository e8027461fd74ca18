/**
 * Related keywords served from the per-market arrays (marketItems.ts, issue 26) answer what
 * building every item afresh answers: each row equals the item `keywordsById` builds for the
 * same id (metrics.item and difficultyOf, the path the arrays replaced), on a sample of seeds,
 * locations and languages, the second lookup (from the arrays) like the first, and after the
 * month turns. An answer's rows are the caller's: settling `seo` on one changes no later answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY } from '../../../src/lib/clock.js';
import type { KeywordItem } from '../../../src/engine/search/index.js';
import { openTinySearch, type TestSearch } from './searchWorld.js';

let t: TestSearch;
before(async () => {
  t = await openTinySearch();
});
after(async () => {
  await t.close();
});

/** The rows as the old path builds them, by id. */
function rebuilt(items: readonly KeywordItem[]): KeywordItem[] {
  return t.search.keywordsById(items.map((k) => k._id)).map(({ languageId, ...item }) => (void languageId, item));
}

test('related keywords from the per-market arrays equal the items built afresh, lookup after lookup and month after month', async () => {
  await t.search.rankIndex(2840);
  const seeds = ['hiking boots', 'tent', 'running shoes', 'coffee'];
  const markets: [number, number][] = [
    [2840, 1000],
    [2840, 0],
    [2276, 1000],
    [0, 0],
  ];
  let rows = 0;
  for (const round of [0, 1]) {
    for (const seed of seeds) {
      for (const [location, language] of markets) {
        const first = await t.search.relatedKeywords(seed, location, language, 300);
        const again = await t.search.relatedKeywords(seed, location, language, 300);
        assert.deepEqual(again, first, `${seed} ${location} ${language}: the arrays answer as the first lookup`);
        assert.deepEqual(first.keywords, rebuilt(first.keywords), `${seed} ${location} ${language} (round ${round})`);
        rows += first.keywords.length;
      }
    }
    // The next month: histories gain a month, `ts` moves; the arrays are the month's.
    t.clock.advance(35 * DAY);
  }
  assert.ok(rows > 500, `a real sample (${rows} rows)`);
  // Rows with a difficulty from the rank index and rows without one were both compared.
  const sample = await t.search.relatedKeywords('hiking boots', 2840, 1000, 300);
  assert.ok(sample.keywords.some((k) => k.seo !== null));
  // The caller's copy: settling a difficulty on a row changes no later answer.
  sample.keywords[1].seo = 999;
  const later = await t.search.relatedKeywords('hiking boots', 2840, 1000, 300);
  assert.notEqual(later.keywords[1].seo, 999);
});
