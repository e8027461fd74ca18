/**
 * The /keyword-tool and /shared families spoken as the published clients speak them: every
 * request in the reference's form, every answer checked against the reference's response
 * schema (test/support/reference.ts), and the fields the reference adds to DESIGN.md §5
 * (limits, the history's language and lid, the lists' __v) with their documented values.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import { SECOND } from '../../../src/lib/clock.js';
import { client, newClient, pace, q, type KeywordClient } from './helpers.js';

let t: TestApp;
let c: KeywordClient & { id: string };

const DOMAIN = 'fabriclife.io';

async function expectShape(method: string, path: string, status: number, res: { statusCode: number; body: string; json(): unknown }): Promise<unknown> {
  assert.equal(res.statusCode, status, `${method} ${path}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  assertReferenceShape(method, `/keyword-tool${path}`, status, body);
  return body;
}

describe('the keyword tool in the reference’s shapes', () => {
  before(async () => {
    t = await testApp();
    c = await newClient(t);
  });
  after(async () => t.close());

  test('paid lookups: related, competitor (GET and POST), competitor domains, suggested, imports, gap, SERP, trends, kd', async () => {
    const related = (await expectShape(
      'GET',
      '/related-keywords',
      200,
      await c.get(`/related-keywords?${q({ kw: 'hiking boots', location_id: 2840, language_id: 1000 })}`),
    )) as { keywords: { _id: string }[] };
    assert.ok(related.keywords.length > 1);
    pace(t);
    await expectShape('GET', '/competitor-keywords', 200, await c.get(`/competitor-keywords?${q({ url: DOMAIN, location_id: 2840 })}`));
    pace(t);
    await expectShape('POST', '/competitor-keywords', 200, await c.post(`/competitor-keywords?${q({ url: DOMAIN, location_id: 2840 })}`));
    const domains = (await expectShape(
      'GET',
      '/competitor-domain',
      200,
      await c.get(`/competitor-domain?${q({ url: DOMAIN, location_id: 2840 })}`),
    )) as string[];
    assert.ok(domains.length > 0);
    pace(t);
    await expectShape('GET', '/suggested-keywords', 200, await c.get(`/suggested-keywords?${q({ url: DOMAIN, location_id: 2840 })}`));
    pace(t);
    const imported = (await expectShape(
      'POST',
      '/keyword-imports',
      200,
      await c.post('/keyword-imports', { keywords: ['tent', 'hiking boots'], location_id: 2840, language_id: 1000 }),
    )) as { keywords: { serp: unknown[] }[] };
    assert.ok(
      imported.keywords.every((k) => Array.isArray(k.serp)),
      'imports keep their organic results (the contract names them)',
    );
    pace(t);
    await expectShape(
      'POST',
      '/gap-analysis',
      200,
      await c.post('/gap-analysis', { domain: DOMAIN, competitors: ['geartalk.org', 'openpedia.org'], location_id: 2840, page: 1 }),
    );
    const detail = (await expectShape(
      'GET',
      '/serps',
      200,
      await c.get(`/serps?${q({ kw: 'hiking boots', location_id: 2840, platform_id: 1, page: 0 })}`),
    )) as {
      serp: { items: { screenCoverage: number }[]; browser: unknown };
    };
    assert.ok(detail.serp.items.every((i) => Number.isInteger(i.screenCoverage)) && detail.serp.browser, 'the SERP in the serp tool’s shape');
    await expectShape('GET', '/trends', 200, await c.get(`/trends?${q({ kw: 'tent' })}`));
    const kd = (await expectShape('GET', '/kd/url-metrics', 200, await c.get(`/kd/url-metrics?${q({ url: `https://${DOMAIN}/` })}`))) as { lps: number };
    assert.ok(Number.isInteger(kd.lps));
    await expectShape('GET', '/kd/requests', 200, await c.get('/kd/requests'));

    const exported = (await expectShape(
      'POST',
      '/keywords',
      200,
      await c.post('/keywords', { keyword_ids: related.keywords.slice(0, 3).map((k) => k._id), fields: 'kw,sv' }),
    )) as unknown[];
    assert.equal(exported.length, 3);
  });

  test('/requests: language is a Language object (the one the lookup ran in), lid a string on t 1 and an integer on t 2', async () => {
    const h = await newClient(t);
    // language_id 0: the lookup runs in the location's main language, and the history says which.
    await h.get(`/related-keywords?${q({ kw: 'tent', location_id: 2276 })}`);
    pace(t);
    await h.get(`/competitor-keywords?${q({ url: DOMAIN, location_id: 2840 })}`);
    pace(t);
    await h.post('/gap-analysis', { domain: DOMAIN, competitors: ['geartalk.org'], location_id: 2840 });
    const history = (await expectShape('GET', '/requests', 200, await h.get('/requests'))) as Record<string, unknown>[];
    assert.deepEqual(
      history.map((e) => e.t),
      [0, 1, 2],
    );
    assert.deepEqual(history[0].language, { _id: 1001, code: 'de', label: 'German' });
    assert.equal(history[0].lid, undefined);
    assert.equal(history[1].lid, '2840');
    assert.equal(history[2].lid, 2840);
  });

  test('lists: create, list all, detail, rename, add, remove, delete', async () => {
    const rel = (await c.get(`/related-keywords?${q({ kw: 'hiking boots', location_id: 2840, language_id: 1000 })}`)).json();
    const ids: string[] = rel.keywords.slice(0, 4).map((k: { _id: string }) => k._id);
    const created = (await expectShape('POST', '/lists', 201, await c.post('/lists', { keyword_ids: ids.slice(0, 2), name: 'Boots' }))) as {
      _id: string;
      __v: number;
    };
    assert.equal(created.__v, 0);
    await expectShape('GET', '/lists', 200, await c.get('/lists'));
    const path = `/lists/${created._id}`;
    assert.equal((await c.patch(path, { name: 'Hiking boots' })).statusCode, 204);
    assert.equal((await c.post(`${path}/keywords`, { keyword_ids: ids.slice(2) })).statusCode, 204);
    assert.equal((await c.del(`${path}/keywords`, { keyword_ids: ids.slice(0, 1) })).statusCode, 204);
    const detail = (await expectShape('GET', '/lists/{list_id}', 200, await c.get(path))) as { keywords: unknown[]; list: { name: string } };
    assert.equal(detail.keywords.length, 3);
    assert.equal(detail.list.name, 'Hiking boots');
    assert.equal((await c.del(path)).statusCode, 204);
  });

  test('limits: every field the reference shows, with the account’s own numbers', async () => {
    const l = await newClient(t, 'premium');
    const fresh = (await expectShape('GET', '/limits', 200, await l.get('/limits'))) as Record<string, unknown> & {
      resources: Record<string, { limit: number; remaining: number; reset?: number | null }>;
    };
    assert.equal(fresh.api_quota, null, 'no separate API quota');
    assert.deepEqual(fresh.resources.tracked_keywords, { limit: 700, remaining: 700 });
    assert.deepEqual(fresh.resources['checked-keywords-ranks'], { limit: 700, remaining: 700, reset: null });
    assert.deepEqual(fresh.resources['ai-watcher-prompts'], { limit: 2000, remaining: 2000, reset: null });
    assert.deepEqual(fresh.resources['ai-watcher-monitors'], { limit: 25, remaining: 25, reset: null });
    assert.deepEqual(fresh.resources['related-keywords'], { limit: 500, remaining: 500, reset: null }, 'nullable: no period runs');
    assert.deepEqual(fresh.resources.trends, { limit: 500, remaining: 500, reset: 0 }, 'not nullable: 0, the pool is whole');
    assert.equal(fresh.upgraded_account, true);
    assert.equal(fresh.highestPlan, 'premium');
    assert.equal(fresh.platformPlan, 'premium');
    assert.equal(fresh.trackings, 0);
    assert.equal(fresh.maxGeneratePrompts, 25);

    // The plan comparison: each limit, plans sharing a value grouped, from the configured plans.
    const options = fresh.limit_options as { name: string; limits: { plan: string | string[]; value: string }[] }[];
    const rows = options.find((o) => o.name === 'related-keywords-rows')!;
    assert.deepEqual(rows.limits.slice(0, 3), [
      { plan: ['entry', 'basic'], value: '200', color: '' },
      { plan: 'premium', value: '700', color: '' },
      { plan: 'agency', value: '1200', color: '' },
    ]);
    assert.ok(options.some((o) => o.name === 'links'));

    // A tracking of three keywords: one tracking, 697 keywords left.
    const created = await t.app.inject({
      method: 'POST',
      url: '/v3/rank-tool/trackings',
      headers: { 'x-access-token': l.key },
      payload: { domain: DOMAIN, location_id: 2840, platform_id: 1, keywords: ['tent', 'hiking boots', 'rain jacket'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const after = (await l.get('/limits')).json();
    assert.deepEqual(after.resources.tracked_keywords, { limit: 700, remaining: 697 });
    assert.deepEqual(after.resources['checked-keywords-ranks'], { limit: 700, remaining: 697, reset: null });
    assert.equal(after.trackings, 1);

    // A started daily period counts down on every pool, nullable or not.
    await l.get(`/trends?${q({ kw: 'tent' })}`);
    t.clock.advance(10 * SECOND);
    const started = (await l.get('/limits')).json();
    assert.deepEqual(started.resources.trends, { limit: 500, remaining: 499, reset: 24 * 3600 - 10 });

    const entry = (await newClient(t, 'entry').then((e) => e.get('/limits'))).json();
    assert.equal(entry.upgraded_account, false, 'the entry plan is where accounts start');
  });

  test('limits without a key: the same fields, nothing in them', async () => {
    const anonymous = client(t, '');
    const body = (await expectShape('GET', '/limits', 200, await anonymous.get('/limits'))) as Record<string, unknown>;
    assert.equal(body.plan, null);
    assert.equal(body.highestPlan, '');
    assert.equal(body.upgraded_account, false);
    assert.equal(body.trackings, 0);
  });
});

describe('the shared family in the reference’s shapes', () => {
  let s: TestApp;
  let key: string;
  before(async () => {
    s = await testApp();
    ({ key } = await s.account());
  });
  after(async () => s.close());

  const get = (url: string) => s.app.inject({ method: 'GET', url: `/v3/shared${url}`, headers: { 'x-access-token': key } });

  test('GET /shared/locations?query= and /shared/locations/{location}', async () => {
    const found = await get('/locations?query=united');
    assert.equal(found.statusCode, 200);
    assert.ok(found.json().length > 0);
    assertReferenceShape('GET', '/shared/locations', 200, found.json());
    const one = await get('/locations/2840');
    assert.equal(one.statusCode, 200);
    assertReferenceShape('GET', '/shared/locations/{location}', 200, one.json());
  });
});
