/**
 * What a practitioner sees of the tiny sandbox web (issue 17): synonyms (one search intent)
 * get close difficulty, and page titles do not stutter ("Buy Buy Running Shoes Online",
 * "Study on Cheap Cheap Running Shoes"). Both failed on the generator before (v4).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeywords } from '../../../src/engine/world/keywordGenerator.js';
import { Rng } from '../../../src/engine/world/random.js';
import { WORLD_SIZE_SPECS } from '../../../src/engine/world/sizes.js';
import { openTinySearch, type TestSearch } from './searchWorld.js';

let t: TestSearch;
before(async () => {
  t = await openTinySearch();
});
after(async () => {
  await t.close();
});

test('synonyms have close difficulty ("beginner yoga mat" and "yoga mat for beginners")', async () => {
  await t.search.rankIndex(2840);
  // The tiny world's keywords, with their synonym families, as its build generated them.
  const keywords = generateKeywords(WORLD_SIZE_SPECS.tiny.keywords, new Rng(1).fork(1));
  const far: string[] = [];
  let pairs = 0;
  for (const k of keywords) {
    for (const s of k.synonyms) {
      if (k.kw > s) continue;
      pairs++;
      const a = t.search.keywordItem(k.kw, 2840, 1000).seo;
      const b = t.search.keywordItem(s, 2840, 1000).seo;
      assert.ok(a !== null && b !== null, `${k.kw} and ${s} have a difficulty`);
      if (Math.abs(a - b) > 15) far.push(`${k.kw} ${a} / ${s} ${b}`);
    }
  }
  assert.ok(pairs >= 20, `synonym pairs (${pairs})`);
  assert.deepEqual(far, []);
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
