/**
 * What an SEO reads in the sandbox (issue 27), part of the realism suite (realismSuite.ts)
 * over the tiny and small worlds: keywords and titles that read as English, distinct site
 * names, homepages that say what their site is about. Each rule failed on generator v11:
 * "best learn python 2026", "what is free learn python", "credit score ideas"; "Vpn – Free
 * Shipping | Displaysupply", "Why Credit Card Is in the News"; cremalab5.com beside
 * cremalab19.com; "Petspedia – Education".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorldSize } from '../../../src/config.js';
import { EN_HEAD_PROFILES, headProfile } from '../../../src/engine/world/headProfiles.js';
import { isProductHead, NOT_A_THING } from '../../../src/engine/world/pageText.js';
import { NICHES } from '../../../src/engine/world/niches.js';
import type { TestSearch } from './searchWorld.js';

const titleCase = (text: string) => text.replace(/(^|\s)(\p{L})/gu, (_, space: string, letter: string) => space + letter.toUpperCase());

/** Registers the text checks over the world that `world()` opened (in the suite's `before`). */
export function textRealismSuite(size: WorldSize, world: () => TestSearch): void {
  test(`${size}: English keywords read as English: no year on a topic, nothing before a verb phrase, verbs agree with the head — none of them wrong`, () => {
    const rows = world().store.raw.prepare("SELECT kw, head FROM keywords WHERE origin = 'sandbox' AND language_id = 1000").all() as {
      kw: string;
      head: string;
    }[];
    const wrong: string[] = [];
    for (const { kw, head } of rows) {
      const profile = EN_HEAD_PROFILES[head];
      if (!profile) continue; // brands
      const plural = profile.grammar === 'plural';
      if (/^best .+ \d{4}$/.test(kw) && profile.kind === 'topic') wrong.push(`${kw}: a year on a topic`);
      // "learn python" is a verb phrase: an adjective before it ("free learn python") is no English.
      if (head.startsWith('learn ') && !kw.startsWith(head)) wrong.push(`${kw}: words before a verb phrase`);
      const rest = kw.endsWith(head) || kw.includes(`${head} `) ? kw : '';
      if (/^(what is|is|how does) /.test(rest) && plural && !/the best/.test(kw)) wrong.push(`${kw}: singular verb, plural head`);
      if (/^(what are|are|how do) /.test(rest) && !plural && !/the best/.test(kw)) wrong.push(`${kw}: plural verb, singular head`);
      if (/^what is [^a]/.test(kw) && profile.grammar === 'countable' && !/the best/.test(kw)) wrong.push(`${kw}: no article`);
    }
    const present = new Set(rows.map((r) => r.kw));
    for (const kw of ['best learn python 2026', 'what is free learn python', 'credit score ideas', 'easy credit score', 'best credit score'])
      if (present.has(kw)) wrong.push(kw);
    assert.ok(rows.length >= 1000, `English keywords (${rows.length})`);
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${rows.length}`);
  });

  test(`${size}: titles fit what they are about: shipping, sales and testing only for goods; no verb after the keyword — none wrong`, () => {
    const rows = world()
      .store.raw.prepare(
        `SELECT p.title, p.keyword, p.niche_id, k.head FROM pages p JOIN keywords k ON k.kw = p.keyword AND k.language_id = p.language_id
          WHERE p.keyword <> '' AND p.kind <> 'farm' AND p.language_id = 1000`,
      )
      .all() as { title: string; keyword: string; niche_id: number; head: string }[];
    const wrong: string[] = [];
    let goods = 0;
    for (const r of rows) {
      const product = isProductHead(r.head, r.niche_id, true);
      if (/Free Shipping|^Buy .* Online|on Sale at|Tested and Reviewed/.test(r.title)) {
        if (product) goods++;
        else wrong.push(`${r.title}: not a good`);
      }
      // Around a search for an offer, a review or advice, titles for a thing read as nonsense ("My Honest Best Cold Brew Experience").
      if (/^Buy .* Online|on Sale at|Tested and Reviewed|My Honest|Anyone Tried|The Rise of|Study on/.test(r.title) && NOT_A_THING.test(r.keyword))
        wrong.push(`${r.title}: no thing's name`);
      if (r.title.includes(`${titleCase(r.keyword)} Is `) || r.title.includes(`${titleCase(r.keyword)} Are `))
        wrong.push(`${r.title}: a verb after the keyword`);
      if (/Is in the News/.test(r.title)) wrong.push(r.title);
    }
    assert.ok(rows.length >= 1000 && goods >= 50, `titles (${rows.length}), of goods (${goods})`);
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${rows.length}`);
  });

  test(`${size}: site names are distinct: no numbered clone of another site's name (link farms aside) — none`, () => {
    const domains = world().store.raw.prepare("SELECT domain FROM root_domains WHERE kind <> 'farm'").pluck().all() as string[];
    const name = (domain: string) => domain.slice(0, domain.indexOf('.'));
    const names = new Set(domains.map(name));
    const clones = domains.filter((d) => {
      const m = /^(.*\D)\d+$/.exec(name(d));
      return m !== null && names.has(m[1]);
    });
    assert.ok(domains.length >= 300, `sites (${domains.length})`);
    assert.deepEqual(clones.slice(0, 10), [], `${clones.length} of ${domains.length}`);
  });

  test(`${size}: homepages say what their site is about: its niche, or no niche for a general site; a niche's wiki is of that niche — none wrong`, () => {
    const rows = world()
      .store.raw.prepare(
        `SELECT r.domain, r.kind, r.niche_id, p.title, p.description FROM root_domains r JOIN pages p ON p.root_domain_id = r.id AND p.is_homepage = 1`,
      )
      .all() as { domain: string; kind: string; niche_id: number | null; title: string; description: string }[];
    const wrong: string[] = [];
    for (const r of rows) {
      const title = r.title.toLowerCase();
      const named = NICHES.filter((n) => title.includes(` ${n.name}`)).map((n) => n.name);
      if (r.niche_id === null) {
        if (named.length > 0) wrong.push(`${r.domain} (general): "${r.title}"`);
      } else {
        const niche = NICHES[r.niche_id - 1].name;
        if (!named.includes(niche) || !r.description.toLowerCase().includes(niche)) wrong.push(`${r.domain} (${niche}): "${r.title}" / "${r.description}"`);
      }
      if (r.kind === 'wiki') {
        const about = NICHES.findIndex((n) => r.domain.startsWith(n.name.replace(/\s+/g, '')));
        if (about >= 0 && about + 1 !== r.niche_id) wrong.push(`${r.domain}: a ${NICHES[about].name} wiki of niche ${r.niche_id ?? 'none'}`);
      }
    }
    assert.ok(rows.length >= 300, `homepages (${rows.length})`);
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${rows.length}`);
  });

  // Every head has a profile: a missing one would silently take every product pattern.
  test(`${size}: every English head of the world has a profile`, () => {
    const heads = world()
      .store.raw.prepare("SELECT DISTINCT head FROM keywords WHERE origin = 'sandbox' AND language_id = 1000 AND kind <> 'brand' AND kind <> 'versus'")
      .pluck()
      .all() as string[];
    assert.deepEqual(
      heads.filter((h) => headProfile(h) !== EN_HEAD_PROFILES[h]),
      [],
    );
  });
}
