/**
 * The edge's error answers: validation (InvalidInput for parameters, ValidationError for
 * bodies), unknown routes, oversized bodies, and the per-IP gateway whose refusal is the
 * one error that is HTML rather than JSON.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isErrorBody, testApp, type TestApp } from '../support/app.js';

/** A free operation with a body schema, to exercise body validation on its own. */
async function bodyFixture(app: FastifyInstance) {
  // A parameter that is a union of integer literals, as enums are written with TypeBox.
  app.get(
    '/fixture/choice',
    { schema: { querystring: Type.Object({ source: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]) }) } },
    async (req) => req.query,
  );
  app.post(
    '/fixture/body',
    {
      schema: {
        body: Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            ids: Type.Array(Type.String(), { maxItems: 3 }),
            count: Type.Optional(Type.Integer({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req) => ({ received: req.body }),
  );
}

const INVALID = (name: string) => ({ error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });

let t: TestApp;
let key: string;

function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `/v3${url}`, headers: { 'x-access-token': key, ...headers } });
}

function post(payload: string, contentType = 'application/json') {
  return t.app.inject({
    method: 'POST',
    url: '/v3/fixture/body',
    headers: { 'x-access-token': key, 'content-type': contentType },
    payload,
  });
}

describe('validation errors', () => {
  before(async () => {
    t = await testApp({ extraRoutes: bodyFixture, env: { QUARRY_BODY_LIMIT: '1024' } });
    ({ key } = await t.account('premium'));
  });
  after(async () => t.close());

  const badParameters: [string, string][] = [
    ['/keyword-tool/trends', 'kw'],
    ['/keyword-tool/trends?kw=', 'kw'],
    ['/keyword-tool/trends?kw=%20%20%20', 'kw'],
    ['/keyword-tool/trends?kw=%09%0A', 'kw'],
    [`/keyword-tool/trends?kw=${'a'.repeat(256)}`, 'kw'],
    ['/keyword-tool/trends?other=shoes', 'kw'],
    ['/shared/locations/abc', 'location'],
    ['/shared/locations/1.5', 'location'],
    ['/shared/locations/1e3', 'location'],
    ['/shared/locations/0x10', 'location'],
    ['/shared/locations/99999999999', 'location'],
    ['/shared/locations/2147483648', 'location'],
    ['/shared/locations/%20', 'location'],
    ['/shared/locations', 'query'],
    ['/shared/locations?query=', 'query'],
    [`/shared/locations?query=${'x'.repeat(201)}`, 'query'],
  ];
  for (const [url, name] of badParameters) {
    test(`GET ${url.slice(0, 60)} → 422 Parameter ${name} is invalid`, async () => {
      const res = await get(url);
      assert.equal(res.statusCode, 422);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), INVALID(name));
    });
  }

  test('a union of integer literals accepts decimal digits only', async () => {
    assert.deepEqual((await get('/fixture/choice?source=2')).json(), { source: 2 });
    for (const v of ['%20', '1e0', '0x1', '+1', '1.0', '3']) {
      const res = await get(`/fixture/choice?source=${v}`);
      assert.equal(res.statusCode, 422, v);
      assert.deepEqual(res.json(), INVALID('source'));
    }
  });

  test('a bad parameter of a paid operation charges nothing', async () => {
    await get('/keyword-tool/trends?kw=%20');
    assert.equal((await get('/keyword-tool/limits')).json().resources.trends.remaining, 500);
  });

  test('a body that matches its schema is accepted', async () => {
    const res = await post(JSON.stringify({ name: 'a', ids: ['x'] }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { received: { name: 'a', ids: ['x'] } });
  });

  test('a body that fails its schema → 422 ValidationError with one message per failed rule', async () => {
    const res = await post(JSON.stringify({ name: '', ids: ['a', 'b', 'c', 'd'], count: 0, extra: true }));
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.equal(body.error.type, 'ValidationError');
    assert.equal(body.error.message, 'Your request is invalid');
    assert.ok(Array.isArray(body.error.errors));
    assert.ok(body.error.errors.length >= 4, JSON.stringify(body.error.errors));
    for (const m of body.error.errors) assert.equal(typeof m, 'string');
    assert.ok(body.error.errors.some((m: string) => m.includes('extra')));
    assert.ok(body.error.errors.some((m: string) => m.includes('body.ids')));
    assert.ok(body.error.errors.some((m: string) => m.includes('body.count')));
  });

  test('a missing required member is named', async () => {
    const res = await post(JSON.stringify({ ids: [] }));
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().error.errors, ['body.name is required']);
  });

  test('bodies are not coerced: a number where a string is required fails', async () => {
    const res = await post(JSON.stringify({ name: 5, ids: [] }));
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.type, 'ValidationError');
  });

  const notJson: [string, string, string][] = [
    ['malformed JSON', '{"name": "a", ', 'application/json'],
    ['an empty JSON body', '', 'application/json'],
    ['a JSON array', '[1,2]', 'application/json'],
    ['a JSON string', '"name"', 'application/json'],
    ['JSON null', 'null', 'application/json'],
    ['plain text', 'name=a', 'text/plain'],
    ['a form', 'name=a&ids=x', 'application/x-www-form-urlencoded'],
    ['an unknown content type', '{"name":"a","ids":[]}', 'application/x-unknown'],
  ];
  for (const [name, payload, type] of notJson) {
    test(`${name} → 422 ValidationError with an errors array`, async () => {
      const res = await post(payload, type);
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json();
      assert.equal(body.error.type, 'ValidationError');
      assert.equal(body.error.message, 'Your request is invalid');
      assert.ok(Array.isArray(body.error.errors) && body.error.errors.length > 0);
    });
  }

  test('an oversized body → 413 JSON error', async () => {
    const res = await post(JSON.stringify({ name: 'x'.repeat(2000), ids: [] }));
    assert.equal(res.statusCode, 413);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.ok(isErrorBody(res.json()));
  });

  test('a declared Content-Length over the limit → 413 before the body is read', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v3/fixture/body',
      headers: { 'x-access-token': key, 'content-type': 'application/json', 'content-length': '999999' },
      payload: '{}',
    });
    assert.ok(res.statusCode === 413 || res.statusCode === 422, String(res.statusCode));
    assert.ok(isErrorBody(res.json()));
  });

  test('an unknown route → 404 JSON error object', async () => {
    for (const url of ['/v3/no-such-tool/thing', '/v3', '/v3/', '/', '/favicon.ico', '/v2/keyword-tool/limits', '/v3/keyword-tool']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-access-token': key } });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^application\/json/, url);
      const body = res.json();
      assert.ok(isErrorBody(body), url);
      assert.equal(body.error.type, 'Error');
    }
  });

  test('a URL the router cannot decode → 400 JSON error object; an overlong segment → 414', async () => {
    for (const url of ['/v3/shared/locations/%E2%82', '/v3/keyword-tool/limits/%', '/%zz']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-access-token': key } });
      assert.equal(res.statusCode, 400, url);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(res.json(), { error: { type: 'BadRequest', message: 'The request URL is not valid' } });
    }
    const long = await get(`/shared/locations/${'9'.repeat(600)}`);
    assert.equal(long.statusCode, 414);
    assert.ok(isErrorBody(long.json()));
  });

  test('a known path with a method it does not have → 404 JSON error object', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } });
    assert.equal(res.statusCode, 404);
    assert.ok(isErrorBody(res.json()));
  });
});

describe('gateway limit', () => {
  let g: TestApp;
  const from = (ip: string, url = '/v3/keyword-tool/limits', headers: Record<string, string> = {}) =>
    g.app.inject({ method: 'GET', url, remoteAddress: ip, headers });

  after(async () => g?.close());

  test('the 5th request within one second from one IP → HTML 429; admitted again after 1 s; others unaffected', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4' } });
    for (let i = 0; i < 4; i++) {
      assert.equal((await from('10.0.0.1')).statusCode, 200, `request ${i + 1}`);
      g.clock.advance(100);
    }
    const refused = await from('10.0.0.1');
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['content-type']), /^text\/html/);
    assert.match(refused.body, /^<!DOCTYPE html>/);
    assert.throws(() => JSON.parse(refused.body));

    // Another client address is not affected.
    assert.equal((await from('10.0.0.2')).statusCode, 200);

    // The window slides: at 1 s after the first admitted request it is still inside
    // (inclusive), just past it the first one has left the window.
    g.clock.advance(600); // t = 1000 ms after the first
    assert.equal((await from('10.0.0.1')).statusCode, 429);
    g.clock.advance(1);
    assert.equal((await from('10.0.0.1')).statusCode, 200);
    assert.equal((await from('10.0.0.1')).statusCode, 429);
    await g.close();
  });

  test('refused requests are not recorded, so a client that backs off gets through', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4' } });
    for (let i = 0; i < 4; i++) await from('10.0.0.3');
    for (let i = 0; i < 20; i++) assert.equal((await from('10.0.0.3')).statusCode, 429);
    g.clock.advance(1001);
    assert.equal((await from('10.0.0.3')).statusCode, 200);
    await g.close();
  });

  test('the gateway covers every route, before auth and routing', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4' } });
    for (let i = 0; i < 4; i++) await from('10.0.0.4', '/v3/nowhere');
    for (const url of ['/v3/shared/locations/2840', '/v3/nowhere', '/healthz']) {
      const res = await from('10.0.0.4', url);
      assert.equal(res.statusCode, 429, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
    await g.close();
  });

  test('QUARRY_GATEWAY_RPS=0 turns the gateway off', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '0' } });
    for (let i = 0; i < 50; i++) assert.equal((await from('10.0.0.5')).statusCode, 200);
    await g.close();
  });

  test('X-Forwarded-For is ignored unless QUARRY_TRUST_PROXY is set', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4' } });
    // Behind no trusted proxy, a forged header does not let one socket address multiply.
    for (let i = 0; i < 4; i++) {
      assert.equal((await from('10.0.0.6', undefined, { 'x-forwarded-for': `192.0.2.${i}` })).statusCode, 200);
    }
    assert.equal((await from('10.0.0.6', undefined, { 'x-forwarded-for': '192.0.2.99' })).statusCode, 429);
    await g.close();
  });

  test('with QUARRY_TRUST_PROXY=true the client address comes from X-Forwarded-For', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4', QUARRY_TRUST_PROXY: 'true' } });
    const proxy = '10.0.0.7';
    for (let i = 0; i < 4; i++) {
      assert.equal((await from(proxy, undefined, { 'x-forwarded-for': '198.51.100.1' })).statusCode, 200);
    }
    assert.equal((await from(proxy, undefined, { 'x-forwarded-for': '198.51.100.1' })).statusCode, 429);
    // Another client behind the same proxy has its own allowance.
    assert.equal((await from(proxy, undefined, { 'x-forwarded-for': '198.51.100.2' })).statusCode, 200);
    await g.close();
  });

  test('behind a trusted proxy, entries the client forged before the proxy’s own are ignored', async () => {
    g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4', QUARRY_TRUST_PROXY: 'true' } });
    // The proxy appends the address it saw (198.51.100.3); the client wrote the rest.
    let admitted = 0;
    for (let i = 0; i < 20; i++) {
      const res = await from('10.0.0.8', undefined, { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.3` });
      if (res.statusCode === 200) admitted++;
    }
    assert.equal(admitted, 4);
    await g.close();
  });
});
