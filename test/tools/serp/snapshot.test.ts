/**
 * GET /serp-tool/serps/{serp_id}/snapshot through HTTP: a PNG of a SERP this account
 * looked up, free; the contract's two 404 messages for ids that are malformed or bare
 * (`SERP snapshot not found`) and for queries this account never looked up (`Serp not found`).
 *
 * With SNAPSHOT_OUT_DIR set, the desktop and mobile pictures are also written there as
 * api-snapshot-desktop.png and api-snapshot-mobile.png, for a person to look at.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp } from '../../support/app.js';
import { decodePng, distinctColours, pixelsNear } from '../../render/pngInspection.js';
import { SNAPSHOT_TITLE_COLOR } from '../../../src/render/serpSnapshot.js';
import { DAY, HOUR } from '../../../src/lib/clock.js';
import { assertError, newClient, pace, qs, type ToolClient } from './serpClient.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => t.close());

const lookup = async (c: ToolClient, kw: string, platform: 1 | 2 = 1) => {
  const res = await c.get(`/serp-tool/serps?${qs({ kw, location_id: 2840, platform_id: platform })}`);
  assert.equal(res.statusCode, 200);
  pace(t);
  return res.json();
};
const snapshot = (c: ToolClient, id: string) => c.get(`/serp-tool/serps/${encodeURIComponent(id)}/snapshot`);
const notFound = (res: Awaited<ReturnType<typeof snapshot>>) => assertError(res, 404, 'Error', 'SERP snapshot not found');
const serpNotFound = (res: Awaited<ReturnType<typeof snapshot>>) => assertError(res, 404, 'Error', 'Serp not found');

describe('SERP snapshots', () => {
  for (const [platform, kw, width, name] of [
    [1, 'clearbank', 1280, 'desktop'],
    [2, 'camping chair near me', 412, 'mobile'],
  ] as const) {
    test(`a ${name} snapshot: a ${width}-pixel-wide PNG of the looked-up SERP, free`, async () => {
      const c = await newClient(t);
      const serp = await lookup(c, kw, platform);
      assert.match(serp.serp_snapshot_id, /^[0-9a-f]{32}\.\d{4}-\d{2}-\d{2}(\.100)?\.sch$/);
      const before = await c.pools();
      const started = performance.now();
      const res = await snapshot(c, serp.serp_snapshot_id);
      const ms = performance.now() - started;
      assert.equal(res.statusCode, 200, res.body.slice(0, 200));
      assert.match(String(res.headers['content-type']), /application\/json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ['image']);
      assert.match(body.image, /^[A-Za-z0-9+/]+=*$/, 'base64');
      const png = Buffer.from(body.image, 'base64');
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
      const img = decodePng(png);
      assert.equal(img.width, width);
      assert.ok(img.height >= 600 && img.height <= 4000, `height ${img.height}`);
      assert.ok(distinctColours(img) >= 64, `not blank: ${distinctColours(img)} colours`);
      assert.ok(pixelsNear(img, SNAPSHOT_TITLE_COLOR, 24) > 500, 'result titles drawn');
      assert.ok(ms < 5000, `rendered in ${ms.toFixed(0)} ms`);
      // Free: no pool changed, and it can be opened again.
      assert.deepEqual(await c.pools(), before);
      const again = await snapshot(c, serp.serp_snapshot_id);
      assert.equal(again.statusCode, 200);
      assert.equal(again.body, res.body, 'the same SERP draws the same picture');
      if (process.env.SNAPSHOT_OUT_DIR) fs.writeFileSync(path.join(process.env.SNAPSHOT_OUT_DIR, `api-snapshot-${name}.png`), png);
    });
  }

  test('a hundred-result SERP opens by its .100 id; the id without .100 is not its snapshot', async () => {
    const c = await newClient(t);
    const serp = await lookup(c, 'tent');
    assert.match(serp.serp_snapshot_id, /\.100\.sch$/);
    assert.equal((await snapshot(c, serp.serp_snapshot_id)).statusCode, 200);
    notFound(await snapshot(c, serp.serp_snapshot_id.replace('.100', '')));
  });

  test('a bare _id, a malformed id, or an id of a date not looked up: 404 SERP snapshot not found', async () => {
    const c = await newClient(t);
    const serp = await lookup(c, 'tent');
    const id: string = serp.serp_snapshot_id;
    const [md5, date] = id.split('.');
    notFound(await snapshot(c, serp._id));
    for (const bad of [
      `${md5}.${date}`, // the looked-up SERP, a snapshot of another form
      `${md5}.${date}.sch.100`,
      `${md5.toUpperCase()}.${date}.100.sch`,
      `${md5}.${date}.100.sch.png`,
      `${md5}.2026-1-2.100.sch`,
      `${md5}.2025-01-01.100.sch`, // a date this account never saw
      `${md5}.2026-13-45.100.sch`,
      `${md5}x.${date}.100.sch`,
      ' ',
      'abc',
      '__proto__',
      'constructor',
      '☃.2026-11-22',
      '../../keyword-tool/limits',
      `${id}\u0000`,
      'x'.repeat(300),
    ]) {
      notFound(await snapshot(c, bad));
    }
    // An empty id is malformed too (once it answered 422 Parameter serp_id is invalid).
    notFound(await c.get('/serp-tool/serps//snapshot'));
    // Past the router's limits: a client error in the contract's error form, never a 5xx.
    for (const n of [600, 20_000]) {
      const huge = await snapshot(c, 'y'.repeat(n));
      assert.ok([404, 414].includes(huge.statusCode), `${n}: ${huge.statusCode}`);
      assert.match(String(huge.headers['content-type']), /application\/json/);
      assert.equal(typeof huge.json().error.message, 'string');
    }
  });

  test('a well-formed id of a query this account never looked up: 404 Serp not found', async () => {
    const c = await newClient(t);
    serpNotFound(await snapshot(c, `${'0'.repeat(32)}.2026-11-22.100.sch`));
    const other = await newClient(t);
    const theirs = await lookup(other, 'backpack');
    assert.equal((await snapshot(other, theirs.serp_snapshot_id)).statusCode, 200);
    // Another account's lookup does not open the snapshot for this one.
    serpNotFound(await snapshot(c, theirs.serp_snapshot_id));
    // Nor does this account's lookup of the same keyword on the other platform.
    const mobile = await lookup(c, 'backpack', 2);
    serpNotFound(await snapshot(c, theirs.serp_snapshot_id));
    assert.equal((await snapshot(c, mobile.serp_snapshot_id)).statusCode, 200);
  });

  test('a SERP without results has a null serp_snapshot_id and no snapshot', async () => {
    const c = await newClient(t);
    const serp = await lookup(c, 'qwxzv');
    assert.equal(serp.serp_results, 0);
    assert.equal(serp.serp_snapshot_id, null);
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    notFound(await snapshot(c, `${serp._id}.${today}.sch`));
    notFound(await snapshot(c, `${serp._id}.${today}.100.sch`));
  });

  test('a snapshot stays what was looked up: later days, a reset and a cache hit do not change it', async () => {
    const c = await newClient(t);
    const first = await lookup(c, 'hammock');
    const picture = (await snapshot(c, first.serp_snapshot_id)).body;
    t.clock.advance(2 * DAY);
    const later = await lookup(c, 'hammock');
    assert.notEqual(later.serp_snapshot_id, first.serp_snapshot_id, 'a new day, a new snapshot id');
    const old = await snapshot(c, first.serp_snapshot_id);
    assert.equal(old.statusCode, 200);
    assert.equal(old.body, picture, 'the first day is still drawn as it was');
    assert.equal((await snapshot(c, later.serp_snapshot_id)).statusCode, 200);
    // A reset stores the fresh page too.
    t.clock.advance(DAY);
    const reset = await c.get(`/serp-tool/serps/reset?${qs({ kw: 'hammock', location_id: 0 })}`);
    assert.equal(reset.statusCode, 200);
    assert.equal((await snapshot(c, reset.json()[0].serp_snapshot_id)).statusCode, 200);
    t.clock.advance(HOUR);
  });

  test('a snapshot opens for 90 days after the lookup (docs/decisions.md), then Serp not found', async () => {
    const c = await newClient(t);
    const start = t.clock.now();
    const serp = await lookup(c, 'headlamp', 2);
    t.clock.set(start + 90 * DAY - 1);
    assert.equal((await snapshot(c, serp.serp_snapshot_id)).statusCode, 200);
    t.clock.set(start + 90 * DAY);
    serpNotFound(await snapshot(c, serp.serp_snapshot_id));
  });

  test('no key: 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/v3/serp-tool/serps/${'0'.repeat(32)}.2026-11-22.sch/snapshot` });
    assertError(res, 401, 'AuthError', 'Invalid API Key');
  });
});
