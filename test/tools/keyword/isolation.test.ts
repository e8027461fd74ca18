/**
 * Account isolation: one account can never read, rename, delete, add to or remove from
 * another's lists (404, as for a list that never existed), and its histories never show
 * another's lookups.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { newClient, q } from './helpers.js';

let t: TestApp;

describe('account isolation', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => t.close());

  test("another account's list is unknown: 404 everywhere, and the owner's list is untouched", async () => {
    const owner = await newClient(t);
    const intruder = await newClient(t);
    const rel = (await owner.get(`/related-keywords?${q({ kw: 'dog bed', location_id: 2840 })}`)).json();
    const ids = rel.keywords.slice(0, 4).map((k: { _id: string }) => k._id);
    const list = (await owner.post('/lists', { name: 'private', keyword_ids: ids.slice(0, 2) })).json();
    const unknown = (await intruder.get('/lists/0123456789abcdef01234567')).json();

    const answers = {
      detail: await intruder.get(`/lists/${list._id}`),
      csv: await intruder.get(`/lists/${list._id}.csv`),
      ext: await intruder.get(`/lists/${list._id}?ext=csv`),
      accept: await intruder.get(`/lists/${list._id}`, { accept: 'text/csv' }),
      rename: await intruder.patch(`/lists/${list._id}`, { name: 'pwned' }),
      add: await intruder.post(`/lists/${list._id}/keywords`, { keyword_ids: ids.slice(2) }),
      remove: await intruder.del(`/lists/${list._id}/keywords`, { keyword_ids: ids.slice(0, 2) }),
      delete: await intruder.del(`/lists/${list._id}`),
    };
    for (const [what, res] of Object.entries(answers)) {
      assert.equal(res.statusCode, 404, what);
      assert.deepEqual(res.json(), unknown, `${what}: indistinguishable from a list that never existed`);
    }
    assert.deepEqual((await intruder.get('/lists')).json(), []);
    // Untouched.
    const detail = (await owner.get(`/lists/${list._id}`)).json();
    assert.equal(detail.list.name, 'private');
    assert.equal(detail.list.updated_at, list.updated_at);
    assert.deepEqual(
      detail.keywords.map((k: { _id: string }) => k._id),
      ids.slice(0, 2),
    );
    assert.deepEqual(
      (await owner.get('/lists')).json().map((l: { _id: string }) => l._id),
      [list._id],
    );
  });

  test("histories never show another account's lookups", async () => {
    const a = await newClient(t);
    const b = await newClient(t);
    await a.get(`/related-keywords?${q({ kw: 'coffee maker', location_id: 2840 })}`);
    await a.get(`/competitor-keywords?${q({ url: 'fabriclife.io', location_id: 2840 })}`);
    await a.post('/gap-analysis', { domain: 'fabriclife.io', competitors: ['geartalk.org'], location_id: 2840 });
    await a.get(`/kd/url-metrics?${q({ url: 'fabriclife.io' })}`);
    assert.equal((await a.get('/requests')).json().length, 3);
    assert.equal((await a.get('/kd/requests')).json().length, 1);
    assert.deepEqual((await b.get('/requests')).json(), []);
    assert.deepEqual((await b.get('/kd/requests')).json(), []);
    // The same lookups by b are b's own: charged to b, listed once for b, a's history unchanged.
    await b.get(`/related-keywords?${q({ kw: 'coffee maker', location_id: 2840 })}`);
    assert.equal((await b.pool()).remaining, 499);
    assert.equal((await b.get('/requests')).json().length, 1);
    assert.equal((await a.get('/requests')).json().length, 3);
    // Competitor domains are unlocked only by one's own lookup.
    assert.equal((await b.get(`/competitor-domain?${q({ url: 'fabriclife.io', location_id: 2840 })}`)).statusCode, 422);
    assert.equal((await a.get(`/competitor-domain?${q({ url: 'fabriclife.io', location_id: 2840 })}`)).statusCode, 200);
  });

  test('a missing, unknown or Bearer-sent key reaches no list or history', async () => {
    const owner = await newClient(t);
    const list = (await owner.post('/lists', { name: 'mine', keyword_ids: [] })).json();
    for (const headers of [{}, { 'x-access-token': 'f'.repeat(64) }, { authorization: `Bearer ${owner.key}` }]) {
      for (const [method, url] of [
        ['GET', `/v3/keyword-tool/lists/${list._id}`],
        ['GET', '/v3/keyword-tool/lists'],
        ['GET', '/v3/keyword-tool/requests'],
        ['GET', '/v3/keyword-tool/kd/requests'],
        ['DELETE', `/v3/keyword-tool/lists/${list._id}`],
      ] as const) {
        const res = await t.app.inject({ method, url, headers });
        assert.equal(res.statusCode, 401, `${method} ${url} ${JSON.stringify(headers).slice(0, 30)}`);
        assert.deepEqual(res.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });
      }
    }
    assert.equal((await owner.get(`/lists/${list._id}`)).statusCode, 200);
  });
});
