/**
 * Histories (rule 8): /keyword-tool/requests keeps the last 100 lookups oldest first (t 0
 * related keywords, 1 competitor keywords, 2 gap analysis); /keyword-tool/kd/requests the
 * last 100 kd url-metrics lookups, oldest first, `_id` the md5 of the url. And the kd
 * url-metrics operation itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testApp, type TestApp } from '../../support/app.js';
import { unixSeconds } from '../../../src/lib/clock.js';
import { newClient, pace, q } from './helpers.js';

let t: TestApp;
const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const US = { _id: 2840, label: 'United States', code: 'us' };

describe('keyword-tool histories and kd url metrics', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('/requests: entry fields for t 0, 1 and 2, oldest first', async () => {
    const c = await newClient(t);
    assert.deepEqual((await c.get('/requests')).json(), []);
    const t0 = unixSeconds(t.clock.now());
    const rel = (await c.get(`/related-keywords?${q({ kw: ' hiking  boots ', location_id: 2840, language_id: 1000 })}`)).json();
    pace(t);
    await c.get(`/competitor-keywords?${q({ url: 'fabriclife.io', location_id: 2840 })}`);
    pace(t);
    await c.post('/gap-analysis', { domain: 'fabriclife.io', competitors: ['geartalk.org', 'openpedia.org'], location_id: 2840 });
    // Cache hits, imports, SERP lookups and free reads add nothing.
    await c.get(`/related-keywords?${q({ kw: 'hiking boots', location_id: 2840, language_id: 1000 })}`);
    pace(t);
    await c.post('/keyword-imports', { keywords: ['tent'], location_id: 2840, language_id: 1000 });
    await c.get(`/serps?${q({ kw: 'tent' })}`);
    await c.get('/competitor-domain?url=fabriclife.io&location_id=2840');

    const res = await c.get('/requests');
    assert.equal(res.statusCode, 200);
    const history = res.json();
    assert.deepEqual(
      history.map((e: { t: number }) => e.t),
      [0, 1, 2],
    );
    const [related, competitor, gap] = history;
    assert.equal(related.kw, 'hiking boots');
    assert.deepEqual(related.language, { _id: 1000, code: 'en', label: 'English' });
    assert.deepEqual(related.location, US);
    assert.equal(related.rank, rel.keywords[0].seo);
    assert.equal(related.rank_ts, rel.keywords[0].seo_ts);
    assert.ok(related.rank === null || Number.isInteger(related.rank));
    assert.equal(related.created, t0);
    assert.equal(competitor.url, 'fabriclife.io');
    assert.deepEqual(competitor.location, US);
    assert.equal(competitor.lid, '2840', 'a string on competitor lookups, as the reference shows it');
    assert.equal(competitor.created, t0 + 11);
    assert.equal(gap.domain, 'fabriclife.io');
    assert.deepEqual(gap.competitors, ['geartalk.org', 'openpedia.org']);
    assert.deepEqual(gap.location, US);
    assert.equal(gap.lid, 2840, 'an integer on gap analyses');
    assert.equal((await c.pool()).remaining, 500 - 1 - 1 - 2 - 1, 'reading the history is free');
  });

  test('/requests keeps the last 100, oldest first', async () => {
    const c = await newClient(t);
    for (let i = 0; i < 102; i++) {
      assert.equal((await c.get(`/related-keywords?${q({ kw: `history seed ${i}`, location_id: 2840 })}`)).statusCode, 200);
      pace(t);
    }
    const history = (await c.get('/requests')).json();
    assert.equal(history.length, 100);
    assert.deepEqual(
      history.map((e: { kw: string }) => e.kw),
      Array.from({ length: 100 }, (_, i) => `history seed ${i + 2}`),
    );
    for (let i = 1; i < history.length; i++) assert.ok(history[i].created > history[i - 1].created);
  });

  test('kd url metrics: {_id: md5 of the url, url, lps}; charged to kw-url-metrics', async () => {
    const c = await newClient(t);
    const page = t.ctx.search.page(0).url;
    const res = await c.get(`/kd/url-metrics?${q({ url: page })}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['_id', 'lps', 'url']);
    assert.equal(body.url, page);
    assert.equal(body._id, md5(page));
    assert.ok(typeof body.lps === 'number' && body.lps >= 0 && body.lps <= 100);
    const domain = (await c.get(`/kd/url-metrics?${q({ url: 'fabriclife.io' })}`)).json();
    assert.equal(domain._id, md5('fabriclife.io'));
    assert.equal((await c.pool('kw-url-metrics')).remaining, 498);
    assert.equal((await c.pool('related-keywords')).remaining, 500);
    const again = await c.get(`/kd/url-metrics?${q({ url: page })}`);
    assert.equal(again.headers['x-cache'], 'HIT');
    for (const url of ['not a url', 'ftp://fabriclife.io', '127.0.0.1', '']) {
      const bad = await c.get(`/kd/url-metrics?${q({ url })}`);
      assert.equal(bad.statusCode, 422, url);
      assert.deepEqual(bad.json(), { error: { type: 'InvalidInput', message: 'Parameter url is invalid' } });
    }
    assert.equal((await c.get('/kd/url-metrics')).statusCode, 422);
    assert.equal((await c.pool('kw-url-metrics')).remaining, 498);
  });

  test('/kd/requests: _id md5 of the url, t 0, url, lps, created; last 100 oldest first', async () => {
    const c = await newClient(t);
    const urls = Array.from({ length: 102 }, (_, i) => t.ctx.search.page(i * 3).url);
    assert.equal(new Set(urls).size, 102);
    const answers: { lps: number }[] = [];
    for (const url of urls) {
      const res = await c.get(`/kd/url-metrics?${q({ url })}`);
      assert.equal(res.statusCode, 200, url);
      answers.push(res.json());
      pace(t);
    }
    const history = (await c.get('/kd/requests')).json();
    assert.equal(history.length, 100);
    history.forEach((e: Record<string, unknown>, i: number) => {
      assert.deepEqual(Object.keys(e).sort(), ['_id', 'created', 'lps', 't', 'url']);
      assert.equal(e.url, urls[i + 2]);
      assert.equal(e._id, md5(urls[i + 2]));
      assert.equal(e.t, 0);
      assert.equal(e.lps, answers[i + 2].lps);
      assert.ok(Number.isInteger(e.created));
    });
    // kd lookups stay out of the keyword-tool request history.
    assert.deepEqual((await c.get('/requests')).json(), []);
  });
});
