/**
 * Hostile input on every keyword-tool route — missing, malformed, oversized, unicode and
 * `__proto__` parameters and bodies — answers the contract's error object (or a normal
 * answer where the input is merely odd), never a 5xx, and pollutes no prototype.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertSane as assertSaneOf, query as enc } from '../../support/requests.js';
import { newClient, pace, type KeywordClient, type Res } from './helpers.js';

let t: TestApp;

interface QueryRoute {
  method: 'GET' | 'POST';
  path: string;
  valid: Record<string, string>;
  strings: string[];
  ints: string[];
  required: string[];
}

const QUERY_ROUTES: QueryRoute[] = [
  {
    method: 'GET',
    path: '/related-keywords',
    valid: { kw: 'coffee', location_id: '2840', language_id: '1000' },
    strings: ['kw'],
    ints: ['location_id', 'language_id'],
    required: ['kw'],
  },
  {
    method: 'GET',
    path: '/competitor-keywords',
    valid: { url: 'fabriclife.io', location_id: '2840' },
    strings: ['url'],
    ints: ['location_id'],
    required: ['url', 'location_id'],
  },
  {
    method: 'POST',
    path: '/competitor-keywords',
    valid: { url: 'fabriclife.io', location_id: '2840' },
    strings: ['url'],
    ints: ['location_id'],
    required: ['url', 'location_id'],
  },
  {
    method: 'GET',
    path: '/competitor-domain',
    valid: { url: 'fabriclife.io', location_id: '2840' },
    strings: ['url'],
    ints: ['location_id'],
    required: ['url', 'location_id'],
  },
  {
    method: 'GET',
    path: '/suggested-keywords',
    valid: { url: 'fabriclife.io', location_id: '2840' },
    strings: ['url'],
    ints: ['location_id'],
    required: ['url', 'location_id'],
  },
  {
    method: 'GET',
    path: '/serps',
    valid: { kw: 'tent', location_id: '2840', language_id: '0', platform_id: '1', page: '0' },
    strings: ['kw'],
    ints: ['location_id', 'language_id', 'platform_id', 'page'],
    required: ['kw'],
  },
  { method: 'GET', path: '/kd/url-metrics', valid: { url: 'fabriclife.io' }, strings: ['url'], ints: [], required: ['url'] },
  { method: 'GET', path: '/trends', valid: { kw: 'tent' }, strings: ['kw'], ints: [], required: ['kw'] },
];

/** Odd but well-formed text: each may be answered normally (200/204) or refused as invalid (422). */
const ODD_STRINGS = [
  '',
  ' ',
  'x'.repeat(3000),
  '__proto__',
  'constructor',
  'toString',
  '\u0000',
  'a\u0000b',
  '😀🔥 café',
  'שלום עולם',
  'a\r\nb',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '\u202e\u200b',
  'https://exa mple.com',
  'javascript:alert(1)',
  '[object Object]',
];
/** Text that is never a decimal integer in range. */
const BAD_INTS = ['abc', '1.5', '1e3', '0x10', '-1', '99999999999999999999', '', ' ', '__proto__', '٣', '１２', '2840abc', 'NaN', 'Infinity', 'true', '[]'];

function raw(c: KeywordClient, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: string, contentType = 'application/json') {
  return t.app.inject({
    method,
    url: `/v3/keyword-tool${path}`,
    headers: { 'x-access-token': c.key, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: body }),
  });
}

describe('hostile input on the keyword tool', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('query routes: a missing required parameter → 422 InvalidInput naming it', async () => {
    for (const route of QUERY_ROUTES) {
      const c = await newClient(t);
      for (const name of route.required) {
        const params = { ...route.valid };
        delete params[name];
        const res = await raw(c, route.method, `${route.path}?${enc(params)}`);
        assert.equal(res.statusCode, 422, `${route.method} ${route.path} without ${name}`);
        assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });
      }
    }
  });

  test('query routes: integers that are not decimal integers in range → 422 InvalidInput, nothing charged', async () => {
    for (const route of QUERY_ROUTES) {
      const c = await newClient(t);
      for (const name of route.ints) {
        for (const bad of BAD_INTS) {
          const res = await raw(c, route.method, `${route.path}?${enc({ ...route.valid, [name]: bad })}`);
          assert.equal(res.statusCode, 422, `${route.path} ${name}=${JSON.stringify(bad)}: ${res.body}`);
          assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });
        }
      }
      const limits = (await c.get('/limits')).json();
      for (const [pool, state] of Object.entries<{ limit: number; remaining: number }>(limits.resources))
        assert.equal(state.remaining, state.limit, `${route.path}: ${pool}`);
    }
  });

  test('query routes: odd, oversized and unicode text is answered or refused, never a 5xx', async () => {
    for (const route of QUERY_ROUTES) {
      const c = await newClient(t, 'custom');
      for (const name of route.strings) {
        for (const odd of ODD_STRINGS) {
          const res = await raw(c, route.method, `${route.path}?${enc({ ...route.valid, [name]: odd })}`);
          assertSane(res, `${route.method} ${route.path} ${name}=${JSON.stringify(odd).slice(0, 30)}`, [200, 204, 422]);
          if (res.statusCode === 422 && route.path !== '/competitor-domain') {
            assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });
          }
          pace(t);
        }
        // Repeated, prototype-named and undecodable parameters.
        for (const query of [
          `${enc(route.valid)}&${name}=a&${name}=b`,
          `${enc(route.valid)}&__proto__=1&constructor=2`,
          `${enc(route.valid)}&__proto__[${name}]=x`,
          `${enc(route.valid)}&${name}[]=x`,
          `${enc({ ...route.valid, [name]: 'x' })}%ZZ`,
          `${enc(route.valid).replace(`${name}=`, `${name}=%ED%A0%80`)}`,
          `${enc(route.valid).replace(`${name}=`, `${name}=%`)}`,
        ]) {
          const res = await raw(c, route.method, `${route.path}?${query}`);
          assertSane(res, `${route.method} ${route.path}?${query.slice(0, 60)}`, [200, 204, 400, 422]);
          pace(t);
        }
      }
    }
    assert.equal(({} as Record<string, unknown>).kw, undefined, 'no prototype pollution');
    assert.equal(({} as Record<string, unknown>).url, undefined);
  });

  test('body routes: not JSON, wrong JSON, __proto__ keys, deep nesting → 422 (or 400/413), never a 5xx', async () => {
    const c = await newClient(t, 'custom');
    const list = (await c.post('/lists', { name: 'target', keyword_ids: [] })).json();
    const routes: ['POST' | 'PATCH' | 'DELETE', string][] = [
      ['POST', '/keyword-imports'],
      ['POST', '/keywords'],
      ['POST', '/keywords.csv'],
      ['POST', '/gap-analysis'],
      ['POST', '/lists'],
      ['PATCH', `/lists/${list._id}`],
      ['POST', `/lists/${list._id}/keywords`],
      ['DELETE', `/lists/${list._id}/keywords`],
    ];
    const bodies = [
      '{',
      'null',
      '[]',
      '"text"',
      '42',
      '{"keyword_ids": "abc"}',
      '{"keyword_ids": [null]}',
      '{"keyword_ids": [{"__proto__": {"x": 1}}]}',
      '{"__proto__": {"keyword_ids": ["a"], "name": "x"}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
      '{"name": {"toString": "x"}, "keyword_ids": []}',
      '{"name": "\\u0000", "keyword_ids": ["\\u0000"]}',
      '{"keywords": ["\\ud800"], "location_id": 2840, "language_id": 1000}',
      '{"domain": "__proto__", "competitors": ["constructor"], "location_id": 2840}',
      `{"keyword_ids": ${'['.repeat(2000)}${']'.repeat(2000)}}`,
      `{"name": "${'n'.repeat(5000)}", "keyword_ids": []}`,
      '{"keywords": ["tent"], "location_id": 2840.5, "language_id": 1000}',
      '{"keywords": ["tent"], "location_id": 1e400, "language_id": 1000}',
    ];
    for (const [method, path] of routes) {
      for (const body of bodies) {
        const res = await raw(c, method, path, body);
        assertSane(res, `${method} ${path} ${body.slice(0, 50)}`, [200, 201, 204, 400, 404, 422]);
        pace(t);
        t.clock.advance(20_000);
      }
      const plain = await raw(c, method, path, 'keyword_ids=1', 'text/plain');
      assertSane(plain, `${method} ${path} text/plain`, [415, 422]);
      const huge = await raw(c, method, path, JSON.stringify({ keyword_ids: Array.from({ length: 70_000 }, () => 'f'.repeat(32)) }));
      assert.equal(huge.statusCode, 413, `${method} ${path} oversized`);
      assertSane(huge, `${method} ${path} oversized`, [413]);
      const empty = await raw(c, method, path, '');
      assertSane(empty, `${method} ${path} empty body`, [204, 422]);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    assert.equal(({} as Record<string, unknown>).x, undefined);
    // The target list survived all of it.
    assert.equal((await c.get(`/lists/${list._id}`)).statusCode, 200);
  });

  test('list ids in the path: odd, unicode, prototype names and oversized ids → 404 (or 414), never a 5xx', async () => {
    const c = await newClient(t);
    const ids = [
      '__proto__',
      'constructor',
      'prototype',
      '..%2F..%2Fetc%2Fpasswd',
      '%00',
      '%F0%9F%98%80',
      '%ED%A0%80',
      'a%2Fb',
      "'%20OR%201=1",
      'x'.repeat(100),
      'x'.repeat(101),
      'x'.repeat(600),
      '.csv',
      'x.CSV',
    ];
    for (const id of ids) {
      const answers = [
        await c.get(`/lists/${id}`),
        await c.get(`/lists/${id}.csv?fields=kw`),
        await c.patch(`/lists/${id}`, { name: 'n' }),
        await c.del(`/lists/${id}`),
        await c.post(`/lists/${id}/keywords`, { keyword_ids: ['a'] }),
        await c.del(`/lists/${id}/keywords`, { keyword_ids: ['a'] }),
      ];
      for (const res of answers) assertSane(res, `list id ${id.slice(0, 30)}`, [400, 404, 414, 422]);
    }
    assert.equal(({} as Record<string, unknown>).name, undefined);
  });

  test('free reads ignore hostile query strings', async () => {
    const c = await newClient(t);
    for (const path of ['/requests', '/kd/requests', '/lists', '/limits']) {
      for (const query of ['__proto__[x]=1', 'constructor=1', `q=${'x'.repeat(5000)}`, '%ZZ', 'a=%ED%A0%80']) {
        const res = await raw(c, 'GET', `${path}?${query}`);
        assertSane(res, `${path}?${query.slice(0, 20)}`, [200, 400]);
      }
    }
  });
});

// The keyword tool's list-id quota answers 422 `Error` (the contract's shape for it).
function assertSane(res: Res, what: string, allowed: number[]): void {
  assertSaneOf(res, what, allowed, ['InvalidInput', 'ValidationError', 'Error']);
}
