/**
 * Properties of the sandbox keywords (issue 17), over the keyword sets of the tiny and the
 * small world (generation alone: no world is built). Each failed on the generator before
 * (v4): "trail running shoes" outsearched "running shoes", "cheap foldable cheap running
 * shoes", "how much does running shoes cost", "running shoes vs protein powder",
 * "burr … coffee beans", and synonyms drew unrelated volumes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containedPhrases, generateKeywords, type GeneratedKeyword } from '../../../src/engine/world/keywordGenerator.js';
import { Rng } from '../../../src/engine/world/random.js';
import { BREAKOUT_CANDIDATES, isBreakout, seedBreakouts } from '../../../src/engine/world/trends.js';
import { WORLD_SIZE_SPECS } from '../../../src/engine/world/sizes.js';
import { CLASHING_ATTRIBUTES, EN_HEAD_PROFILES, EN_PATTERNS, headProfile, intentForm } from '../../../src/engine/world/headProfiles.js';
import { NICHES } from '../../../src/engine/world/niches.js';

/** A world's keywords as buildWorld.ts draws them: streams fork(1) for keywords, fork(4) (after sites and links) for trends. */
function worldKeywords(count: number, seed = 1): GeneratedKeyword[] {
  const rng = new Rng(seed);
  const keywords = generateKeywords(count, rng.fork(1));
  rng.fork(2);
  rng.fork(3);
  seedBreakouts(keywords, rng.fork(4));
  return keywords;
}
const sets: [string, GeneratedKeyword[]][] = [
  ['tiny', worldKeywords(WORLD_SIZE_SPECS.tiny.keywords)],
  ['small', worldKeywords(WORLD_SIZE_SPECS.small.keywords)],
];
const english = (ks: GeneratedKeyword[]) => ks.filter((k) => k.languageId === 1000);
const marketVolume = (k: GeneratedKeyword, location: number) => k.volume * (k.markets.find((m) => m.locationId === location)?.share ?? 0);

for (const [size, keywords] of sets) {
  test(`${size}: a longer variant never outsearches a shorter keyword it contains, worldwide or in any market, but for the seeded breakouts`, () => {
    const byKw = new Map(keywords.map((k) => [`${k.languageId}:${k.kw}`, k]));
    const violations: string[] = [];
    const exceptions = new Set<string>();
    let pairs = 0;
    for (const k of keywords) {
      for (const phrase of containedPhrases(k.kw)) {
        const shorter = byKw.get(`${k.languageId}:${phrase}`);
        if (!shorter) continue;
        pairs++;
        const above = [k.volume > shorter.volume, ...[2840, 2826, 2276, 2250].map((l) => marketVolume(k, l) > marketVolume(shorter, l) + 1e-9)];
        if (!above.some(Boolean)) continue;
        if (isBreakout(k)) exceptions.add(k.kw);
        else violations.push(`${k.kw} ${k.volume} > ${shorter.kw} ${shorter.volume}`);
      }
    }
    assert.ok(pairs > keywords.length / 2, `many variants contain a shorter keyword (${pairs})`);
    assert.deepEqual(violations.slice(0, 10), []);
    // Exactly the seeded breakouts outsearch their head: a few of the candidates, each above its head.
    const breakouts = keywords.filter(isBreakout).map((k) => k.kw);
    assert.ok(breakouts.length >= 1 && breakouts.every((kw) => BREAKOUT_CANDIDATES.includes(kw)), `breakouts: ${breakouts.join(', ')}`);
    assert.deepEqual([...exceptions].sort(), [...breakouts].sort());
    const running = byKw.get('1000:running shoes');
    const trail = byKw.get('1000:trail running shoes');
    if (running && trail) assert.ok(trail.volume < running.volume / 2, 'a head inside another is the broader search by far');
  });

  test(`${size}: no keyword repeats a word or combines contradictory attributes`, () => {
    // "electric cars vs used cars" names "cars" twice, as people type it.
    const repeated = keywords.filter((k) => {
      if (k.kind === 'versus') return false;
      const w = k.kw.split(' ').filter((x) => x !== 'a' && x !== 'de' && x !== 'à');
      return new Set(w).size !== w.length;
    });
    assert.deepEqual(repeated.map((k) => k.kw).slice(0, 10), []);
    const contradictory = english(keywords).filter((k) =>
      CLASHING_ATTRIBUTES.some((group) => group.filter((a) => ` ${k.kw} `.includes(` ${a} `) && !k.head.includes(a)).length > 1),
    );
    assert.deepEqual(contradictory.map((k) => k.kw).slice(0, 10), []);
  });

  test(`${size}: English questions agree with their head ("how much do running shoes cost", "is a tent worth it")`, () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const k of english(keywords)) {
      const profile = EN_HEAD_PROFILES[k.head];
      if (!profile || !k.kw.includes(k.head)) continue;
      const plural = profile.grammar === 'plural';
      const checks: [RegExp, boolean][] = [
        [/^how much does /, !plural],
        [/^how much do /, plural],
        [/^are .* worth it$/, plural],
        [/^is .* worth it$/, !plural],
      ];
      for (const [pattern, allowed] of checks) {
        if (!pattern.test(k.kw)) continue;
        checked++;
        if (!allowed) wrong.push(k.kw);
      }
      if (profile.grammar === 'countable' && /^(how much does|is) /.test(k.kw) && !/^(how much does|is) an? /.test(k.kw)) wrong.push(`${k.kw} (no article)`);
    }
    assert.ok(checked > 10, `questions checked (${checked})`);
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  test(`${size}: attributes, brands and comparisons only where they make sense`, () => {
    // Attributes of a niche, except words patterns use on any head of a kind ("cheap {h}", "free {h}").
    const patternWords = new Set(
      Object.values(EN_PATTERNS)
        .flat()
        .flatMap((m) => m.template.split(' ')),
    );
    const attributes = new Set(NICHES.flatMap((n) => n.attributes).filter((a) => !patternWords.has(a)));
    const misfits: string[] = [];
    for (const k of english(keywords)) {
      const profile = EN_HEAD_PROFILES[k.head];
      if (!profile) continue;
      for (const a of attributes) {
        const within = (longer: string) => longer !== a && longer.includes(a) && ` ${k.kw} `.includes(` ${longer} `);
        if (` ${k.kw} `.includes(` ${a} `) && !k.head.includes(a) && !profile.attributes.includes(a) && !profile.attributes.some(within))
          misfits.push(`${k.kw} (${a} on ${k.head})`);
      }
      if (
        k.kind === 'brand' &&
        k.head !== k.kw &&
        !['product', 'software'].includes(headProfile(k.head).kind) &&
        NICHES.some((n) => n.heads.en.includes(k.head))
      )
        misfits.push(`${k.kw} (brand on a ${headProfile(k.head).kind})`);
    }
    assert.deepEqual(misfits.slice(0, 10), []);
    const versus = english(keywords).filter((k) => k.kind === 'versus' && NICHES.some((n) => n.heads.en.includes(k.head)));
    for (const k of versus) {
      const [a, b] = k.kw.split(' vs ');
      assert.equal(headProfile(a).kind, headProfile(b).kind, `${k.kw} compares things of one kind`);
    }
    assert.equal(
      keywords.some((k) => k.kw === 'running shoes vs protein powder'),
      false,
    );
  });

  test(`${size}: synonyms (one search intent) share volume, CPC and competition`, () => {
    const byKw = new Map(keywords.map((k) => [`${k.languageId}:${k.kw}`, k]));
    let families = 0;
    for (const k of keywords) {
      for (const s of k.synonyms) {
        const other = byKw.get(`${k.languageId}:${s}`);
        assert.ok(other, `${s} is a keyword`);
        assert.deepEqual([other.volume, other.cpc, other.ppc, other.trend], [k.volume, k.cpc, k.ppc, k.trend], `${k.kw} ~ ${s}`);
        // Search ranks a family as one intent (organicRanking.ts): one spelling for all.
        assert.equal(intentForm(other.kw), intentForm(k.kw), `${k.kw} ~ ${s}`);
        families++;
      }
    }
    assert.ok(families >= 10, `synonym pairs (${families})`);
    const beginner = byKw.get('1000:beginner running shoes');
    const forBeginners = byKw.get('1000:running shoes for beginners');
    if (beginner && forBeginners) assert.equal(beginner.volume, forBeginners.volume);
  });
}

test('the seed picks which trends break out, each with a breakout’s history (volume more than doubling in a year)', () => {
  const picks = new Set<string>();
  for (const seed of [1, 2, 3, 4, 5]) {
    const breakouts = worldKeywords(WORLD_SIZE_SPECS.small.keywords, seed).filter(isBreakout);
    for (const k of breakouts) assert.ok(k.trend >= 2 && k.synonyms.length === 0, `${k.kw}: trend ${k.trend}`);
    picks.add(
      breakouts
        .map((k) => k.kw)
        .sort()
        .join(', '),
    );
  }
  assert.ok(picks.size > 1, `every seed picked ${[...picks][0]}`);
});
