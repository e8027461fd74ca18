/**
 * GET /metrics (Prometheus text): requests by route template and status, paid admissions,
 * refusals and cache hits by pool, the job queue by state; no raw URLs or keys in labels.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { SECOND } from '../../src/lib/clock.js';

let t: TestApp;

describe('metrics', () => {
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  test('counts requests, admissions, cache hits and refusals by pool, and the jobs by state', async () => {
    const { key } = await t.account('premium');
    const headers = { 'x-access-token': key };
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers });
    const serps = (kw: string) => get(`/v3/keyword-tool/serps?kw=${encodeURIComponent(kw)}&location_id=2840`);
    assert.equal((await serps('tent')).statusCode, 200);
    assert.equal((await serps('tent')).headers['x-cache'], 'HIT');
    assert.equal((await serps('hiking boots')).statusCode, 200);
    assert.equal((await serps('gizmo')).statusCode, 200);
    assert.equal((await serps('widget')).statusCode, 429, 'the burst window: 3 per 30 s');
    t.clock.advance(31 * SECOND);
    assert.equal((await get('/v3/keyword-tool/lists/secret-id-123')).statusCode, 404);
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    const value = (line: string) => {
      const m = new RegExp(`^${line.replace(/[{}"/.?]/g, '\\$&')} (\\d+)$`, 'm').exec(text);
      return m ? Number(m[1]) : undefined;
    };
    assert.equal(value('quarry_admissions_total{pool="serps"}'), 3);
    assert.equal(value('quarry_cache_hits_total{pool="serps"}'), 1);
    assert.equal(value('quarry_refusals_total{pool="serps",reason="RateLimit"}'), 1);
    assert.equal(value('quarry_http_requests_total{method="GET",route="/v3/keyword-tool/serps",status="200"}'), 4);
    assert.equal(value('quarry_http_requests_total{method="GET",route="/v3/keyword-tool/lists/:list_id",status="404"}'), 1);
    assert.match(text, /^# TYPE quarry_jobs gauge$/m);
    assert.ok(!text.includes('secret-id-123') && !text.includes(key), 'no raw URLs or keys in labels');
    // Not part of the API: absent from the OpenAPI document.
    const doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p === '/metrics' || p.endsWith('/metrics')));
  });
});
