/**
 * Hostile input on every link-tool route — missing, malformed, oversized, unicode,
 * `__proto__`, export filters with unknown fields or wrong types — answers the contract's
 * error object (or a normal answer where the input is merely odd), never a 5xx, charges
 * nothing when refused, and pollutes no prototype.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertSane, query as enc } from '../../support/requests.js';
import { newLinkClient, pace, type LinkClient } from './helpers.js';

let t: TestApp;

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
  'bücher.de',
  'xn--bcher-kva.de',
  'שלום.com',
  'a\r\nb',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '\u202e\u200b',
  'https://exa mple.com',
  'javascript:alert(1)',
  'ftp://openpedia.org',
  'http://127.0.0.1/',
  'http://[::1]/',
  'localhost',
  'openpedia.org:99999',
  '//openpedia.org',
  '[object Object]',
];
const BAD_INTS = [
  'abc',
  '1.5',
  '1e3',
  '1e0',
  '0x10',
  '0x1',
  '+1',
  '-1',
  '99999999999999999999',
  '',
  ' ',
  '__proto__',
  '٣',
  '１',
  'NaN',
  'Infinity',
  'true',
  '[]',
];

function raw(c: LinkClient | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: string, contentType = 'application/json') {
  return t.app.inject({
    method,
    url: `/v3/link-tool${path}`,
    headers: { ...(c ? { 'x-access-token': c.key } : {}), ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: body }),
  });
}

async function untouched(c: LinkClient, what: string): Promise<void> {
  for (const pool of ['links', 'lm-url-metrics']) {
    const p = await c.pool(pool);
    assert.equal(p.remaining, p.limit, `${what}: nothing charged from ${pool}`);
  }
}

const LINKS_VALID = { url: 'openpedia.org', source: '0', page: '0', links_per_domain: '0' };

describe('hostile input on the link tool', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test('every route without a key, or with a Bearer header only → 401 AuthError', async () => {
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, string?][] = [
      ['GET', '/url-metrics?url=openpedia.org'],
      ['GET', `/links?${enc(LINKS_VALID)}`],
      ['PATCH', '/favorite-links/000000000000000000007101', '{"favorite":true}'],
      ['GET', '/favorites'],
      ['GET', '/favorites/abc'],
      ['DELETE', '/favorites/abc'],
      ['GET', '/requests'],
      ['GET', '/exports'],
      ['POST', '/exports', '{"url":"openpedia.org"}'],
      ['POST', '/exports/suggest', '{"url":"openpedia.org"}'],
    ];
    const c = await newLinkClient(t);
    for (const [method, path, body] of routes) {
      for (const headers of [{}, { authorization: `Bearer ${c.key}` }, { 'x-access-token': 'nope' }, { 'x-access-token': '' }]) {
        const res = await t.app.inject({
          method,
          url: `/v3/link-tool${path}`,
          headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { payload: body } : {}),
        });
        assert.equal(res.statusCode, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        assert.deepEqual(res.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });
      }
    }
  });

  test('url-metrics and links: url missing → 422 InvalidInput; bad integers for source, page, links_per_domain → 422 naming them; nothing charged', async () => {
    const c = await newLinkClient(t);
    for (const path of ['/url-metrics', '/links']) {
      const params: Record<string, string> = path === '/links' ? { ...LINKS_VALID } : { url: 'openpedia.org' };
      delete params.url;
      const res = await raw(c, 'GET', `${path}?${enc(params)}`);
      assert.equal(res.statusCode, 422, `${path} without url`);
      assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: 'Parameter url is invalid' } });
    }
    for (const name of ['source', 'page', 'links_per_domain']) {
      for (const bad of [...BAD_INTS, ...(name === 'page' ? ['1000001'] : ['2', '3', '01x'].slice(name === 'source' ? 1 : 0))]) {
        const res = await raw(c, 'GET', `/links?${enc({ ...LINKS_VALID, [name]: bad })}`);
        assert.equal(res.statusCode, 422, `${name}=${JSON.stringify(bad)}: ${res.body}`);
        assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: `Parameter ${name} is invalid` } });
      }
    }
    await untouched(c, 'bad integers');
  });

  test('url-metrics and links: odd, oversized, unicode and prototype-named urls are answered or refused, never a 5xx; refusals charge nothing', async () => {
    for (const path of ['/url-metrics', '/links']) {
      const c = await newLinkClient(t, 'custom');
      let answered = 0;
      for (const odd of ODD_STRINGS) {
        const before = { links: (await c.pool('links')).remaining, metrics: (await c.pool('lm-url-metrics')).remaining };
        const res = await raw(c, 'GET', `${path}?${enc({ ...(path === '/links' ? LINKS_VALID : {}), url: odd })}`);
        assertSane(res, `${path} url=${JSON.stringify(odd).slice(0, 30)}`, [200, 422]);
        if (res.statusCode === 422) {
          assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: 'Parameter url is invalid' } });
          assert.deepEqual(
            { links: (await c.pool('links')).remaining, metrics: (await c.pool('lm-url-metrics')).remaining },
            before,
            `${odd}: refused, not charged`,
          );
        } else answered++;
        pace(t);
      }
      assert.ok(answered >= 1, 'internationalised domains are answered');
      const base = path === '/links' ? LINKS_VALID : { url: 'openpedia.org' };
      for (const query of [
        `${enc(base)}&url=cleanbot.fr`,
        `${enc(base)}&__proto__=1&constructor=2`,
        `${enc(base)}&__proto__[url]=x`,
        `url[]=x`,
        `${enc(base)}%ZZ`,
        `${enc(base).replace('url=', 'url=%ED%A0%80')}`,
        `${enc(base).replace('url=', 'url=%')}`,
        `${enc(base)}&${'x'.repeat(5000)}=1`,
      ]) {
        const res = await raw(c, 'GET', `${path}?${query}`);
        assertSane(res, `${path}?${query.slice(0, 60)}`, [200, 400, 414, 422]);
        pace(t);
      }
    }
    assert.equal(({} as Record<string, unknown>).url, undefined, 'no prototype pollution');
  });

  test('PATCH favorite-links: bad bodies → 422, odd link ids → 200 null or 422, never a 5xx', async () => {
    const c = await newLinkClient(t);
    const id = '000000000000000000007101';
    for (const body of [
      '{',
      'null',
      '[]',
      '"true"',
      'true',
      '{}',
      '{"favorite":"yes"}',
      '{"favorite":1}',
      '{"favorite":null}',
      '{"favorite":[true]}',
      '{"__proto__":{"favorite":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      `{"favorite":${'['.repeat(2000)}${']'.repeat(2000)}}`,
    ]) {
      const res = await raw(c, 'PATCH', `/favorite-links/${id}`, body);
      assertSane(res, `PATCH body ${body.slice(0, 40)}`, [200, 400, 422]);
      if (res.statusCode === 200) assert.ok(body.includes('__proto__') || body.includes('constructor'), `${body} is not a valid body`);
    }
    for (const [body, type] of [
      ['favorite=true', 'application/x-www-form-urlencoded'],
      ['favorite', 'text/plain'],
      ['', 'application/json'],
    ]) {
      assertSane(await raw(c, 'PATCH', `/favorite-links/${id}`, body, type), `PATCH ${type} ${body}`, [400, 415, 422]);
    }
    const huge = await raw(c, 'PATCH', `/favorite-links/${id}`, JSON.stringify({ favorite: true, pad: 'x'.repeat(3 * 1024 * 1024) }));
    assert.equal(huge.statusCode, 413);
    assertSane(huge, 'oversized body', [413]);
    for (const linkId of [
      '__proto__',
      'constructor',
      'toString',
      '%00',
      '%F0%9F%98%80',
      '%ED%A0%80',
      '..%2F..%2Fetc',
      "'%20OR%201=1",
      'x'.repeat(100),
      'x'.repeat(101),
      'x'.repeat(600),
      '-1',
      '0x10',
      'FFFFFFFFFFFFFFFFFFFFFFFF',
      '0'.repeat(200),
    ]) {
      const res = await raw(c, 'PATCH', `/favorite-links/${linkId}`, '{"favorite":true}');
      assertSane(res, `link id ${linkId.slice(0, 30)}`, [200, 400, 404, 414, 422]);
      if (res.statusCode === 200) assert.equal(res.body, 'null', `${linkId.slice(0, 30)} is no link`);
    }
    assert.deepEqual((await c.get('/favorites')).json(), [], 'nothing was favourited');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).favorite, undefined);
  });

  test('favourite list ids in the path: odd, unicode, prototype names, oversized → null / 204 / 404 / 422, never a 5xx', async () => {
    const c = await newLinkClient(t);
    for (const id of [
      '__proto__',
      'constructor',
      'prototype',
      '..%2F..%2Fetc%2Fpasswd',
      '%00',
      '%F0%9F%98%80',
      '%ED%A0%80',
      'a%2Fb',
      "'%20OR%201=1",
      '*',
      '%25',
      'x'.repeat(100),
      'x'.repeat(101),
      'x'.repeat(600),
    ]) {
      const got = await c.get(`/favorites/${id}`);
      assertSane(got, `GET list ${id.slice(0, 30)}`, [200, 400, 404, 414, 422]);
      if (got.statusCode === 200) assert.equal(got.body, 'null');
      assertSane(await c.del(`/favorites/${id}`), `DELETE list ${id.slice(0, 30)}`, [204, 400, 404, 414, 422]);
    }
  });

  test('POST /exports/suggest: bad bodies → 422, odd urls → 200 or 422 InvalidInput, never a 5xx', async () => {
    const c = await newLinkClient(t);
    for (const body of [
      '{',
      'null',
      '[]',
      '"openpedia.org"',
      '{}',
      '{"url":null}',
      '{"url":42}',
      '{"url":["openpedia.org"]}',
      '{"url":{"toString":"x"}}',
      '{"__proto__":{"url":"openpedia.org"}}',
      `{"url":"${'a'.repeat(5000)}.com"}`,
    ]) {
      const res = await raw(c, 'POST', '/exports/suggest', body);
      assertSane(res, `suggest ${body.slice(0, 40)}`, [400, 422]);
    }
    for (const odd of ODD_STRINGS) {
      const res = await raw(c, 'POST', '/exports/suggest', JSON.stringify({ url: odd }));
      assertSane(res, `suggest url=${JSON.stringify(odd).slice(0, 30)}`, [200, 422]);
    }
    assertSane(await raw(c, 'POST', '/exports/suggest', 'url=openpedia.org', 'application/x-www-form-urlencoded'), 'suggest form body', [400, 415, 422]);
  });

  test('POST /exports: filters with unknown fields or wrong types, bad limits and bad bodies → 422 ValidationError, nothing charged, no job', async () => {
    const c = await newLinkClient(t);
    assert.equal((await c.post('/exports/suggest', { url: 'learnhub.com' })).statusCode, 200);
    const filters: unknown[] = [
      { unknownField: 1 },
      { targetAnchorText: 42 },
      { targetAnchorText: 'x'.repeat(501) },
      { targetHrefText: ['a'] },
      { linkType: 'IMAGE' },
      { linkType: 'video' },
      { noFollow: 'true' },
      { liveLinks: 1 },
      { minCitationFlow: -1 },
      { maxCitationFlow: 101 },
      { minTrustFlow: 1.5 },
      { maxTrustFlow: '50' },
      { minTopRank: -5 },
      { maxTopRank: null },
      { minLinkStrength: 11 },
      { maxLinkStrength: 'high' },
      { flagTextLink: 'yes' },
      { flagImageLink: 0 },
      { flagFrameLink: {} },
      { flagRedirectLink: [] },
      { flagMentionLink: null },
      { linksPerDomain: 2 },
      { linksPerDomain: true },
      { source: 1 },
      { constructor: { prototype: { polluted: true } } },
      [],
      'noFollow',
      42,
      null,
    ];
    for (const filter of filters) {
      pace(t);
      const res = await c.post('/exports', { url: 'learnhub.com', filter });
      assert.equal(res.statusCode, 422, `filter ${JSON.stringify(filter)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.equal(res.json().error.type, 'ValidationError', JSON.stringify(filter));
      assert.ok(Array.isArray(res.json().error.errors) && res.json().error.errors.length > 0);
    }
    const protoFilter = await raw(c, 'POST', '/exports', '{"url":"learnhub.com","filter":{"__proto__":{"noFollow":true}}}');
    assertSane(protoFilter, 'filter with __proto__', [200, 400, 422]);
    const protoOk = protoFilter.statusCode === 200;
    for (const limit of [-1, 1.5, '100', null, [], {}, Infinity, 100_000_001]) {
      pace(t);
      const res = await raw(
        c,
        'POST',
        '/exports',
        `{"url":"learnhub.com","limit":${JSON.stringify(limit) ?? 'null'}}`.replace('"limit":null', `"limit":${limit === Infinity ? '1e400' : 'null'}`),
      );
      assertSane(res, `limit ${String(limit)}`, [400, 422]);
    }
    for (const body of [
      '{',
      'null',
      '[]',
      '{}',
      '{"url":42}',
      '{"url":"learnhub.com","extra":{"deep":[1,2,3]}}',
      `{"url":"learnhub.com","filter":${'{"a":'.repeat(500)}1${'}'.repeat(500)}}`,
    ]) {
      pace(t);
      const res = await raw(c, 'POST', '/exports', body);
      assertSane(res, `create ${body.slice(0, 40)}`, [200, 400, 422]);
      if (res.statusCode === 200) assert.ok(body.includes('extra'), `${body.slice(0, 40)} was accepted`);
    }
    assertSane(await raw(c, 'POST', '/exports', JSON.stringify({ url: 'learnhub.com', pad: 'x'.repeat(3 * 1024 * 1024) })), 'oversized', [413]);
    const jobs = (await c.get('/exports')).json() as { cost: number }[];
    const charged = jobs.reduce((sum, j) => sum + j.cost, 0);
    const pool = await c.pool();
    assert.equal(pool.limit - pool.remaining, charged, 'only accepted exports are charged');
    assert.ok(jobs.length <= 1 + (protoOk ? 1 : 0), `refused filters created no job (${jobs.length})`);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    assert.equal(({} as Record<string, unknown>).noFollow, undefined);
  });

  test('GET routes without parameters ignore odd query strings: favorites, requests, exports', async () => {
    const c = await newLinkClient(t);
    for (const path of ['/favorites', '/requests', '/exports']) {
      for (const query of ['__proto__[x]=1', 'constructor=1', `q=${'x'.repeat(5000)}`, '%ZZ', 'a=%ED%A0%80']) {
        const res = await raw(c, 'GET', `${path}?${query}`);
        assertSane(res, `${path}?${query.slice(0, 30)}`, [200, 400, 414]);
        if (res.statusCode === 200) assert.deepEqual(res.json(), []);
      }
    }
  });
});
