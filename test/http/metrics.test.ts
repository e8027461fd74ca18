/**
 * GET /metrics (Prometheus text): requests by route template and status, paid admissions,
 * refusals and cache hits by pool, the job queue by state; no raw URLs or keys in labels.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { METRICS_HEADERS, TEST_METRICS_TOKEN, testApp, type TestApp } from '../support/app.js';
import { startMetricsServer } from '../../src/metrics/metricsServer.js';
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
    // A HEAD of a cached request is a hit of its own method; a URL no route takes counts as unmatched.
    const head = await t.app.inject({ method: 'HEAD', url: '/v3/keyword-tool/serps?kw=tent&location_id=2840', headers });
    assert.equal(head.headers['x-cache'], 'HIT');
    assert.equal((await get('/v3/no/such/route?kw=secret-id-123')).statusCode, 404);
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: METRICS_HEADERS });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    const value = (line: string) => {
      const m = new RegExp(`^${line.replace(/[{}"/.?]/g, '\\$&')} (\\d+)$`, 'm').exec(text);
      return m ? Number(m[1]) : undefined;
    };
    assert.equal(value('quarry_admissions_total{pool="serps"}'), 3);
    assert.equal(value('quarry_cache_hits_total{pool="serps"}'), 2);
    assert.equal(value('quarry_refusals_total{pool="serps",reason="RateLimit"}'), 1);
    assert.equal(value('quarry_http_requests_total{method="GET",route="/v3/keyword-tool/serps",status="200"}'), 4);
    assert.equal(value('quarry_http_requests_total{method="GET",route="/v3/keyword-tool/lists/:list_id",status="404"}'), 1);
    assert.equal(value('quarry_http_requests_total{method="HEAD",route="/v3/keyword-tool/serps",status="200"}'), 1);
    assert.equal(value('quarry_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
    assert.match(text, /^# TYPE quarry_jobs gauge$/m);
    assert.ok(!text.includes('secret-id-123') && !text.includes(key), 'no raw URLs or keys in labels');
    // Not part of the API: absent from the OpenAPI document.
    const doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p === '/metrics' || p.endsWith('/metrics')));
  });

  test('on the API port /metrics answers only the bearer token QUARRY_METRICS_TOKEN; without one configured it is not there', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: 'Basic dGVzdA==' },
      { 'x-access-token': (await t.account()).key },
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(res.json().error.type, 'AuthError');
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      assert.doesNotMatch(res.body, /quarry_/);
    }
    const open = await testApp({ env: { QUARRY_METRICS_TOKEN: '' } });
    try {
      assert.equal((await open.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    } finally {
      await open.close();
    }
  });

  test('QUARRY_METRICS_PORT asks for the token too when one is set', async () => {
    const server = await startMetricsServer(t.ctx.metrics, 0, '127.0.0.1', TEST_METRICS_TOKEN);
    try {
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status, 401);
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: METRICS_HEADERS });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /quarry_/);
    } finally {
      await server.close();
    }
  });
});
