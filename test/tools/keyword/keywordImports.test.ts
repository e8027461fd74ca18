/**
 * POST /keyword-tool/keyword-imports (rule 5): at most the plan's related-keywords-rows
 * (exactly that many → 200, one more → 400); metrics, difficulty, history and organic
 * results with CTRs per keyword; never cached; one per 30 s per account.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { SECOND } from '../../../src/lib/clock.js';
import { newClient, type KeywordClient } from './helpers.js';
import { spend } from '../link/helpers.js';

let t: TestApp;
/** Known English keywords of the tiny world (they have organic results). */
let known: string[];

const importKw = (c: KeywordClient, keywords: unknown, location_id: unknown = 2840, language_id: unknown = 1000) =>
  c.post('/keyword-imports', { keywords, location_id, language_id });

describe('POST /keyword-tool/keyword-imports', () => {
  before(async () => {
    t = await testApp();
    const s = t.ctx.search;
    known = [];
    for (let i = 0; i < s.catalog.size && known.length < 400; i++) if (s.catalog.at(i).languageId === 1000) known.push(s.catalog.at(i).kw);
  });
  after(async () => t.close());

  test('every keyword carries seo, cpc, ppc, msv, sv and organic results with CTRs', async () => {
    const c = await newClient(t);
    const texts = known.slice(0, 20);
    const res = await importKw(c, texts);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['countKeywordsBeforeLimit', 'keywords', 'language', 'location']);
    assert.deepEqual(body.location, { _id: 2840, label: 'United States', code: 'us' });
    assert.equal(body.language._id, 1000);
    assert.equal(body.keywords.length, 20);
    assert.equal(body.countKeywordsBeforeLimit, 20);
    assert.deepEqual(
      body.keywords.map((k: { kw: string }) => k.kw),
      texts,
    );
    for (const k of body.keywords) {
      assert.match(k._id, /^[0-9a-f]{32}$/);
      assert.ok(Number.isInteger(k.seo) && k.seo >= 0 && k.seo <= 100, `seo of ${k.kw}`);
      assert.ok(typeof k.cpc === 'number' && k.cpc >= 0);
      assert.ok(Number.isInteger(k.ppc) && k.ppc >= 0 && k.ppc <= 100);
      assert.ok(Number.isInteger(k.sv));
      assert.ok(Array.isArray(k.msv) && k.msv.length >= 12);
      assert.deepEqual(k.msv[0].slice(0, 2), [2015, 1], 'search volume history reaches back to 2015');
      assert.ok(Array.isArray(k.serp) && k.serp.length > 0, `organic results of ${k.kw}`);
      k.serp.forEach((r: { position: number; url: string; ctr: number }, i: number) => {
        assert.equal(r.position, i + 1);
        assert.match(r.url, /^https?:\/\//);
        assert.ok(r.ctr > 0 && r.ctr < 1);
      });
      for (let i = 1; i < k.serp.length; i++) assert.ok(k.serp[i].ctr <= k.serp[i - 1].ctr, 'CTR falls with the position');
    }
    // The ids are export ids.
    const exported = (await c.post('/keywords', { keyword_ids: body.keywords.map((k: { _id: string }) => k._id) })).json();
    assert.deepEqual(
      exported.map((k: { kw: string }) => k.kw),
      texts,
    );
  });

  test('exactly the plan rows → 200; one more → 400 and nothing charged (entry 200, premium 700)', async () => {
    for (const [plan, rows] of [
      ['entry', 200],
      ['premium', 700],
    ] as const) {
      const c = await newClient(t, plan);
      const texts = Array.from({ length: rows + 1 }, (_, i) => `${plan} import probe ${i}`);
      const over = await importKw(c, texts);
      assert.equal(over.statusCode, 400, plan);
      assert.equal(typeof over.json().error.message, 'string');
      assert.equal((await c.pool()).remaining, plan === 'entry' ? 100 : 500, 'a refused import is not charged');
      // The refusal started no cooldown.
      const exact = await importKw(c, texts.slice(0, rows));
      assert.equal(exact.statusCode, 200, plan);
      assert.equal(exact.json().keywords.length, rows);
      assert.equal((await c.pool()).remaining, plan === 'entry' ? 99 : 499);
    }
  });

  test('a set over the plan rows is a 400 of any size, before the cooldown, the burst window and the pool', async () => {
    const c = await newClient(t, 'entry');
    const texts = Array.from({ length: 201 }, (_, i) => `cooldown probe ${i}`);
    assert.equal((await importKw(c, texts.slice(0, 200))).statusCode, 200);
    const counters = await c.pool();
    // In the cooldown: exactly the plan rows wait, one more is refused outright (another
    // set: an identical one would be the free retry of the first).
    assert.equal((await importKw(c, texts.slice(1, 201))).json().error.type, 'RateLimit');
    const over = await importKw(c, texts);
    assert.equal(over.statusCode, 400, 'in the cooldown');
    // Any size: past the old schema cap of 100,000 too.
    const huge = await importKw(
      c,
      Array.from({ length: 100_001 }, () => 'k'),
    );
    assert.equal(huge.statusCode, 400, '100,001 keywords');
    assert.equal(typeof huge.json().error.message, 'string');
    assert.deepEqual(await c.pool(), counters);
    // With the pool spent as well.
    t.clock.advance(31 * SECOND);
    await spend(t, c.id, counters.remaining, 'related-keywords', 'entry');
    assert.equal((await importKw(c, texts)).statusCode, 400, 'with the pool spent');
    assert.equal((await importKw(c, texts.slice(0, 200))).json().error.type, 'CreditLimit');
  });

  test('a repeat of the same import counts again: no cache', async () => {
    const c = await newClient(t);
    const first = await importKw(c, ['coffee grinder', 'dog bed']);
    t.clock.advance(31 * SECOND);
    const second = await importKw(c, ['coffee grinder', 'dog bed']);
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['x-cache'], undefined);
    assert.deepEqual(
      second.json().keywords.map((k: { _id: string }) => k._id),
      first.json().keywords.map((k: { _id: string }) => k._id),
    );
    assert.equal((await c.pool()).remaining, 498);
  });

  test('one import per 30 s: sooner → 429 RateLimit with retry_after = the seconds left', async () => {
    const c = await newClient(t);
    const start = t.clock.now();
    assert.equal((await importKw(c, ['tent'])).statusCode, 200);
    t.clock.set(start + 12 * SECOND);
    const refused = await importKw(c, ['hammock']);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.type, 'RateLimit');
    assert.equal(refused.json().error.retry_after, 18);
    assert.equal(refused.headers['retry-after'], '18');
    t.clock.set(start + 25_500);
    assert.equal((await importKw(c, ['hammock'])).json().error.retry_after, 5, 'whole seconds, rounded up');
    assert.equal((await c.pool()).remaining, 499, 'refusals are not charged');
    // Another account is not held back.
    const other = await newClient(t);
    assert.equal((await importKw(other, ['hammock'])).statusCode, 200);
    t.clock.set(start + 30 * SECOND + 1);
    assert.equal((await importKw(c, ['hammock'])).statusCode, 200);
    // The refusals did not restart the cooldown: it runs from the last admitted import.
    t.clock.set(start + 60 * SECOND + 2);
    assert.equal((await importKw(c, ['lamp'])).statusCode, 200);
  });

  test('unknown text gets an id and derived metrics; blank and repeated texts are dropped', async () => {
    const c = await newClient(t);
    const res = await importKw(c, ['zqxv unheard keyword', '  Coffee   Grinder ', 'coffee grinder', '']);
    assert.equal(res.statusCode, 200);
    const kws = res.json().keywords.map((k: { kw: string }) => k.kw);
    assert.deepEqual(kws, ['zqxv unheard keyword', 'coffee grinder']);
  });

  test('bad location, language or body → 422, nothing charged', async () => {
    const c = await newClient(t);
    const cases: [unknown, unknown, unknown, string][] = [
      [['tent'], 999_999_999, 1000, 'InvalidInput'],
      [['tent'], 2840, 42, 'InvalidInput'],
      [['tent'], '2840', 1000, 'ValidationError'],
      ['tent', 2840, 1000, 'ValidationError'],
      [[1, 2], 2840, 1000, 'ValidationError'],
      [['x'.repeat(256)], 2840, 1000, 'ValidationError'],
    ];
    for (const [keywords, location, language, type] of cases) {
      const res = await importKw(c, keywords, location, language);
      assert.equal(res.statusCode, 422, JSON.stringify([keywords, location, language]).slice(0, 80));
      assert.equal(res.json().error.type, type);
    }
    const missing = await c.post('/keyword-imports', { keywords: ['tent'] });
    assert.equal(missing.statusCode, 422);
    assert.equal((await c.pool()).remaining, 500);
  });
});
