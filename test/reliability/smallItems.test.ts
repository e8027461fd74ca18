/**
 * The smaller items of issue 12: slow clients are cut off (408), errors of the HTTP parser
 * (431, 400) answer the contract's JSON error, names and keywords are normalised and refused
 * when they hold control characters or nothing visible, log lines carry no signature or key,
 * the exports list reaches every job page by page (newest first), and an export's `limit` is
 * at least 1. Real sockets for what only a socket can show; the waits are the server's
 * timeouts, set short here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { testApp, type TestApp } from '../support/app.js';
import { buildApp, redactUrl } from '../../src/http/app.js';
import { cleanText } from '../../src/lib/text.js';
import { EXPORT_JOB_KIND } from '../../src/jobs/exportJobs.js';
import { newClient } from '../tools/keyword/helpers.js';

let t: TestApp;
let port: number;

/** Sends raw bytes and collects what the server answers until it closes the socket. */
function raw(send: (socket: net.Socket) => void, timeoutMs = 10_000): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the socket open for ${timeoutMs} ms; got ${JSON.stringify(text)}`));
    }, timeoutMs);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, ms: Date.now() - started });
    });
    socket.on('connect', () => send(socket));
  });
}

function jsonErrorOf(response: string): { status: number; body: { error: { type: string; message: string } } } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
  assert.match(response, /content-type: application\/json/i);
  return { status, body: JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) };
}

describe('small items', () => {
  before(async () => {
    t = await testApp({ env: { QUARRY_REQUEST_TIMEOUT_MS: '400' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  test('a body sent a byte at a time is cut off with 408 in the contract shape', async () => {
    const { key } = await t.account();
    const { text, ms } = await raw((s) => {
      s.write(`POST /v3/keyword-tool/lists HTTP/1.1\r\nHost: x\r\nx-access-token: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
      const drip = setInterval(() => (s.writable ? s.write(' ') : clearInterval(drip)), 100);
      s.on('close', () => clearInterval(drip));
    });
    const { status, body } = jsonErrorOf(text);
    assert.equal(status, 408);
    assert.equal(body.error.type, 'Error');
    assert.ok(ms < 5_000, `cut off after ${ms} ms`);
  });

  test('headers that never end are cut off too', async () => {
    const { text } = await raw((s) => {
      s.write('GET /v3/keyword-tool/limits HTTP/1.1\r\nHost: x\r\n');
      const drip = setInterval(() => (s.writable ? s.write('X-Slow: 1\r\n') : clearInterval(drip)), 50);
      s.on('close', () => clearInterval(drip));
    });
    assert.equal(jsonErrorOf(text).status, 408);
  });

  test('oversized headers answer 431 and a malformed request 400, both in the contract shape', async () => {
    const big = await raw((s) => s.write(`GET /v3/keyword-tool/limits HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    const e431 = jsonErrorOf(big.text);
    assert.equal(e431.status, 431);
    assert.equal(typeof e431.body.error.message, 'string');
    const bad = await raw((s) => s.write('THIS IS NOT HTTP\r\n\r\n'));
    const e400 = jsonErrorOf(bad.text);
    assert.equal(e400.status, 400);
    assert.equal(e400.body.error.type, 'BadRequest');
    const many = await raw((s) =>
      s.write(
        `GET /v3/keyword-tool/limits HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${Array.from({ length: 1000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
      ),
    );
    assert.ok([200, 431].includes(jsonErrorOf(many.text).status), many.text.slice(0, 100));
  });

  test('text: control characters, lone surrogates, bidi overrides and invisible-only names are refused; the rest is NFC and trimmed', async () => {
    for (const bad of [
      'a\u0000b',
      'line\nbreak',
      'cr\rhere',
      'tab\there',
      '\u202Eevil',
      'iso\u2066late',
      'lone \uD800 high',
      'lone \uDC00 low',
      '\u200B\u200B',
      ' \u3000 ',
      '\u2060',
      'del\u007F',
      'c1\u0085',
    ]) {
      assert.equal(cleanText(bad), null, JSON.stringify(bad));
    }
    assert.equal(cleanText('  Cafe\u0301 shoes '), 'Caf\u00e9 shoes');
    assert.equal(cleanText('emoji 😀 ok'), 'emoji 😀 ok');
    assert.equal(cleanText('عربي'), 'عربي');

    const c = await newClient(t);
    for (const name of ['bad\u0000name', '\u202Egpj.exe', '\u200B', 'two\nlines']) {
      const res = await c.post('/lists', { name, keyword_ids: [] });
      assert.equal(res.statusCode, 422, JSON.stringify(name));
      assert.equal(res.json().error.type, 'ValidationError');
    }
    const ok = await c.post('/lists', { name: '  Cafe\u0301 ', keyword_ids: [] });
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().name, 'Caf\u00e9');
    assert.equal((await c.patch(`/lists/${ok.json()._id}`, { name: 'x\u0000' })).statusCode, 422);

    const before = (await c.get('/limits')).json().resources['related-keywords'].remaining;
    const refused = await c.post('/keyword-imports', { keywords: ['fine', 'nul\u0000here'], location_id: 2840, language_id: 1000 });
    assert.equal(refused.statusCode, 422);
    assert.equal((await c.get('/limits')).json().resources['related-keywords'].remaining, before, 'not charged');
    const imported = await c.post('/keyword-imports', { keywords: ['\u200B', 'trail shoes'], location_id: 2840, language_id: 1000 });
    assert.equal(imported.statusCode, 200, 'no cooldown was started by the refusal');
    assert.deepEqual(
      imported.json().keywords.map((k: { kw: string }) => k.kw),
      ['trail shoes'],
    );
  });

  test('log lines carry no download signature, no key in a query string and no key header', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp(t.ctx, { logger: { level: 'info', stream } });
    await app.ready();
    const { key } = await t.account();
    await app.inject({ method: 'GET', url: '/downloads/abc?expires=1999999999&sig=deadbeefsecret' });
    await app.inject({ method: 'GET', url: `/v3/keyword-tool/limits?key=${key}&x=1`, headers: { 'x-access-token': key } });
    await app.inject({ method: 'GET', url: `/v3/keyword-tool/limits?access_token=${key}` });
    await app.close();
    const log = lines.join('');
    assert.match(log, /\/downloads\/abc/);
    assert.doesNotMatch(log, /deadbeefsecret/);
    assert.ok(!log.includes(key), 'the key is not logged');
    assert.equal(redactUrl('/x?sig=1&page=2&API_KEY=3'), '/x?sig=[REDACTED]&page=2&API_KEY=[REDACTED]');
    assert.equal(redactUrl('/x'), '/x');
  });

  test('the exports list reaches every job, newest first, a page at a time; limit 0 is refused', async () => {
    const { id, key } = await t.account();
    // One after another: the list is in the order the jobs were stored.
    for (let i = 0; i < 1003; i++) {
      await t.ctx.jobs.enqueue(EXPORT_JOB_KIND, id, {
        request: { url: 'learnhub.com', type: 'RootDomain', limit: i + 1, filter: {} },
        cost: i + 1,
        costPrediction: i + 1,
        chargedAtMs: t.clock.now(),
        matching: 0,
        live: 0,
        unfiltered: 0,
      });
    }
    const get = (q: string) => t.app.inject({ method: 'GET', url: `/v3/link-tool/exports${q}`, headers: { 'x-access-token': key } });
    const first = await get('');
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().length, 1000);
    assert.equal(first.headers['x-next-page'], '1');
    assert.equal(first.json()[0].cost, 1003, 'newest first');
    const second = await get('?page=1');
    assert.equal(second.json().length, 3);
    assert.equal(second.headers['x-next-page'], undefined);
    const costs = [...first.json(), ...second.json()].map((j: { cost: number }) => j.cost);
    assert.deepEqual(
      costs,
      Array.from({ length: 1003 }, (_, i) => 1003 - i),
    );
    assert.equal((await get('?page=-1')).statusCode, 422);

    await t.app.inject({ method: 'POST', url: '/v3/link-tool/exports/suggest', headers: { 'x-access-token': key }, payload: { url: 'learnhub.com' } });
    const zero = await t.app.inject({
      method: 'POST',
      url: '/v3/link-tool/exports',
      headers: { 'x-access-token': key },
      payload: { url: 'learnhub.com', limit: 0 },
    });
    assert.equal(zero.statusCode, 422);
  });
});
