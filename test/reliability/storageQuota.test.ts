/**
 * The storage quota of the rank tool's objects (issue 12, item 2): per account, trackings
 * (deleted ones until their purge), tracked keywords, tags, annotations and reports. The
 * write that would pass a cap answers 422 in the contract's error shape and writes nothing;
 * deleting makes room again. The caps are lowered on the test context (the defaults are in
 * policy/fairUse.ts and README "Fair use").
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { DAY, SECOND } from '../../src/lib/clock.js';
import { DELETED_TRACKING_RETENTION_DAYS, defaultStorageQuota } from '../../src/policy/fairUse.js';
import { rankClient, trackingBody, type Res } from '../tools/rank/helpers.js';

let t: TestApp;

type Table = 'rank_trackings' | 'rank_tracked_keywords' | 'rank_tags' | 'rank_annotations' | 'rank_reports';

/** Rows of the account in a table, read past the API (deleted trackings and their objects included). */
async function stored(table: Table, accountId: string): Promise<number> {
  const { n } = await t.ctx.state.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

function refusedByQuota(res: Res, what: RegExp): void {
  assert.equal(res.statusCode, 422, res.body);
  const { error } = res.json();
  assert.equal(error.type, 'Error');
  assert.match(error.message, what);
  assert.match(error.message, /delete some to make room/);
}

describe('storage quota of the rank tool', () => {
  before(async () => {
    t = await testApp();
  });
  afterEach(() => Object.assign(t.ctx.fairUse.storage, defaultStorageQuota()));
  after(() => t.close());

  test('trackings: deleted ones count until their purge; a multiple-trackings call must fit whole', async () => {
    t.ctx.fairUse.storage.trackings = 2;
    const r = await rankClient(t);
    const a = await r.post('/trackings', trackingBody({ domain: 'a.example' }));
    assert.equal(a.statusCode, 201, a.body);
    assert.equal((await r.post('/trackings', trackingBody({ domain: 'b.example' }))).statusCode, 201);
    refusedByQuota(await r.post('/trackings', trackingBody({ domain: 'c.example' })), /at most 2 trackings/);
    assert.equal(await stored('rank_trackings', r.id), 2);
    assert.equal(await stored('rank_tracked_keywords', r.id), 4, 'the refused tracking left no keywords');
    assert.equal(await stored('rank_reports', r.id), 4, 'nor reports');
    // A deleted tracking is kept (listed with is_with_deleted) and still counts...
    assert.equal((await r.del(`/trackings/${a.json().tracking._id}`)).statusCode, 204);
    refusedByQuota(await r.post('/trackings', trackingBody({ domain: 'c.example' })), /2 stored/);
    // ...until the retention has passed: then it is purged with all it holds, and its room is free.
    t.clock.advance(DELETED_TRACKING_RETENTION_DAYS * DAY + SECOND);
    const multiple = { domain: 'd.example', location_ids: [2840, 2826], platform_ids: [1], keywords: [{ keyword: 'tent' }] };
    refusedByQuota(await r.post('/multiple-trackings', multiple), /at most 2 trackings/);
    assert.equal(await stored('rank_trackings', r.id), 2, 'a refused write changes nothing, its purge included');
    assert.equal((await r.post('/trackings', trackingBody({ domain: 'c.example' }))).statusCode, 201);
    assert.equal(await stored('rank_trackings', r.id), 2);
    assert.equal(await stored('rank_tracked_keywords', r.id), 4, 'the purged tracking’s keywords went with it');
    assert.equal(await stored('rank_reports', r.id), 4);
    const listed = (await r.get('/trackings?is_with_deleted=true')).json() as { domain: string }[];
    assert.deepEqual(listed.map((x) => x.domain).sort(), ['b.example', 'c.example']);
  });

  test('tracked keywords: those of every tracking count; removing keywords makes room', async () => {
    t.ctx.fairUse.storage.trackedKeywords = 5;
    const r = await rankClient(t);
    const created = await r.post('/trackings', trackingBody({ keywords: ['one', 'two', 'three'] }));
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().tracking._id;
    const add = (keywords: string[]) => r.post(`/trackings/${id}/tracked-keywords`, { keywords: keywords.map((keyword) => ({ keyword })) });
    refusedByQuota(await add(['four', 'five', 'six']), /at most 5 tracked keywords/);
    assert.equal(await stored('rank_tracked_keywords', r.id), 3);
    assert.equal(await stored('rank_annotations', r.id), 0, 'the refused addition recorded no annotation');
    // Another tracking's keywords count too.
    refusedByQuota(await r.post('/trackings', trackingBody({ domain: 'other.example', keywords: ['a', 'b', 'c'] })), /tracked keywords/);
    assert.equal(await stored('rank_trackings', r.id), 1);
    const first = created.json().keywords[0].keyword_id;
    assert.equal((await r.del(`/trackings/${id}/tracked-keywords`, { tracked_keyword_ids: [first] })).statusCode, 204);
    const res = await add(['four', 'five', 'six']);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(await stored('rank_tracked_keywords', r.id), 5);
  });

  test('tags: past the cap 422 and no tag; deleting one makes room', async () => {
    t.ctx.fairUse.storage.tags = 2;
    const r = await rankClient(t);
    const id = (await r.post('/trackings', trackingBody())).json().tracking._id;
    const tag = (name: string) => r.post(`/trackings/${id}/tags`, { name, color: '#123456' });
    const first = await tag('one');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((await tag('two')).statusCode, 201);
    refusedByQuota(await tag('three'), /at most 2 tags/);
    assert.equal(await stored('rank_tags', r.id), 2);
    assert.equal((await r.del(`/trackings/${id}/tags/${first.json()._id}`)).statusCode, 204);
    assert.equal((await tag('three')).statusCode, 201);
  });

  test('annotations: notes and the changes the service records count; deleting a note makes room', async () => {
    t.ctx.fairUse.storage.annotations = 2;
    const r = await rankClient(t);
    const id = (await r.post('/trackings', trackingBody())).json().tracking._id;
    const note = (text: string) => r.post(`/trackings/${id}/annotations`, { date: '2026-11-20', text });
    const first = await note('one');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((await note('two')).statusCode, 201);
    refusedByQuota(await note('three'), /at most 2 annotations/);
    // Adding keywords and changing the domain record an annotation: refused whole when it cannot be kept.
    refusedByQuota(await r.post(`/trackings/${id}/tracked-keywords`, { keywords: [{ keyword: 'stove' }] }), /annotations/);
    refusedByQuota(await r.patch(`/trackings/${id}`, { domain: 'moved.example' }), /annotations/);
    assert.equal(await stored('rank_annotations', r.id), 2);
    assert.equal(await stored('rank_tracked_keywords', r.id), 2, 'no keyword was added');
    assert.equal((await r.get(`/trackings/${id}/detail`)).json().tracking.domain, 'example.com', 'nor the domain changed');
    assert.equal((await r.del(`/trackings/${id}/annotations/${first.json()._id}`)).statusCode, 204);
    assert.equal((await note('three')).statusCode, 201);
  });

  test('reports: a tracking’s two default reports count; past the cap 422; deleting one makes room', async () => {
    t.ctx.fairUse.storage.reports = 3;
    const r = await rankClient(t);
    const id = (await r.post('/trackings', trackingBody())).json().tracking._id;
    const report = () => r.post(`/trackings/${id}/reports`, { type: 1, emails: ['a@example.test'] });
    const third = await report();
    assert.equal(third.statusCode, 201, third.body);
    refusedByQuota(await report(), /at most 3 reports/);
    refusedByQuota(await r.post('/trackings', trackingBody({ domain: 'other.example' })), /reports/);
    assert.equal(await stored('rank_reports', r.id), 3);
    assert.equal(await stored('rank_trackings', r.id), 1);
    assert.equal((await r.del(`/trackings/${id}/reports/${third.json()._id}`)).statusCode, 204);
    assert.equal((await report()).statusCode, 201);
  });

  test('another account’s objects never count', async () => {
    t.ctx.fairUse.storage.tags = 1;
    const r = await rankClient(t);
    const other = await rankClient(t);
    for (const c of [r, other]) {
      const id = (await c.post('/trackings', trackingBody())).json().tracking._id;
      assert.equal((await c.post(`/trackings/${id}/tags`, { name: 'mine', color: '#123456' })).statusCode, 201);
    }
  });
});
