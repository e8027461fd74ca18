/**
 * Dashboard sessions over HTTP (no browser needed): the key-for-session exchange, the cookie's
 * attributes, redirects without a session, forged / expired / revoked sessions, CSRF and
 * cross-site writes, sign-out, the web client class, and account isolation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isErrorBody, testApp, type TestApp } from '../support/app.js';
import { HOUR } from '../../src/lib/clock.js';
import { readMail } from '../support/mail.js';

/** A stand-in for the built dashboard: the server only serves these files. */
function fixtureWebDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/app/assets/main-abc.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'main-abc.js'), 'console.log("dashboard");');
  return dir;
}

interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: any;
}

let t: TestApp;
let webDir: string;

before(async () => {
  webDir = fixtureWebDir();
  t = await testApp({ webDir });
});
after(async () => {
  await t.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

async function signIn(key: string, headers: Record<string, string> = {}): Promise<Session> {
  const res = await t.app.inject({ method: 'POST', url: '/app/session', payload: { key }, headers });
  assert.equal(res.statusCode, 200, res.body);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0];
  const body = res.json();
  return { cookie, csrf: body.csrf_token, setCookie, body };
}

describe('signing in', () => {
  test('a valid key opens a session: an httpOnly, SameSite=Strict cookie that is not the key', async () => {
    const { id, key } = await t.account('premium');
    const s = await signIn(key);
    assert.match(s.setCookie, /^quarry_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    assert.ok(!s.setCookie.includes(key));
    assert.equal(s.body.account.id, id);
    assert.equal(typeof s.body.csrf_token, 'string');
    assert.ok(!JSON.stringify(s.body).includes(key), 'the answer never repeats the key');
    // The store keeps hashes only: neither the key nor the cookie token is in the sessions table.
    const rows = await t.ctx.state.db.selectFrom('web_sessions').selectAll().execute();
    const dump = JSON.stringify(rows);
    assert.ok(!dump.includes(key) && !dump.includes(s.cookie.split('=')[1]));
    const me = await t.app.inject({ url: '/app/session', headers: { cookie: s.cookie } });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().account.id, id);
  });

  test('the cookie is Secure behind https (trusted proxy) and with an https public URL', async () => {
    const https = await testApp({ webDir, env: { QUARRY_PUBLIC_URL: 'https://quarry.example', QUARRY_SESSION_TTL_HOURS: '2' } });
    try {
      const { key } = await https.account();
      const res = await https.app.inject({ method: 'POST', url: '/app/session', payload: { key } });
      assert.match(String(res.headers['set-cookie']), /; Max-Age=7200; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await https.close();
    }
    const proxied = await testApp({ webDir, env: { QUARRY_TRUST_PROXY: '1' } });
    try {
      const { key } = await proxied.account();
      const res = await proxied.app.inject({ method: 'POST', url: '/app/session', payload: { key }, headers: { 'x-forwarded-proto': 'https' } });
      assert.match(String(res.headers['set-cookie']), /; Secure$/);
    } finally {
      await proxied.close();
    }
  });

  test('unknown keys, malformed, missing, oversized and hostile bodies answer JSON errors, never a session', async () => {
    const cases: { payload?: string; type?: string; status: number }[] = [
      { payload: JSON.stringify({ key: 'qry_not-a-key' }), status: 401 },
      { payload: JSON.stringify({ key: '' }), status: 422 },
      { payload: JSON.stringify({}), status: 422 },
      { payload: JSON.stringify({ key: 42 }), status: 422 },
      { payload: JSON.stringify({ key: 'x'.repeat(201) }), status: 422 },
      { payload: JSON.stringify({ key: 'qry_x', admin: true }), status: 422 },
      { payload: JSON.stringify({ key: "' OR 1=1 --" }), status: 401 },
      { payload: JSON.stringify({ key: '\u0000\u202e' }), status: 422 },
      { payload: '{"key": ', status: 422 },
      { payload: JSON.stringify(['qry_x']), status: 422 },
      { payload: JSON.stringify({ key: 'a'.repeat(10_000) }), status: 413 },
      { payload: 'key=qry_x', type: 'application/x-www-form-urlencoded', status: 415 },
    ];
    for (const c of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/app/session', payload: c.payload, headers: { 'content-type': c.type ?? 'application/json' } });
      assert.ok(
        res.statusCode === c.status || (c.status === 415 && res.statusCode < 500 && res.statusCode >= 400),
        `${c.payload}: ${res.statusCode} ${res.body}`,
      );
      assert.ok(isErrorBody(res.json()), res.body);
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  test('a revoked key cannot sign in, and revoking it ends its sessions', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    assert.ok(await t.ctx.accounts.revokeKey(key, 1));
    const res = await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    assert.equal(res.statusCode, 401);
    const again = await t.app.inject({ method: 'POST', url: '/app/session', payload: { key } });
    assert.equal(again.statusCode, 401);
  });
});

describe('pages', () => {
  test('without a session every page redirects to sign-in and comes back; sign-in itself is served', async () => {
    for (const url of ['/app', '/app/keywords', '/app/tracking/abc?kw=1', '/app/lists/']) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 302, url);
      const location = String(res.headers.location);
      assert.ok(location.startsWith('/app/sign-in?next='), location);
      assert.ok(decodeURIComponent(location.split('next=')[1]).startsWith('/app'));
    }
    const signInPage = await t.app.inject({ url: '/app/sign-in' });
    assert.equal(signInPage.statusCode, 200);
    assert.match(String(signInPage.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(signInPage.headers['x-frame-options'], 'DENY');
  });

  test('a redirect never points to another site', async () => {
    for (const url of ['/app//evil.example', '/app/%2F%2Fevil.example', '/app/x?next=https://evil.example']) {
      const res = await t.app.inject({ url });
      if (res.statusCode !== 302) continue;
      const next = decodeURIComponent(String(res.headers.location).split('next=')[1]);
      assert.ok(next.startsWith('/app') && !next.startsWith('//') && !next.includes('//'), next);
    }
  });

  test('with a session the pages are the app; a forged or malformed cookie is refused and cleared', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    const page = await t.app.inject({ url: '/app/keywords', headers: { cookie: s.cookie } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="root"/);
    for (const forged of [
      `quarry_session=${randomBytes(32).toString('base64url')}`,
      'quarry_session=../../etc',
      `quarry_session=${'A'.repeat(5000)}`,
      'quarry_session=%ZZ',
      'quarry_session',
    ]) {
      const res = await t.app.inject({ url: '/app/keywords', headers: { cookie: forged } });
      assert.equal(res.statusCode, 302, forged);
      const api = await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: forged } });
      assert.equal(api.statusCode, 401, forged);
      assert.deepEqual(api.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });
    }
    const cleared = await t.app.inject({ url: '/app/keywords', headers: { cookie: `quarry_session=${randomBytes(32).toString('base64url')}` } });
    assert.match(String(cleared.headers['set-cookie']), /^quarry_session=; Path=\/; Max-Age=0/);
  });

  test('assets are served without a session, cacheable; unknown and traversing paths are 404 JSON', async () => {
    const js = await t.app.inject({ url: '/app/assets/main-abc.js' });
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers['cache-control']), /immutable/);
    for (const url of ['/app/assets/missing.js', '/app/assets/../index.html', '/app/assets/%2e%2e/%2e%2e/package.json', '/app/assets/..%2f..%2fpackage.json']) {
      const res = await t.app.inject({ url });
      // A path the router normalises back to a page is a page (302 to sign-in without a session).
      assert.ok([302, 400, 403, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
      assert.ok(!res.body.includes('"name": "quarry"'));
    }
  });
});

describe('the API through a session', () => {
  test('a session expires after its lifetime', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    t.clock.advance(12 * HOUR - 1000);
    assert.equal((await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).statusCode, 200);
    t.clock.advance(1000);
    assert.equal((await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/app/session', headers: { cookie: s.cookie } })).statusCode, 401);
    assert.ok((await t.ctx.sessions.sweep()) >= 1);
    assert.equal((await t.app.inject({ url: '/app/session', headers: { cookie: s.cookie } })).statusCode, 401);
  });

  test('reads through a session need its token or Sec-Fetch-Site: same-origin: a same-site page on another port cannot spend the quota', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    const serp = (headers: Record<string, string>) =>
      t.app.inject({ url: '/v3/serp-tool/serps?kw=tent&location_id=2840', headers: { cookie: s.cookie, ...headers } });
    const remaining = async () => (await t.app.inject({ url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } })).json().resources.serps.remaining;
    const before = await remaining();
    const forged: Record<string, string>[] = [
      {},
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'none' },
      { 'x-csrf-token': 'not-the-token' },
      { origin: 'http://quarry.test:8081', 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of forged) {
      const res = await serp(headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.equal(res.json().error.type, 'Forbidden');
    }
    assert.equal(await remaining(), before, 'no refused read was charged');
    const preview = await t.app.inject({
      url: '/app/api/trackings/0123456789abcdef01234567/reports/0123456789abcdef01234567/preview',
      headers: { cookie: s.cookie },
    });
    assert.equal(preview.statusCode, 403, 'the dashboard’s own reads too');
    assert.equal((await serp({ 'sec-fetch-site': 'same-origin' })).statusCode, 200, 'the dashboard’s own page');
    assert.equal((await serp({ 'x-csrf-token': s.csrf })).statusCode, 200);
    assert.equal(await remaining(), before - 1, 'charged once: the second answer came from cache');
  });

  test('writes need the session CSRF token and must not come from another site', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    const write = (headers: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, ...headers }, payload: { name: 'mine', keyword_ids: [] } });
    const refusals: Record<string, string>[] = [
      {},
      { 'x-csrf-token': 'wrong' },
      { 'x-csrf-token': s.csrf.slice(1) },
      { 'x-csrf-token': s.csrf, origin: 'https://evil.example' },
      { 'x-csrf-token': s.csrf, origin: 'null' },
      { 'x-csrf-token': s.csrf, 'sec-fetch-site': 'cross-site' },
      { 'x-csrf-token': s.csrf, 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refusals) {
      const res = await write(headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.equal(res.json().error.type, 'Forbidden');
    }
    assert.equal(
      (await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).json().length,
      0,
      'no refused write took effect',
    );
    const ok = await write({ 'x-csrf-token': s.csrf, origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' });
    assert.equal(ok.statusCode, 201, ok.body);
    // Signing in from another site is refused too (login CSRF).
    const login = await t.app.inject({ method: 'POST', url: '/app/session', payload: { key }, headers: { origin: 'https://evil.example' } });
    assert.equal(login.statusCode, 403);
  });

  test('sign-out needs the CSRF token and ends the session', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    assert.equal((await t.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie: s.cookie } })).statusCode, 403);
    assert.equal((await t.app.inject({ url: '/app/session', headers: { cookie: s.cookie } })).statusCode, 200);
    const out = await t.app.inject({ method: 'DELETE', url: '/app/session', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/app/keywords', headers: { cookie: s.cookie } })).statusCode, 302);
  });

  test('requests through a session are client class web: 3 per pool per 1 s, same pools as the key', async () => {
    const { key } = await t.account();
    const s = await signIn(key);
    const serp = (kw: string, headers: Record<string, string>) =>
      t.app.inject({ url: `/v3/serp-tool/serps?kw=${encodeURIComponent(kw)}&location_id=2840`, headers });
    for (const kw of ['running shoes', 'trail shoes', 'hiking boots'])
      assert.equal((await serp(kw, { cookie: s.cookie, 'x-csrf-token': s.csrf })).statusCode, 200);
    const refused = await serp('yoga mat', { cookie: s.cookie, 'x-csrf-token': s.csrf });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.retry_after, 1);
    t.clock.advance(1001);
    assert.equal((await serp('yoga mat', { cookie: s.cookie, 'x-csrf-token': s.csrf })).statusCode, 200);
    // The key's own (api) window is another class, but the pool is the same one.
    const limits = (await t.app.inject({ url: '/v3/keyword-tool/limits', headers: { 'x-access-token': key } })).json();
    assert.equal(limits.resources.serps.remaining, limits.resources.serps.limit - 4);
    // A repeat is the same cache entry whichever way the account came in.
    const cached = await serp('running shoes', { 'x-access-token': key });
    assert.equal(cached.statusCode, 200);
    assert.equal(
      (await t.app.inject({ url: '/v3/keyword-tool/limits', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } })).json().resources.serps.remaining,
      limits.resources.serps.remaining,
    );
  });

  test("a second account's session never sees the first account's objects", async () => {
    const a = await t.account();
    const b = await t.account();
    const sa = await signIn(a.key);
    const sb = await signIn(b.key);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v3/keyword-tool/lists',
      headers: { cookie: sa.cookie, 'x-csrf-token': sa.csrf },
      payload: { name: 'secret', keyword_ids: [] },
    });
    assert.equal(created.statusCode, 201);
    const listId = created.json()._id;
    assert.equal((await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: sb.cookie, 'x-csrf-token': sb.csrf } })).json().length, 0);
    assert.equal((await t.app.inject({ url: `/v3/keyword-tool/lists/${listId}`, headers: { cookie: sb.cookie, 'x-csrf-token': sb.csrf } })).statusCode, 404);
    const del = await t.app.inject({ method: 'DELETE', url: `/v3/keyword-tool/lists/${listId}`, headers: { cookie: sb.cookie, 'x-csrf-token': sb.csrf } });
    assert.equal(del.statusCode, 404);
    // B's CSRF token does not open A's session for writes.
    const cross = await t.app.inject({ method: 'DELETE', url: `/v3/keyword-tool/lists/${listId}`, headers: { cookie: sa.cookie, 'x-csrf-token': sb.csrf } });
    assert.equal(cross.statusCode, 403);
    assert.equal((await t.app.inject({ url: `/v3/keyword-tool/lists/${listId}`, headers: { cookie: sa.cookie, 'x-csrf-token': sa.csrf } })).statusCode, 200);
    // A key in the header wins over a cookie: B's key with A's cookie is B.
    const mixed = await t.app.inject({ url: '/v3/keyword-tool/lists', headers: { cookie: sa.cookie, 'x-access-token': b.key } });
    assert.equal(mixed.json().length, 0);
  });
});

/** Mail travels with CRLF line ends (the outbox writes them so); the rendered mail has LF. */
const lf = (s: string) => s.replace(/\r\n/g, '\n');

describe('the rank report preview (the dashboard’s own route)', () => {
  test('is the e-mail the report sends for the running period, images inline; only for its own account', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-preview-'));
    const p = await testApp({ webDir, env: { QUARRY_DATA_DIR: dataDir } });
    try {
      const { rankServices } = await import('../../src/rank/rankService.js');
      const { key } = await p.account('premium');
      const other = await p.account('premium');
      const create = await p.app.inject({
        method: 'POST',
        url: '/v3/rank-tool/trackings',
        headers: { 'x-access-token': key },
        payload: { domain: 'openpedia.org', location_id: 2840, platform_id: 1, keywords: ['running shoes', 'hiking boots'] },
      });
      assert.equal(create.statusCode, 201, create.body);
      const trackingId = create.json().tracking._id;
      await rankServices(p.ctx).checks.idle();
      const reports = (await p.app.inject({ url: `/v3/rank-tool/trackings/${trackingId}/reports`, headers: { 'x-access-token': key } })).json();
      const weekly = reports.find((r: { type: number }) => r.type === 1);
      assert.ok(weekly, 'a new tracking has a weekly report');
      const url = `/app/api/trackings/${trackingId}/reports/${weekly._id}/preview`;

      assert.equal((await p.app.inject({ url })).statusCode, 401, 'no session');
      const s = await (async () => {
        const res = await p.app.inject({ method: 'POST', url: '/app/session', payload: { key } });
        return res.headers['set-cookie']!.toString().split(';')[0];
      })();
      const res = await p.app.inject({ url, headers: { cookie: s, 'sec-fetch-site': 'same-origin' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const preview = res.json();
      // The fake clock starts on Sunday 2026-11-22: the running week is Monday 16th to Sunday 22nd.
      assert.deepEqual(preview.period, { start: '2026-11-16', end: '2026-11-22' });
      assert.equal(preview.would_send, true);
      assert.match(preview.subject, /^Weekly rank report: openpedia\.org/);
      assert.ok(!preview.html.includes('cid:'), 'inline images are data URLs');
      assert.match(preview.html, /<img src="data:image\/png;base64,[A-Za-z0-9+/=]{100,}"/);
      // Another account's session: the tracking does not exist for it.
      const os2 = (await p.app.inject({ method: 'POST', url: '/app/session', payload: { key: other.key } })).headers['set-cookie']!.toString().split(';')[0];
      assert.equal((await p.app.inject({ url, headers: { cookie: os2, 'sec-fetch-site': 'same-origin' } })).statusCode, 404);
      assert.equal(
        (
          await p.app.inject({
            url: `/app/api/trackings/${trackingId}/reports/000000000000000000000000/preview`,
            headers: { cookie: s, 'sec-fetch-site': 'same-origin' },
          })
        ).statusCode,
        404,
      );

      // At the end of the week the report is sent: the same subject, text and HTML.
      const sender = new (await import('../../src/rank/rankReports.js')).RankReports({ ...p.ctx, config: { ...p.ctx.config, smtpUrl: null, dataDir } });
      p.clock.set(Date.UTC(2026, 10, 23, 0, 30));
      assert.deepEqual(await sender.runDueReports(p.clock.now()), { sent: 1, failed: 0 }, 'the weekly report (the month has not ended)');
      const files = fs.readdirSync(path.join(dataDir, 'outbox')).filter((f) => f.includes(weekly._id));
      assert.equal(files.length, 1);
      const mail = await readMail(fs.readFileSync(path.join(dataDir, 'outbox', files[0])));
      assert.equal(lf(mail.text), preview.text);
      const sentHtml = lf(mail.html);
      const cid = /src="cid:([^"]+)"/.exec(sentHtml)?.[1];
      assert.ok(cid, 'the sent mail refers to its chart by cid');
      assert.equal(preview.html.replace(/data:image\/png;base64,[A-Za-z0-9+/=]+/, `cid:${cid}`), sentHtml);

      await sender.close();
    } finally {
      await p.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the gateway and sessions (issue 27)', () => {
  test('a session is its own limit: its traffic never meets the per-IP gateway; over the session rate a JSON RateLimit, not HTML', async () => {
    const g = await testApp({ webDir, env: { QUARRY_GATEWAY_RPS: '4', QUARRY_SESSION_RPS: '10' } });
    try {
      const { key } = await g.account();
      const sign = await g.app.inject({ method: 'POST', url: '/app/session', payload: { key }, remoteAddress: '10.1.0.1' });
      const cookie = String(sign.headers['set-cookie']).split(';')[0];
      const csrf = sign.json().csrf_token as string;
      g.clock.advance(1001);
      const viaSession = (url: string) => g.app.inject({ url, remoteAddress: '10.1.0.1', headers: { cookie, 'x-csrf-token': csrf } });
      // Ten API reads in the same instant from one address: all admitted.
      for (let i = 0; i < 10; i++) {
        const res = await viaSession('/v3/keyword-tool/lists');
        assert.equal(res.statusCode, 200, `request ${i + 1}: ${res.body.slice(0, 80)}`);
      }
      // The eleventh meets the session's limit: the contract's JSON RateLimit, retry after 1 s.
      const refused = await viaSession('/v3/keyword-tool/lists');
      assert.equal(refused.statusCode, 429);
      assert.match(String(refused.headers['content-type']), /^application\/json/);
      assert.equal(refused.headers['retry-after'], '1');
      assert.deepEqual(refused.json().error.type, 'RateLimit');
      assert.equal(refused.json().error.retry_after, 1);
      // The dashboard's page itself is not counted: a navigation still gets the page, not a JSON error.
      const page = await viaSession('/app/keywords');
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      // The address itself still has its whole gateway share for other clients (a key).
      for (let i = 0; i < 4; i++)
        assert.equal((await g.app.inject({ url: '/v3/keyword-tool/limits', remoteAddress: '10.1.0.1', headers: { 'x-access-token': key } })).statusCode, 200);
      const gate = await g.app.inject({ url: '/v3/keyword-tool/limits', remoteAddress: '10.1.0.1', headers: { 'x-access-token': key } });
      assert.equal(gate.statusCode, 429);
      assert.match(String(gate.headers['content-type']), /^text\/html/);
      // A forged cookie is no session: it meets the per-IP gateway like no cookie at all.
      const forged = await g.app.inject({ url: '/v3/keyword-tool/lists', remoteAddress: '10.1.0.1', headers: { cookie: `quarry_session=${'A'.repeat(43)}` } });
      assert.equal(forged.statusCode, 429);
      assert.match(String(forged.headers['content-type']), /^text\/html/);
      // One second later the session is admitted again.
      g.clock.advance(1001);
      assert.equal((await viaSession('/v3/keyword-tool/lists')).statusCode, 200);
    } finally {
      await g.close();
    }
  });
});
