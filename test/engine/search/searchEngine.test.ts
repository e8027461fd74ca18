import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, FakeClock, HOUR } from '../../../src/lib/clock.js';
import { keywordId } from '../../../src/engine/search/keywordIds.js';
import { openTinySearch, spearman, type TestSearch } from './searchWorld.js';

let t: TestSearch;
before(async () => {
  t = await openTinySearch();
});
after(async () => {
  await t.close();
});

const heads = () =>
  t.search.catalog.size > 0 ? Array.from({ length: t.search.catalog.size }, (_, i) => t.search.catalog.at(i)).filter((k) => k.languageId === 1000) : [];

test('SERP positions 1–10 have more authority than positions 21–30', () => {
  let top = 0;
  let mid = 0;
  let n = 0;
  for (const k of heads().slice(0, 120)) {
    const serp = t.search.serp({ kw: k.kw, locationId: 2840 });
    const organic = serp.items.filter((i) => i.type === 'ORGANIC');
    if (organic.length < 30) continue;
    const strength = (i: (typeof organic)[number]) => (i.m!.authority!.v.upa! + i.m!.authority!.v.pda!) / 2;
    top += organic.slice(0, 10).reduce((s, i) => s + strength(i), 0) / 10;
    mid += organic.slice(20, 30).reduce((s, i) => s + strength(i), 0) / 10;
    n++;
  }
  assert.ok(n >= 50, `enough SERPs with 30 results (${n})`);
  assert.ok(top / n > mid / n, `top ${top / n} > mid ${mid / n}`);
});

test('difficulty correlates with the authority of the top 10 (Spearman ≥ 0.8)', () => {
  const difficulty: number[] = [];
  const authority: number[] = [];
  for (const k of heads().slice(0, 150)) {
    const serp = t.search.serp({ kw: k.kw, locationId: 2840 });
    const top = serp.items.filter((i) => i.type === 'ORGANIC').slice(0, 10);
    difficulty.push(serp.rank);
    authority.push(top.reduce((s, i) => s + (i.m!.authority!.v.upa! + i.m!.authority!.v.pda!) / 2, 0) / 10);
    assert.ok(serp.rank >= 0 && serp.rank <= 100);
  }
  const rho = spearman(difficulty, authority);
  assert.ok(rho >= 0.8, `spearman ${rho}`);
});

test('positions move a little from one day to the next and not within a day', () => {
  const start = t.clock.now();
  let moved = 0;
  let total = 0;
  let bigJumps = 0;
  for (const k of heads().slice(0, 40)) {
    t.clock.set(start);
    const morning = t.search.serp({ kw: k.kw, locationId: 2840 });
    t.clock.set(start + 5 * HOUR);
    const evening = t.search.serp({ kw: k.kw, locationId: 2840 });
    const urls = (s: typeof morning) => s.items.filter((i) => i.type === 'ORGANIC').map((i) => i.url);
    assert.deepEqual(urls(evening), urls(morning));
    assert.deepEqual(
      evening.items.map((i) => i.type),
      morning.items.map((i) => i.type),
    );
    t.clock.set(start + DAY);
    const tomorrow = urls(t.search.serp({ kw: k.kw, locationId: 2840 }));
    const today = urls(morning);
    today.slice(0, 20).forEach((url, i) => {
      const j = tomorrow.indexOf(url);
      total++;
      if (j !== i) moved++;
      if (j === -1 || Math.abs(j - i) > 10) bigJumps++;
    });
  }
  t.clock.set(start);
  assert.ok(moved > 0, 'some positions change from one day to the next');
  assert.ok(bigJumps / total < 0.03, `positions move a little (${bigJumps}/${total} big jumps)`);
  console.log(`day-to-day: ${moved}/${total} of the top-20 positions moved, ${bigJumps} by more than 10`);
  assert.ok(moved / total < 0.8, `most positions hold (${moved}/${total} moved)`);
});

test('layout boxes do not overlap and run top to bottom; CTRs fall with position and sum to at most 1', () => {
  for (const kw of ['hiking boots', 'best hiking boots', 'what is cold brew', 'espresso machine near me', 'how to clean espresso machine']) {
    for (const platform of [1, 2] as const) {
      const serp = t.search.serp({ kw, locationId: 2840, platform });
      const items = serp.items;
      for (let i = 0; i < items.length; i++) {
        const a = items[i].size;
        if (i > 0) assert.ok(a.t >= items[i - 1].size.t, 'ordered by top');
        for (let j = i + 1; j < items.length; j++) {
          const b = items[j].size;
          assert.ok(!(a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b), `${kw}: ${items[i].type} overlaps ${items[j].type}`);
        }
      }
      for (let i = 1; i < serp.ctr.length; i++) assert.ok(serp.ctr[i] <= serp.ctr[i - 1]);
      assert.ok(serp.ctr.reduce((s, c) => s + c, 0) <= 1);
      assert.ok(serp.serpFeaturesImpact >= 0 && serp.serpFeaturesImpact <= 100);
      assert.equal(serp.serp_results, 100);
      assert.match(serp.serp_snapshot_id!, /^[0-9a-f]{32}\.2026-11-22\.100\.sch$/);
      assert.ok(serp.serp_source_url.startsWith('https://www.google.com/search?q='));
    }
  }
});

test('features follow intent', () => {
  // Every local search of the world reads as local; most show a map pack (when the world
  // has shops or directories about the query to put in it).
  const locals = heads().filter((k) => k.languageId === 1000 && / near me$/.test(k.kw));
  assert.ok(locals.length >= 20, `local keywords (${locals.length})`);
  let packs = 0;
  for (const k of locals) {
    const local = t.search.keywordDetail({ kw: k.kw, locationId: 2840 });
    assert.ok(local.searchIntent[local.serp.mId]!.includes('local'), k.kw);
    if (local.serpFeatures.includes('LOCAL_PACK')) packs++;
  }
  assert.ok(packs >= locals.length / 2, `local packs on ${packs} of ${locals.length} local searches`);
  const de = t.search.serp({ kw: 'laufschuhe', locationId: 2276 });
  assert.ok(de.serp_source_url.startsWith('https://www.google.de/search?q=laufschuhe&gl=de&hl=de'));
});

test('keyword detail carries kwOpps from the top five results', () => {
  const detail = t.search.keywordDetail({ kw: 'hiking boots', locationId: 0 });
  assert.equal(detail.serp.location_id, 2840);
  assert.equal(typeof detail.kwOpps.isOutdatedPage, 'boolean');
  assert.ok(Array.isArray(detail.kwOpps.missingWordsInTitle));
  assert.ok(detail.contentTypes.length > 0);
});

test('related keywords of a head term share its niche, seed first, count varying with location', async () => {
  await t.search.rankIndex(2840); // SERP overlap, the same for every call below
  const head = heads().find((k) => k.kind === 'head' && k.kw === 'hiking boots') ?? heads().find((k) => k.kind === 'head')!;
  const related = await t.search.relatedKeywords(head.kw, 2840, 1000, 700);
  assert.equal(related.keywords[0].kw, head.kw);
  assert.ok(related.keywords.length > 5);
  for (const item of related.keywords.slice(1)) {
    const k = t.search.catalog.at(t.search.catalog.find(item.kw, 1000)!);
    assert.equal(k.nicheId, head.nicheId, `${item.kw} shares the niche of ${head.kw}`);
  }
  assert.equal(related.keywords[0]._id, keywordId(head.kw, 2840, 1000));
  const limited = await t.search.relatedKeywords(head.kw, 2840, 1000, 3);
  assert.equal(limited.keywords.length, 3);
  assert.equal(limited.countKeywordsBeforeLimit, related.countKeywordsBeforeLimit);
  const germany = await t.search.relatedKeywords(head.kw, 2276, 1000, 700);
  assert.notEqual(germany.countKeywordsBeforeLimit, related.countKeywordsBeforeLimit);
});

test('keyword items: volume per country is a share of the global volume, history from 2015-01', () => {
  const global = t.search.keywordItem('hiking boots', 0, 1000);
  const us = t.search.keywordItem('hiking boots', 2840, 1000);
  assert.ok(us.sv! < global.sv! && us.sv! > 0);
  assert.deepEqual(global.msv[0].slice(0, 2), [2015, 1]);
  assert.deepEqual(global.msv.at(-1)!.slice(0, 2), [2026, 10]);
  assert.equal(us._id, keywordId('hiking boots', 2840, 1000));
  assert.deepEqual(
    t.search.keywordsById([us._id, 'f'.repeat(32)]).map((k) => k.kw),
    ['hiking boots'],
  );
  // A text the world does not know gets stable, plausible metrics from its niche.
  const unknown = t.search.keywordItem('waterproof hiking boots for toddlers', 2840, 1000);
  assert.deepEqual(t.search.keywordItem('waterproof hiking boots for toddlers', 2840, 1000), unknown);
  assert.ok(unknown.sv! > 0 && unknown.sv! < us.sv!);
  const k = t.search.keyword('waterproof hiking boots for toddlers', 1000);
  assert.equal(k.nicheId, t.search.keyword('hiking boots', 1000).nicheId);
});

test('imported keywords get metrics and organic results like sandbox keywords', () => {
  const imported = t.search.importKeywords(['hiking boots', 'hiking boots for toddlers', ' Hiking   Boots '], 2840, 1000);
  assert.equal(imported.length, 2);
  for (const k of imported) {
    assert.equal(k.serp.length, 10);
    assert.ok(k.seo !== null);
    for (let i = 1; i < k.serp.length; i++) assert.ok(k.serp[i].ctr <= k.serp[i - 1].ctr);
  }
  assert.deepEqual(
    t.search.keywordsById([imported[1]._id]).map((k) => k.kw),
    ['hiking boots for toddlers'],
  );
});

test('rank index: competitor keywords, competitor domains, suggestions and gaps', async () => {
  const serp = t.search.serp({ kw: 'hiking boots', locationId: 2840 });
  const domain = serp.items.find((i) => i.type === 'ORGANIC')!.domain!;
  const ranking = await t.search.competitorKeywords(domain, 2840, 1000);
  assert.equal(ranking.url_type, 'domain');
  assert.ok(ranking.totalCount > 0);
  for (let i = 1; i < ranking.keywords.length; i++) assert.ok(ranking.keywords[i].position <= ranking.keywords[i - 1].position, 'worst to best');
  assert.ok(ranking.keywords.every((k) => k.url.includes(domain)));
  const competitors = await t.search.competitorDomains(domain, 2840);
  assert.ok(competitors.length > 0 && !competitors.some((c) => c.domain === domain));
  const rival = competitors[0].domain;
  const gap = await t.search.gap(domain, rival, 2840, 1, 100);
  const mine = new Set(ranking.keywords.map((k) => k.kw));
  assert.ok(gap.keywords.every((k) => !mine.has(k.kw)));
  for (let i = 1; i < gap.keywords.length; i++) assert.ok(gap.keywords[i].position >= gap.keywords[i - 1].position, 'best first');
  const suggested = await t.search.suggestedKeywords(domain, 2840, 50);
  assert.ok(suggested.length > 0);
  assert.ok((await t.search.competitorKeywords(`https://www.${domain}`, 0, 10)).keywords.length > 0, 'location 0 answers');
});

test('keywords imported into the research store are found after a reload and get SERPs', async () => {
  const { reloadSearchKeywords } = await import('../../../src/engine/search/index.js');
  const raw = t.store.raw;
  const id = (raw.prepare('SELECT MAX(id) AS id FROM keywords').get() as { id: number }).id + 1;
  raw
    .prepare(
      `INSERT INTO keywords (id, kw, language_id, niche_id, head, kind, intent, volume, trend, noise_seed, cpc, ppc, origin)
     VALUES (?, 'trail hiking boots sale', 1000, 1, 'hiking boots', 'import', 'transactional', 5400, 1, 7, 1.9, 55, 'import')`,
    )
    .run(id);
  raw.prepare('INSERT INTO keyword_markets (keyword_id, location_id, share) VALUES (?, 2840, 0.5)').run(id);
  raw.prepare('INSERT INTO keyword_history (keyword_id, location_id, year, month, searches) VALUES (?, 2840, 2026, 10, 3100)').run(id);
  reloadSearchKeywords(t.search, t.store);
  const item = t.search.keywordItem('trail hiking boots sale', 2840, 1000);
  assert.deepEqual(item.msv, [[2026, 10, 3100]]);
  assert.equal(item.cpc, 1.9);
  const serp = t.search.serp({ kw: 'trail hiking boots sale', locationId: 2840 });
  assert.equal(serp.serp_results, 100);
  assert.ok((await t.search.relatedKeywords('hiking boots', 2840, 1000, 1000)).keywords.some((k) => k.kw === 'trail hiking boots sale'));
});

test('the engine facade opens the search engine once, on first use', async () => {
  const { openEngine } = await import('../../../src/engine/index.js');
  const { copyTinyWorld } = await import('../../support/world.js');
  const { FakeClock } = await import('../../../src/lib/clock.js');
  const file = await copyTinyWorld();
  const engine = await openEngine({ file, clock: new FakeClock() });
  try {
    const search = await engine.search();
    assert.equal(await engine.search(), search);
    assert.equal(search.serp({ kw: 'hiking boots', locationId: 2840 }).serp_results, 100);
  } finally {
    await engine.close();
    const { rmSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    rmSync(dirname(file), { recursive: true, force: true });
  }
});

test('a second open loads the stored text index and rank index and ranks the same', async () => {
  const { openSearch } = await import('../../../src/engine/search/index.js');
  const again = await openSearch({ store: t.store, clock: t.clock });
  const count = (t.store.raw.prepare('SELECT COUNT(*) AS n FROM search_text_index').get() as { n: number }).n;
  assert.equal(count, 6);
  for (const kw of ['hiking boots', 'what is cold brew', 'summitpeak backpack']) {
    assert.deepEqual(again.serp({ kw, locationId: 2840 }), t.search.serp({ kw, locationId: 2840 }));
  }
  const built = await t.search.rankIndex(2840);
  const loaded = await again.rankIndex(2840);
  assert.equal(loaded.rows, built.rows);
  assert.deepEqual(loaded.allRows(), built.allRows());
  const domain = t.search.serp({ kw: 'tent', locationId: 2840 }).items.find((i) => i.type === 'ORGANIC')!.domain!;
  assert.deepEqual(await again.competitorKeywords(domain, 2840, 100), await t.search.competitorKeywords(domain, 2840, 100));
});

test('a market not ranked yet gets its rank index on first use, stored so that the next open loads it', async () => {
  const { openSearch } = await import('../../../src/engine/search/index.js');
  const storedBuild = () =>
    t.store.raw.prepare('SELECT date, built_at AS builtAt FROM search_rank_index WHERE location_id = 2826').get() as
      { date: string; builtAt: number } | undefined;
  assert.equal(storedBuild(), undefined, 'the UK is not ranked before it is asked for');
  const uk = await t.search.rankIndex(2826);
  assert.equal(uk.locationId, 2826);
  assert.ok(uk.rows > 0);
  const stored = storedBuild();
  assert.deepEqual(stored, { date: uk.date, builtAt: Math.floor(t.clock.now() / 1000) });

  // A day later a new build would carry the new date and build time: the second engine loads the stored one.
  const again = await openSearch({ store: t.store, clock: new FakeClock(t.clock.now() + DAY) });
  const loaded = await again.rankIndex(2826);
  assert.equal(loaded.date, uk.date);
  assert.deepEqual(loaded.allRows(), uk.allRows());
  assert.deepEqual(storedBuild(), stored);

  // The UK ranks the same (English) keywords as the US, but not in the same order everywhere.
  const us = await t.search.rankIndex(2840);
  let shared = 0;
  let differing = 0;
  for (let k = 0; k < t.search.catalog.size; k++) {
    if (!uk.covers(k) || !us.covers(k)) continue;
    shared++;
    if (uk.top(k).join() !== us.top(k).join()) differing++;
  }
  assert.ok(shared > 1000, `${shared} keywords ranked in both markets`);
  assert.ok(differing > 0, 'some top-10s differ between the UK and the US');
});

test('features follow intent across the keyword set, and desktop and mobile layouts differ', () => {
  const share = (keywords: ReturnType<typeof heads>, types: string[]) => {
    const hits = keywords.filter((k) => t.search.serp({ kw: k.kw, locationId: 2840 }).items.some((i) => types.includes(i.type)));
    return hits.length / keywords.length;
  };
  const questions = heads()
    .filter((k) => k.kind === 'question')
    .slice(0, 40);
  const buying = heads()
    .filter((k) => k.intentHints.includes('transactional') && k.kind !== 'question')
    .slice(0, 40);
  const plain = heads()
    .filter((k) => k.kind === 'head')
    .slice(0, 40);
  assert.ok(share(questions, ['FEATURED_SNIPPET', 'SIMILAR_QUESTIONS']) >= 0.6);
  assert.ok(share(buying, ['ADV_TOP', 'SHOP_RESULTS']) >= 0.6);
  assert.ok(share(questions, ['ADV_TOP', 'SHOP_RESULTS']) < share(buying, ['ADV_TOP', 'SHOP_RESULTS']));
  assert.ok(share(plain, ['FEATURED_SNIPPET']) < share(questions, ['FEATURED_SNIPPET']));
  const desktop = t.search.serp({ kw: 'what is cold brew', locationId: 2840, platform: 1 });
  const mobile = t.search.serp({ kw: 'what is cold brew', locationId: 2840, platform: 2 });
  assert.equal(desktop.items.find((i) => i.type === 'ORGANIC')!.positionToFold.fold, 768);
  assert.equal(mobile.items.find((i) => i.type === 'ORGANIC')!.positionToFold.fold, 844);
  assert.ok(mobile.items.find((i) => i.type === 'ORGANIC')!.size.r < desktop.items.find((i) => i.type === 'ORGANIC')!.size.r);
});

test('a city counts as its country for keyword volume', () => {
  const city = t.search.keywordItem('hiking boots', 1023191, 1000); // New York, NY
  const us = t.search.keywordItem('hiking boots', 2840, 1000);
  assert.equal(city.sv, us.sv);
  assert.equal(city.lid, 1023191);
  assert.notEqual(city._id, us._id);
});

test('a built world has its default market ranked: the engine opens with it loaded, and no difficulty is missing', async () => {
  const stored = t.store.raw.prepare('SELECT location_id FROM search_rank_index').pluck().all();
  assert.ok(stored.includes(2840), `stored: ${stored.join(', ')}`);
  const related = await t.search.relatedKeywords('hiking boots', 2840, 1000, 700);
  assert.equal(related.provisional, false);
  assert.deepEqual(
    related.keywords.filter((k) => k.seo === null).map((k) => k.kw),
    [],
  );
  // A keyword the world does not know: its difficulty is computed before answering.
  const unknown = await t.search.relatedKeywords('zebra hiking boots', 2840, 1000, 10);
  assert.equal(typeof unknown.keywords[0].seo, 'number');
  assert.equal(unknown.provisional, false);
});

test('related keywords answer at once while the market is being ranked, marked provisional (not for the cache), and start its ranking', async () => {
  const fresh = await openTinySearch(1, { withoutRankIndexes: true });
  try {
    const storedMarkets = () => fresh.store.raw.prepare('SELECT location_id FROM search_rank_index').pluck().all();
    assert.deepEqual(storedMarkets(), []);
    const related = await fresh.search.relatedKeywords('hiking boots', 2840, 1000, 700);
    assert.equal(related.keywords[0].kw, 'hiking boots');
    assert.equal(typeof related.keywords[0].seo, 'number', "the seed's difficulty is computed first");
    assert.ok(related.keywords.length > 5, 'related by shared words and niche without SERP overlap');
    assert.equal(related.provisional, true, 'rows without a difficulty that the ranking will give');
    assert.deepEqual(storedMarkets(), [], 'answered before the ranking of the market was done');
    await fresh.search.rankIndex(2840);
    assert.deepEqual(storedMarkets(), [2840], 'the lookup started the ranking in the background');
    const again = await fresh.search.relatedKeywords('hiking boots', 2840, 1000, 700);
    assert.equal(again.provisional, false);
    assert.ok(again.keywords.every((k) => k.seo !== null));
  } finally {
    await fresh.close();
  }
});
