/**
 * POST /keyword-tool/gap-analysis (rule 10): 1 to 5 competitors; one result per competitor
 * ordered by its position, best first; each competitor is one lookup unless the same
 * domain, competitor, location and page were asked within 24 h; page > 1 only on Premium,
 * Agency, Custom and API Pro.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY, SECOND } from '../../../src/lib/clock.js';
import { newClient, pace, q, type KeywordClient } from './helpers.js';

let t: TestApp;
const DOMAIN = 'fabriclife.io';
const RIVALS = ['openpedia.org', 'geartalk.org', 'riverjournal.com', 'fairherald.com', 'weatherlab.org', 'camphq.com'];

const gap = (c: KeywordClient, body: Record<string, unknown>) => c.post('/gap-analysis', { domain: DOMAIN, location_id: 2840, ...body });

describe('POST /keyword-tool/gap-analysis', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('one result per competitor: keywords it ranks for and the domain does not, best position first', async () => {
    const c = await newClient(t, 'custom');
    const res = await gap(c, { competitors: RIVALS.slice(0, 2) });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.mode, 'missing');
    assert.equal(body.page, 1);
    assert.equal(body.isAllowedPagination, true);
    assert.deepEqual(
      body.results.map((r: { domain: string }) => r.domain),
      RIVALS.slice(0, 2),
    );
    pace(t);
    const own = (await c.get(`/competitor-keywords?${q({ url: DOMAIN, location_id: 2840 })}`)).json();
    assert.ok(own.totalCount < 1000, 'the whole ranking of the domain is known');
    const ranked = new Set(own.keywords.map((k: { kw: string }) => k.kw));
    for (const result of body.results) {
      assert.ok(result.keywords.length > 0);
      assert.ok(result.keywords.length <= body.resultsSize);
      assert.ok(result.totalCount >= result.keywords.length);
      for (let i = 1; i < result.keywords.length; i++) {
        assert.ok(result.keywords[i].position >= result.keywords[i - 1].position, `${result.domain}: best position first`);
      }
      for (const k of result.keywords) {
        assert.ok(!ranked.has(k.kw), `${DOMAIN} does not rank for ${k.kw}`);
        assert.ok(Number.isInteger(k.sv) && typeof k.cpc === 'number' && Number.isInteger(k.position));
        assert.ok('seo' in k, 'keyword difficulty');
        assert.match(k._id, /^[0-9a-f]{32}$/);
      }
    }
  });

  test('1 and 5 competitors are accepted; 0 and 6 → 422', async () => {
    const c = await newClient(t, 'custom');
    assert.equal((await gap(c, { competitors: RIVALS.slice(0, 1) })).statusCode, 200);
    pace(t);
    assert.equal((await gap(c, { competitors: RIVALS.slice(0, 5) })).statusCode, 200);
    const before = await c.pool();
    for (const competitors of [[], RIVALS.slice(0, 6)]) {
      const res = await gap(c, { competitors });
      assert.equal(res.statusCode, 422, `${competitors.length} competitors`);
      assert.equal(res.json().error.type, 'ValidationError');
    }
    assert.deepEqual(await c.pool(), before);
  });

  test('each competitor is one lookup; within 24 h only a new competitor costs', async () => {
    const c = await newClient(t);
    await gap(c, { competitors: RIVALS.slice(0, 2) });
    assert.equal((await c.pool()).remaining, 498);
    pace(t);
    const second = await gap(c, { competitors: [...RIVALS.slice(0, 2), RIVALS[2]] });
    assert.equal(second.statusCode, 200);
    assert.equal((await c.pool()).remaining, 497, 'one new competitor costs 1');
    pace(t);
    // Another order of known competitors costs nothing; a repeated competitor counts once.
    const repeated = (await gap(c, { competitors: [RIVALS[2], RIVALS[0], ` ${RIVALS[0].toUpperCase()} `] })).json();
    assert.equal((await c.pool()).remaining, 497);
    assert.deepEqual(
      repeated.results.map((r: { domain: string }) => r.domain),
      [RIVALS[2], RIVALS[0]],
      'one result per competitor',
    );
    // Another location or page is another lookup.
    pace(t);
    await gap(c, { competitors: [RIVALS[0]], location_id: 2826 });
    assert.equal((await c.pool()).remaining, 496);
    pace(t);
    await gap(c, { competitors: [RIVALS[0]], page: 2 });
    assert.equal((await c.pool()).remaining, 495);
    // After 24 h every competitor costs again.
    t.clock.advance(DAY + SECOND);
    await gap(c, { competitors: RIVALS.slice(0, 2) });
    assert.equal((await c.pool()).remaining, 498, 'a new period, two lookups');
  });

  test('page > 1 is honoured on premium; entry and basic always get page 1', async () => {
    const premium = await newClient(t, 'premium');
    const p1 = (await gap(premium, { competitors: [RIVALS[0]] })).json();
    const p2 = (await gap(premium, { competitors: [RIVALS[0]], page: 2 })).json();
    assert.equal(p2.page, 2);
    assert.equal(p2.isAllowedPagination, true);
    assert.ok(p1.results[0].totalCount > p1.resultsSize, 'the competitor has more than one page');
    const first = new Set(p1.results[0].keywords.map((k: { _id: string }) => k._id));
    assert.ok(p2.results[0].keywords.length > 0);
    assert.ok(
      p2.results[0].keywords.every((k: { _id: string }) => !first.has(k._id)),
      'page 2 holds other keywords',
    );
    assert.ok(p2.results[0].keywords[0].position >= p1.results[0].keywords.at(-1).position);

    for (const plan of ['entry', 'basic']) {
      const c = await newClient(t, plan);
      const asked2 = (await gap(c, { competitors: [RIVALS[0]], page: 2 })).json();
      assert.equal(asked2.page, 1, plan);
      assert.equal(asked2.isAllowedPagination, false, plan);
      assert.deepEqual(
        asked2.results[0].keywords.map((k: { _id: string }) => k._id),
        p1.results[0].keywords.map((k: { _id: string }) => k._id),
        plan,
      );
      assert.equal((await c.pool()).remaining, 99, plan);
      // Page 1 asked next is the same lookup: not charged again.
      await gap(c, { competitors: [RIVALS[0]], page: 1 });
      assert.equal((await c.pool()).remaining, 99, plan);
    }
  });

  test('bad input → 422, nothing charged', async () => {
    const c = await newClient(t);
    const cases: Record<string, unknown>[] = [
      { competitors: ['not a url'] },
      { competitors: [RIVALS[0]], domain: '' },
      { competitors: [RIVALS[0]], location_id: 999_999_999 },
      { competitors: [RIVALS[0]], location_id: '2840' },
      { competitors: [RIVALS[0]], page: 0 },
      { competitors: RIVALS[0] },
      { competitors: [42] },
    ];
    for (const body of cases) {
      const res = await gap(c, body);
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      assert.ok(['InvalidInput', 'ValidationError'].includes(res.json().error.type));
    }
    const missing = await c.post('/gap-analysis', { competitors: [RIVALS[0]] });
    assert.equal(missing.statusCode, 422);
    assert.equal((await c.pool()).remaining, 500);
  });
});
