/**
 * Properties of the sandbox keywords (issue 17), over the keyword sets of the tiny and the
 * small world (generation alone: no world is built). Each failed on the generator before
 * (v4): "trail running shoes" outsearched "running shoes", "cheap foldable cheap running
 * shoes", "how much does running shoes cost", "running shoes vs protein powder",
 * "burr … coffee beans", and synonyms drew unrelated volumes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeywords, type GeneratedKeyword } from '../../../src/engine/world/keywordGenerator.js';
import { Rng } from '../../../src/engine/world/random.js';
import { WORLD_SIZE_SPECS } from '../../../src/engine/world/sizes.js';
import { CLASHING_ATTRIBUTES, EN_HEAD_PROFILES, EN_PATTERNS, headProfile } from '../../../src/engine/world/headProfiles.js';
import { NICHES } from '../../../src/engine/world/vocabulary.js';

// The build's stream for keywords: Rng(seed).fork(1) (buildWorld.ts).
const sets: [string, GeneratedKeyword[]][] = [
  ['tiny', generateKeywords(WORLD_SIZE_SPECS.tiny.keywords, new Rng(1).fork(1))],
  ['small', generateKeywords(WORLD_SIZE_SPECS.small.keywords, new Rng(1).fork(1))],
];
const english = (ks: GeneratedKeyword[]) => ks.filter((k) => k.languageId === 1000);
const marketVolume = (k: GeneratedKeyword, location: number) => k.volume * (k.markets.find((m) => m.locationId === location)?.share ?? 0);

for (const [size, keywords] of sets) {
  test(`${size}: a longer variant never outsearches a shorter keyword it contains, worldwide or in any market`, () => {
    const byKw = new Map(keywords.map((k) => [`${k.languageId}:${k.kw}`, k]));
    const violations: string[] = [];
    let pairs = 0;
    for (const k of keywords) {
      const w = k.kw.split(' ');
      for (let from = 0; from < w.length; from++) {
        for (let to = from + 1; to <= w.length; to++) {
          if (to - from === w.length) continue;
          const shorter = byKw.get(`${k.languageId}:${w.slice(from, to).join(' ')}`);
          if (!shorter) continue;
          pairs++;
          if (k.volume > shorter.volume) violations.push(`${k.kw} ${k.volume} > ${shorter.kw} ${shorter.volume}`);
          for (const location of [2840, 2826, 2276, 2250]) {
            if (marketVolume(k, location) > marketVolume(shorter, location) + 1e-9) violations.push(`${k.kw} > ${shorter.kw} in ${location}`);
          }
        }
      }
    }
    assert.ok(pairs > keywords.length / 2, `many variants contain a shorter keyword (${pairs})`);
    assert.deepEqual(violations.slice(0, 10), []);
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
        families++;
      }
    }
    assert.ok(families >= 10, `synonym pairs (${families})`);
    const beginner = byKw.get('1000:beginner running shoes');
    const forBeginners = byKw.get('1000:running shoes for beginners');
    if (beginner && forBeginners) assert.equal(beginner.volume, forBeginners.volume);
  });
}
