/**
 * What a practitioner sees of the tiny sandbox web (issue 17): page titles do not stutter
 * ("Buy Buy Running Shoes Online", "Study on Cheap Cheap Running Shoes"); this failed on the
 * generator before (v4). Synonyms' close difficulty is among the checks of realismSuite.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTinySearch, type TestSearch } from './searchWorld.js';

let t: TestSearch;
before(async () => {
  t = await openTinySearch();
});
after(async () => {
  await t.close();
});

// Link farms stuff keywords on purpose ("{K} {K} Best {K} Cheap"); every other page reads as written.
test('organic titles never repeat a word of the keyword around it', () => {
  const stutter: string[] = [];
  const rows = t.store.raw.prepare("SELECT title, keyword FROM pages WHERE keyword <> '' AND kind <> 'farm'").all() as { title: string; keyword: string }[];
  for (const { title, keyword } of rows) {
    const words = title
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    const kw = new Set(keyword.toLowerCase().split(' '));
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    const twice = [...kw].filter((w) => w.length > 2 && (counts.get(w) ?? 0) > keyword.split(' ').filter((x) => x === w).length);
    if (twice.length > 0) stutter.push(title);
  }
  assert.ok(rows.length > 1000);
  assert.deepEqual(stutter.slice(0, 10), []);
});
