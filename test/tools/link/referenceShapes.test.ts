/**
 * The link tool as the published clients call it: every request body in the reference's
 * form, every answer checked against the reference's response schema (Ajv over
 * reference-openapi.json).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import { newLinkClient, pace, q, type LinkClient, type Res } from './helpers.js';

let t: TestApp;
let c: LinkClient;
before(async () => {
  t = await testApp();
  c = await newLinkClient(t);
});
after(async () => t.close());

function check(res: Res, method: string, path: string, status = 200) {
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  const body = status === 204 ? undefined : res.json();
  if (status !== 204) assertReferenceShape(method, path, status, body);
  return body;
}

describe('the link tool in the reference shapes', () => {
  test('GET /link-tool/url-metrics: a root domain, a subdomain, a URL, an unknown domain', async () => {
    for (const url of ['learnhub.com', 'www.learnhub.com', 'https://openpedia.org/', 'never-linked-anywhere-xyz.com']) {
      const body = check(await c.get(`/url-metrics?${q({ url })}`), 'GET', '/link-tool/url-metrics');
      assert.equal(Object.keys(body[0].m.linkindex.v).length, 32);
      pace(t);
    }
  });

  test('GET /link-tool/links: all, new, lost, one per domain', async () => {
    for (const params of [
      { source: 0, page: 0, links_per_domain: 0 },
      { source: 1, page: 0, links_per_domain: 0 },
      { source: 2, page: 0, links_per_domain: 1 },
      { source: 0, page: 1, links_per_domain: 0 },
    ]) {
      check(await c.get(`/links?${q({ url: 'learnhub.com', ...params })}`), 'GET', '/link-tool/links');
      pace(t);
    }
    check(await c.get('/requests'), 'GET', '/link-tool/requests');
  });

  test('favourites: PATCH {favorite}, the lists, one list with its links, delete', async () => {
    const links = (await c.get(`/links?${q({ url: 'learnhub.com', source: 0, page: 0, links_per_domain: 0 })}`)).json().links;
    pace(t);
    const list = check(await c.patch(`/favorite-links/${links[0]._id}`, { favorite: true }), 'PATCH', '/link-tool/favorite-links/{link_id}');
    check(await c.patch(`/favorite-links/${links[1]._id}`, { favorite: true }), 'PATCH', '/link-tool/favorite-links/{link_id}');
    // null is the reference's answer for an unknown id (nullable); Ajv reads its nullable allOf as an object only, so it is compared here.
    const unknown = await c.patch('/favorite-links/ffffffffffff', { favorite: true });
    assert.equal(unknown.statusCode, 200);
    assert.equal(unknown.body, 'null');
    check(await c.get('/favorites'), 'GET', '/link-tool/favorites');
    const detail = check(await c.get(`/favorites/${list._id}`), 'GET', '/link-tool/favorites/{list_id}');
    assert.equal(detail.links.length, 2);
    const none = await c.get('/favorites/unknown');
    assert.equal(none.statusCode, 200);
    assert.equal(none.body, 'null');
    check(await c.del(`/favorites/${list._id}`), 'DELETE', '/link-tool/favorites/{list_id}', 204);
  });

  test('exports: suggest {url}, create {url, limit, filter} with every filter field, the list', async () => {
    check(await c.post('/exports/suggest', { url: 'learnhub.com' }), 'POST', '/link-tool/exports/suggest');
    const filter = {
      targetAnchorText: 'loans',
      targetHrefText: 'learnhub',
      linkType: 'text',
      noFollow: false,
      liveLinks: true,
      minCitationFlow: 0,
      maxCitationFlow: 100,
      minTrustFlow: 0,
      maxTrustFlow: 100,
      minTopRank: 0,
      maxTopRank: 1_000_000,
      minLinkStrength: 0,
      maxLinkStrength: 10,
      flagTextLink: true,
      flagImageLink: false,
      flagFrameLink: false,
      flagRedirectLink: false,
      flagMentionLink: false,
      linksPerDomain: 1,
    };
    const job = check(await c.post('/exports', { url: 'learnhub.com', limit: 100, filter }), 'POST', '/link-tool/exports');
    assert.equal(job.state, 100);
    assert.deepEqual(job.request.filter, filter);
    assert.deepEqual(job.stats.social, job.stats.fb);
    pace(t);
    check(await c.post('/exports', { url: 'learnhub.com' }), 'POST', '/link-tool/exports');
    const listed = check(await c.get('/exports'), 'GET', '/link-tool/exports');
    assert.ok(listed.some((j: { _id: string }) => j._id === job._id));
  });
});
