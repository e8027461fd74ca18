/**
 * Hostile input on every SERP-tool route: missing, malformed, oversized, unicode,
 * `__proto__`, unknown locations. Each answers the contract's error (or a plain success
 * for input that is odd but valid), never a 5xx, and a refusal charges nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertInvalid, newClient, pace, type Res } from './serpClient.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());

const enc = encodeURIComponent;
const OK_KW = 'kw=tent';
const OK_LOC = 'location_id=2840';

/** [what, query string, the parameter named in the 422] */
const SERP_REFUSALS: [string, string, string][] = [
  ['no parameters', '', 'kw'],
  ['kw missing', OK_LOC, 'kw'],
  ['kw empty', `kw=&${OK_LOC}`, 'kw'],
  ['kw blank', `kw=${enc(' \t\n ')}&${OK_LOC}`, 'kw'],
  ['kw oversized', `kw=${'k'.repeat(256)}&${OK_LOC}`, 'kw'],
  ['kw oversized unicode', `kw=${enc('ü'.repeat(300))}&${OK_LOC}`, 'kw'],
  ['kw twice', `kw=a&kw=b&${OK_LOC}`, 'kw'],
  ['location_id 99999999', `${OK_KW}&location_id=99999999`, 'location_id'],
  ['location_id negative', `${OK_KW}&location_id=-1`, 'location_id'],
  ['location_id fractional', `${OK_KW}&location_id=2840.5`, 'location_id'],
  ['location_id text', `${OK_KW}&location_id=usa`, 'location_id'],
  ['location_id empty', `${OK_KW}&location_id=`, 'location_id'],
  ['location_id huge', `${OK_KW}&location_id=${'9'.repeat(40)}`, 'location_id'],
  ['location_id hex', `${OK_KW}&location_id=0xb18`, 'location_id'],
  ['location_id unicode digits', `${OK_KW}&location_id=${enc('２８４０')}`, 'location_id'],
  ['location_id __proto__', `${OK_KW}&location_id=__proto__`, 'location_id'],
  ['platform_id 0', `${OK_KW}&${OK_LOC}&platform_id=0`, 'platform_id'],
  ['platform_id 3', `${OK_KW}&${OK_LOC}&platform_id=3`, 'platform_id'],
  ['platform_id mobile', `${OK_KW}&${OK_LOC}&platform_id=mobile`, 'platform_id'],
];

const RESET_REFUSALS: [string, string, string][] = [
  ...SERP_REFUSALS,
  ['serp_count 0', `${OK_KW}&${OK_LOC}&serp_count=0`, 'serp_count'],
  ['serp_count 11', `${OK_KW}&${OK_LOC}&serp_count=11`, 'serp_count'],
  ['serp_count huge', `${OK_KW}&${OK_LOC}&serp_count=${'1'.repeat(30)}`, 'serp_count'],
  ['serp_count text', `${OK_KW}&${OK_LOC}&serp_count=all`, 'serp_count'],
  ['serp_count __proto__', `${OK_KW}&${OK_LOC}&serp_count=__proto__`, 'serp_count'],
];

const URL_REFUSALS: [string, string][] = [
  ['missing', ''],
  ['empty', 'url='],
  ['blank', `url=${enc('   ')}`],
  ['oversized', `url=${'a'.repeat(3000)}.com`],
  ['unicode junk', `url=${enc('☃💩')}`],
  ['__proto__', 'url=__proto__'],
  ['javascript:', `url=${enc('javascript:alert(1)')}`],
  ['file:', `url=${enc('file:///etc/passwd')}`],
  ['an IP', 'url=10.0.0.1'],
  ['localhost', 'url=localhost'],
  ['no suffix', 'url=intranet'],
  ['twice', 'url=a.com&url=b.com'],
];

function refused(res: Res, what: string, name: string): void {
  assert.ok(res.statusCode < 500, `${what}: ${res.statusCode}`);
  assertInvalid(res, name);
}

describe('hostile input on the SERP tool', () => {
  test('/serps and /serps/reset: 422 naming the parameter, nothing charged', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    for (const [what, query, name] of SERP_REFUSALS) refused(await c.get(`/serp-tool/serps?${query}`), `serps ${what}`, name);
    for (const [what, query, name] of RESET_REFUSALS) refused(await c.get(`/serp-tool/serps/reset?${query}`), `reset ${what}`, name);
    assert.deepEqual(await c.pools(), before);
    assert.deepEqual((await c.get('/serp-tool/requests')).json(), []);
  });

  test('/url-metrics: 422 Parameter url is invalid, nothing charged', async () => {
    const c = await newClient(t);
    const before = await c.pools();
    for (const [what, query] of URL_REFUSALS) refused(await c.get(`/serp-tool/url-metrics?${query}`), `url-metrics ${what}`, 'url');
    assert.deepEqual(await c.pools(), before);
  });

  test('odd but valid keywords: unicode, __proto__, markup, 255 characters — a SERP, never a 5xx', async () => {
    const c = await newClient(t, 'api-pro');
    const kws = [
      '日本語のキーワード',
      'مرحبا بالعالم',
      '💩🔥',
      'e\u0301\u0301\u0301',
      '__proto__',
      'constructor',
      'toString',
      '<script>alert(1)</script>',
      "tent' OR 1=1 --",
      'k'.repeat(255),
      '%00%ff',
    ];
    for (const kw of kws) {
      const res = await c.get(`/serp-tool/serps?kw=${enc(kw)}&location_id=0`);
      assert.equal(res.statusCode, 200, `${JSON.stringify(kw)}: ${res.body.slice(0, 200)}`);
      const serp = res.json();
      assert.equal(typeof serp.kw, 'string');
      assert.ok(serp.serp_snapshot_id === null || /^[0-9a-f]{32}\.\d{4}-\d{2}-\d{2}(\.100)?(\.sch)?$/.test(serp.serp_snapshot_id));
      pace(t);
    }
    // A NUL, a line break or a bidi override is not a keyword (issue 28): the contract's 422.
    for (const kw of ['tent\u0000', 'tent\nshoes', '\u202Etent']) {
      const res = await c.get(`/serp-tool/serps?kw=${enc(kw)}&location_id=0`);
      assert.equal(res.statusCode, 422, JSON.stringify(kw));
      assert.deepEqual(res.json().error, { type: 'InvalidInput', message: 'Parameter kw is invalid' });
    }
    // __proto__ and constructor as parameter names are dropped, not merged into the request.
    const proto = await c.get(`/serp-tool/serps?__proto__[kw]=evil&constructor[prototype][x]=1&kw=tent&location_id=0`);
    assert.equal(proto.statusCode, 200);
    assert.equal(proto.json().kw, 'tent');
    pace(t);
    const reset = await c.get(`/serp-tool/serps/reset?__proto__=1&kw=${enc('💩')}&location_id=0&serp_count=2`);
    assert.equal(reset.statusCode, 200);
    assert.equal(reset.json().length, 1, 'the second page has no results: left out (still charged)');
    pace(t);
    for (const url of ['bücher.de', 'https://例え.jp/パス', 'summitpeak.com/?__proto__=1', 'HTTPS://SUMMITPEAK.COM']) {
      const res = await c.get(`/serp-tool/url-metrics?url=${enc(url)}`);
      assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
      assert.equal(typeof res.json().m.authority.v.pda, 'number');
      pace(t);
    }
    const history = (await c.get('/serp-tool/requests?__proto__=1&limit=1')).json();
    assert.equal(history.length, kws.length + 1);
  });

  test('a deterministic fuzz of every parameter never answers a 5xx', async () => {
    const c = await newClient(t, 'api-pro');
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pieces = [
      '',
      ' ',
      '0',
      '-1',
      '2840',
      '99999999',
      '1e3',
      'NaN',
      'null',
      '[]',
      '{}',
      '__proto__',
      '%',
      '%zz',
      '😀',
      '\u202e',
      'a'.repeat(400),
      '..',
      '/',
      '?',
      '&',
      '#',
      '\\',
      '"',
      "'",
    ];
    const value = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
    for (let i = 0; i < 60; i++) {
      const route = ['/serp-tool/serps', '/serp-tool/serps/reset', '/serp-tool/url-metrics'][i % 3];
      const params = ['kw', 'location_id', 'platform_id', 'serp_count', 'url'].filter(() => rand() < 0.7);
      const query = params.map((p) => `${p}=${enc(value())}`).join('&');
      const res = await c.get(`${route}?${query}`);
      assert.ok(res.statusCode < 500, `${route}?${query}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.match(String(res.headers['content-type']), /application\/json/);
      if (res.statusCode !== 200) assert.equal(typeof res.json().error.message, 'string');
      pace(t);
    }
  });
});
