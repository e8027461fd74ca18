/**
 * GET /keyword-tool/related-keywords (keyword-tool rule 1): seed first, at most the plan's
 * related-keywords-rows and never more than 10,000; countKeywordsBeforeLimit, `_id`,
 * `source` null; a bad location or language is 422 InvalidInput and charges nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { client, newClient, pace, q } from './helpers.js';
import { importPlannerKeywords } from './plannerKeywords.js';

let t: TestApp;
const IMPORTED = 12_000;

const related = (c: ReturnType<typeof client>, params: Record<string, string | number>) => c.get(`/related-keywords?${q(params)}`);

describe('GET /keyword-tool/related-keywords', () => {
  before(async () => {
    t = await testApp();
    await importPlannerKeywords(t.ctx, IMPORTED);
    // As after the restart that follows an import: the market is ranked again before the
    // service is ready (until then answers lack difficulty and are not cached).
    await t.ctx.search.rankIndex(2840);
  });
  after(async () => t.close());

  test('the seed comes first, once; the others are related keywords with ids and metrics', async () => {
    const c = await newClient(t);
    const res = await related(c, { kw: 'best coffee beans', location_id: 2840, language_id: 1000 });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['_id', 'countKeywordsBeforeLimit', 'keywords', 'language', 'location', 'source']);
    assert.equal(body.keywords[0].kw, 'best coffee beans');
    assert.equal(body.keywords.filter((k: { kw: string }) => k.kw === 'best coffee beans').length, 1);
    assert.ok(body.keywords.length > 10, 'a head seed has related keywords in the tiny world');
    assert.equal(body.countKeywordsBeforeLimit, body.keywords.length, 'under the plan limit nothing is cut');
    assert.equal(body.source, null);
    assert.match(body._id, /^[0-9a-f]{32}$/);
    assert.deepEqual(body.location, { _id: 2840, label: 'United States', code: 'us' });
    assert.equal(body.language._id, 1000);
    const ids = new Set<string>();
    for (const k of body.keywords) {
      assert.match(k._id, /^[0-9a-f]{32}$/);
      ids.add(k._id);
      assert.equal(k.lid, 2840);
      assert.equal(typeof k.kw, 'string');
      assert.ok(Number.isInteger(k.sv) && k.sv >= 0);
      assert.ok(typeof k.cpc === 'number' && k.cpc >= 0);
      assert.ok(Number.isInteger(k.ppc) && k.ppc >= 0 && k.ppc <= 100);
      assert.ok(k.seo === null || (k.seo >= 0 && k.seo <= 100));
      assert.ok(Array.isArray(k.msv) && k.msv.every((m: number[]) => m.length === 3));
    }
    assert.equal(ids.size, body.keywords.length, 'keyword ids are distinct');
  });

  test('premium returns exactly 700 of a larger set; countKeywordsBeforeLimit counts them all', async () => {
    const c = await newClient(t, 'premium');
    const body = (await related(c, { kw: 'widget gadget', location_id: 2840 })).json();
    assert.equal(body.keywords.length, 700);
    assert.equal(body.keywords[0].kw, 'widget gadget');
    assert.equal(body.countKeywordsBeforeLimit, IMPORTED + 1, 'every imported keyword plus the seed');
  });

  test('entry gets 200, api-pro 2,000 and custom 10,000 — never more than 10,000', async () => {
    for (const [plan, rows] of [
      ['entry', 200],
      ['api-pro', 2000],
      ['custom', 10_000],
    ] as const) {
      const c = await newClient(t, plan);
      const limits = (await c.get('/limits')).json();
      assert.equal(limits['related-keywords-rows'], rows, plan);
      const body = (await related(c, { kw: 'gizmo quartz', location_id: 2840 })).json();
      assert.equal(body.keywords.length, rows, plan);
      assert.equal(body.keywords[0].kw, 'gizmo quartz', plan);
      assert.ok(body.countKeywordsBeforeLimit > 10_000, 'more exist than the ceiling');
      assert.equal(new Set(body.keywords.map((k: { _id: string }) => k._id)).size, rows, 'distinct ids');
    }
  });

  test('the count varies with location and language', async () => {
    const c = await newClient(t);
    const us = (await related(c, { kw: 'widget gadget', location_id: 2840 })).json();
    pace(t);
    // The imported keywords have a market only in the United States.
    const de = (await related(c, { kw: 'widget gadget', location_id: 2276 })).json();
    pace(t);
    const french = (await related(c, { kw: 'widget gadget', location_id: 2840, language_id: 1002 })).json();
    assert.equal(us.countKeywordsBeforeLimit, IMPORTED + 1);
    assert.equal(de.countKeywordsBeforeLimit, 1);
    assert.equal(french.countKeywordsBeforeLimit, 1);
    assert.deepEqual(
      de.keywords.map((k: { kw: string }) => k.kw),
      ['widget gadget'],
    );
    assert.deepEqual(de.location, { _id: 2276, label: 'Germany', code: 'de' });
    assert.equal(french.language._id, 1002);
    assert.notEqual(us._id, de._id);
    assert.notEqual(us._id, french._id);
    assert.notEqual(us.keywords[0]._id, de.keywords[0]._id, 'a keyword id is per location');
  });

  test('defaults: location 0 and language 0; _id is stable for the same question across accounts', async () => {
    const a = await newClient(t);
    const b = await newClient(t);
    const one = (await related(a, { kw: 'coffee grinder' })).json();
    const two = (await related(b, { kw: '  coffee   grinder ', location_id: 0, language_id: 0 })).json();
    assert.equal(one.location._id, 0);
    assert.equal(one._id, two._id);
    assert.equal(one.keywords[0]._id, two.keywords[0]._id);
    assert.equal(one.keywords[0].lid, 0);
  });

  test('an identical request within 24 h is answered from cache: one charge', async () => {
    const c = await newClient(t);
    const first = await related(c, { kw: 'dog food', location_id: 2840 });
    const again = await related(c, { kw: 'dog food', location_id: 2840 });
    assert.equal(again.body, first.body);
    assert.equal(again.headers['x-cache'], 'HIT');
    assert.equal((await c.pool()).remaining, 499);
  });

  test('an unknown location or language → 422 InvalidInput, nothing charged', async () => {
    const c = await newClient(t);
    const cases: [Record<string, string | number>, string][] = [
      [{ kw: 'coffee', location_id: 999_999_999 }, 'location_id'],
      [{ kw: 'coffee', location_id: 'abc' }, 'location_id'],
      [{ kw: 'coffee', location_id: -1 }, 'location_id'],
      [{ kw: 'coffee', location_id: '2840.5' }, 'location_id'],
      [{ kw: 'coffee', language_id: 42 }, 'language_id'],
      [{ kw: 'coffee', language_id: 'en' }, 'language_id'],
    ];
    for (const [params, name] of cases) {
      const res = await related(c, params);
      assert.equal(res.statusCode, 422, JSON.stringify(params));
      assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } }, JSON.stringify(params));
    }
    const missing = await c.get('/related-keywords');
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(missing.json(), { error: { type: 'InvalidInput', message: 'Parameter kw is invalid' } });
    assert.equal((await c.pool()).remaining, 500);
    // Refusals took no burst capacity either: three lookups in a row are admitted.
    for (const kw of ['a1 coffee', 'a2 coffee', 'a3 coffee']) assert.equal((await related(c, { kw })).statusCode, 200);
  });
});
