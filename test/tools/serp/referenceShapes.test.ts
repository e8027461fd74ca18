/**
 * The SERP tool as the published clients read it: every operation called as the reference
 * describes it, each answer checked against the reference's response schema (Ajv over
 * reference-openapi.json), on desktop and mobile and on a SERP with rich snippets.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import { newClient, pace, qs, type ToolClient } from './serpClient.js';

let t: TestApp;
let c: ToolClient;
before(async () => {
  t = await testApp();
  c = await newClient(t);
});
after(async () => t.close());

async function call(path: string, referencePath: string, status = 200) {
  const res = await c.get(path);
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  const body = res.json();
  assertReferenceShape('GET', referencePath, status, body);
  pace(t);
  return body;
}

describe('the SERP tool in the reference shapes', () => {
  test('GET /serp-tool/serps, desktop and mobile, with features and pack members', async () => {
    for (const [kw, platform_id] of [
      ['tent', 1],
      ['camping chair near me', 2],
      ['clearbank', 1],
    ] as const) {
      const serp = await call(`/serp-tool/serps?${qs({ kw, location_id: 2840, platform_id })}`, '/serp-tool/serps');
      assert.ok(serp.items.some((i: { items: unknown[] }) => i.items.length > 0) || kw === 'clearbank', `${kw} has a pack`);
      assert.ok(serp.browser.doc.h >= serp.browser.view.h);
    }
  });

  test('GET /serp-tool/serps/reset, several pages', async () => {
    // Two pages of results: three in generator v12–v13, where drivex.com's third and later pages
    // filled the list; since v14 a site shows twice at most.
    const pages = await call(`/serp-tool/serps/reset?${qs({ kw: 'drivex vs motorlane', location_id: 2840, serp_count: 3 })}`, '/serp-tool/serps/reset');
    assert.equal(pages.length, 2);
  });

  test('GET /serp-tool/url-metrics: the full link index item info, authority, social and rank groups', async () => {
    for (const url of ['summitpeak.com', 'https://www.summitpeak.com/', 'unknown-domain-nobody-links.com']) {
      const body = await call(`/serp-tool/url-metrics?${qs({ url })}`, '/serp-tool/url-metrics');
      assert.equal(Object.keys(body.m.linkindex.v).length, 32, 'every field of the item info');
      assert.deepEqual(Object.keys(body.m).sort(), ['authority', 'linkindex', 'rank', 'social']);
      assert.equal(body.m.social.v.og, null);
    }
    const known = await call(`/serp-tool/url-metrics?${qs({ url: 'summitpeak.com' })}`, '/serp-tool/url-metrics');
    assert.equal(known.m.linkindex.v.Status, 'Found');
    assert.ok(Number.isInteger(known.m.social.v.l) && known.m.social.v.l >= 0);
  });

  test('GET /serp-tool/requests and the snapshot', async () => {
    const history = await call('/serp-tool/requests', '/serp-tool/requests');
    assert.ok(history.length >= 3);
    const serp = await call(`/serp-tool/serps?${qs({ kw: 'tent', location_id: 2840 })}`, '/serp-tool/serps');
    const res = await c.get(`/serp-tool/serps/${serp.serp_snapshot_id}/snapshot`);
    assert.equal(res.statusCode, 200);
    assertReferenceShape('GET', '/serp-tool/serps/{serp_id}/snapshot', 200, res.json());
  });
});
