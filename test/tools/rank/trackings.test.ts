/**
 * Rank tool resources: create (201 shape, 409, 422s, plan limit), list (newest first,
 * filters, is_with_deleted), detail, PATCH, soft delete, tracked keywords, reports,
 * multiple trackings, and 404 for another account's tracking on every per-tracking route.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY } from '../../../src/lib/clock.js';
import { rankServices } from '../../../src/rank/rankService.js';
import { decodePng } from '../../render/pngInspection.js';
import { rankClient, trackingBody } from './helpers.js';

let t: TestApp;

const kwList = (n: number, prefix = 'kw') => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

describe('rank tool trackings', () => {
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await rankServices(t.ctx).checks.idle();
    await t.close();
  });

  test('POST /trackings answers 201 with the tracking, its keywords, default reports and processing fields', async () => {
    const c = await rankClient(t, 'premium', 'owner@example.test');
    const res = await c.post('/trackings', trackingBody({ domain: 'https://www.Example.com/', keywords: ['Hiking  Boots', 'tent', 'hiking boots'] }));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['estimatedTimeProcessing', 'keywords', 'postponed_keywords', 'postponed_processing', 'reports', 'tracking']);
    const tr = body.tracking;
    assert.deepEqual(
      Object.keys(tr).sort(),
      [
        '_id',
        'count',
        'created_at',
        'domain',
        'is_deleted',
        'location',
        'platform_id',
        'reports_active',
        'share_token',
        'tracked_keyword_ids',
        'tracking_config',
      ].sort(),
    );
    assert.match(tr._id, /^[0-9a-f]{24}$/);
    assert.equal(tr.domain, 'example.com');
    assert.deepEqual(tr.location, { _id: 2840, label: tr.location.label, code: 'us' });
    assert.equal(tr.platform_id, 1);
    assert.equal(tr.count, 2);
    assert.equal(tr.is_deleted, false);
    assert.deepEqual(tr.reports_active, [1, 2], 'the types of the reports sent: weekly and monthly');
    assert.deepEqual(tr.tracking_config, { address: null, ludocid: null, name: null, place_id: null });
    assert.equal(tr.created_at, Math.floor(t.clock.now() / 1000));
    assert.deepEqual(
      body.keywords.map((k: { kw: string }) => k.kw),
      ['hiking boots', 'tent'],
    );
    for (const k of body.keywords) {
      assert.deepEqual(Object.keys(k).sort(), [
        '_id',
        'checked_at',
        'created_at',
        'keyword_id',
        'kw',
        'location_id',
        'platform_id',
        'position',
        'sv',
        'tag_ids',
        'tracking_id',
        'url',
        'user_id',
      ]);
      assert.equal(k._id, k.keyword_id);
      assert.equal(k.tracking_id, tr._id);
      assert.equal(k.user_id, c.id);
      assert.equal(k.location_id, 2840);
      assert.equal(k.platform_id, 1);
    }
    assert.deepEqual(
      tr.tracked_keyword_ids,
      body.keywords.map((k: { keyword_id: string }) => k.keyword_id),
    );
    assert.deepEqual(
      body.reports.map((r: { type: number }) => r.type),
      [1, 2],
    );
    for (const r of body.reports) {
      assert.deepEqual(r.emails, ['owner@example.test']);
      assert.equal(r.tracking_id, tr._id);
      assert.equal(r.user_id, c.id);
    }
    assert.equal(body.postponed_processing, false);
    assert.equal(body.postponed_keywords, 0);
    assert.ok(Number.isInteger(body.estimatedTimeProcessing));
    // Keywords are checked at once after creation.
    await rankServices(t.ctx).checks.idle();
    const detail = (await c.get(`/trackings/${tr._id}/detail`)).json();
    assert.ok(detail.keywords.every((k: { checked_at: string | null }) => k.checked_at === '2026-11-22'));
  });

  test('the same domain, location and platform answers 409 Conflict; another platform or location does not', async () => {
    const c = await rankClient(t);
    assert.equal((await c.post('/trackings', trackingBody())).statusCode, 201);
    const again = await c.post('/trackings', trackingBody({ domain: 'www.example.com' }));
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.type, 'Conflict');
    assert.equal((await c.post('/trackings', trackingBody({ platform_id: 2 }))).statusCode, 201);
    assert.equal((await c.post('/trackings', trackingBody({ location_id: 2276 }))).statusCode, 201);
    // Another account may track the same domain.
    const other = await rankClient(t);
    assert.equal((await other.post('/trackings', trackingBody())).statusCode, 201);
  });

  test('bad input answers 422', async () => {
    const c = await rankClient(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ location_id: 999999999 }, 'unknown location'],
      [{ domain: 'not a domain' }, 'invalid domain'],
      [{ domain: 'localhost' }, 'no public suffix'],
      [{ domain: 'example.com/blog' }, 'a path is not a domain'],
      [{ platform_id: 3 }, 'platform'],
      [{ keywords: [] }, 'no keywords'],
      [{ keywords: ['  '] }, 'empty keyword'],
      [{ keywords: 'tent' }, 'keywords not an array'],
    ];
    for (const [over, why] of cases) {
      const res = await c.post('/trackings', trackingBody(over));
      assert.equal(res.statusCode, 422, `${why}: ${res.body}`);
    }
    for (const missing of ['domain', 'location_id', 'platform_id', 'keywords']) {
      const body: Record<string, unknown> = trackingBody();
      delete body[missing];
      assert.equal((await c.post('/trackings', body)).statusCode, 422, missing);
    }
    const res = await c.post('/trackings', trackingBody({ domain: 'example.com/blog' }));
    assert.deepEqual(res.json().error, { type: 'InvalidInput', message: 'Parameter domain is invalid' });
  });

  test('the plan limits tracked keywords across trackings not deleted (entry: 200)', async () => {
    const c = await rankClient(t, 'entry');
    const tooMany = await c.post('/trackings', trackingBody({ keywords: kwList(201) }));
    assert.equal(tooMany.statusCode, 422);
    assert.equal(tooMany.json().error.type, 'OutOfLimitException');
    const first = await c.post('/trackings', trackingBody({ keywords: kwList(150) }));
    assert.equal(first.statusCode, 201);
    const over = await c.post('/trackings', trackingBody({ domain: 'other.com', keywords: kwList(51, 'more') }));
    assert.equal(over.statusCode, 422);
    assert.equal(over.json().error.type, 'OutOfLimitException');
    const id = first.json().tracking._id;
    // Adding: the 201st keyword is refused, nothing of the request is added.
    assert.equal((await c.post(`/trackings/${id}/tracked-keywords`, { keywords: kwList(51, 'add') })).statusCode, 422);
    assert.equal((await c.get(`/trackings/${id}/detail`)).json().tracking.count, 150);
    // Already tracked keywords are not counted twice.
    const ok = await c.post(`/trackings/${id}/tracked-keywords`, { keywords: [...kwList(50, 'add'), 'kw 1'] });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().keywords.length, 50);
    assert.equal((await c.post('/trackings', trackingBody({ domain: 'other.com', keywords: ['one more'] }))).statusCode, 422);
    // Deleting a tracking frees its keywords.
    assert.equal((await c.del(`/trackings/${id}`)).statusCode, 204);
    assert.equal((await c.post('/trackings', trackingBody({ domain: 'other.com', keywords: kwList(200) }))).statusCode, 201);
    // Multiple trackings count keywords once per platform.
    const multi = await rankClient(t, 'entry');
    assert.equal(
      (await multi.post('/multiple-trackings', { ...trackingBody({ keywords: kwList(101) }), platform_id: undefined, platform_ids: [1, 2] })).statusCode,
      422,
    );
    assert.equal(
      (await multi.post('/multiple-trackings', { ...trackingBody({ keywords: kwList(100) }), platform_id: undefined, platform_ids: [1, 2] })).statusCode,
      201,
    );
  });

  test('GET /trackings: newest first with location and count; from/to on created_at; is_with_deleted', async () => {
    const c = await rankClient(t);
    const ids: string[] = [];
    const start = t.clock.now();
    for (const [i, domain] of ['a.com', 'b.com', 'c.com'].entries()) {
      const res = await c.post('/trackings', trackingBody({ domain, keywords: kwList(i + 1) }));
      ids.push(res.json().tracking._id);
      t.clock.advance(2 * DAY);
    }
    let list = (await c.get('/trackings')).json();
    assert.deepEqual(
      list.map((x: { _id: string }) => x._id),
      [...ids].reverse(),
    );
    assert.deepEqual(
      list.map((x: { count: number }) => x.count),
      [3, 2, 1],
    );
    assert.equal(list[0].location._id, 2840);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    list = (await c.get(`/trackings?from=${day(start + 2 * DAY)}`)).json();
    assert.deepEqual(
      list.map((x: { domain: string }) => x.domain),
      ['c.com', 'b.com'],
    );
    list = (await c.get(`/trackings?to=${day(start + 2 * DAY)}`)).json();
    assert.deepEqual(
      list.map((x: { domain: string }) => x.domain),
      ['b.com', 'a.com'],
    );
    list = (await c.get(`/trackings?from=${Math.floor(start / 1000) + 1}&to=${Math.floor((start + 3 * DAY) / 1000)}`)).json();
    assert.deepEqual(
      list.map((x: { domain: string }) => x.domain),
      ['b.com'],
    );
    for (const bad of ['from=yesterday', 'to=2026-02-30', 'from=2026-1-1', 'is_with_deleted=maybe']) {
      assert.equal((await c.get(`/trackings?${bad}`)).statusCode, 422, bad);
    }
    assert.equal((await c.del(`/trackings/${ids[1]}`)).statusCode, 204);
    assert.equal((await c.del(`/trackings/${ids[1]}`)).statusCode, 404);
    list = (await c.get('/trackings')).json();
    assert.deepEqual(
      list.map((x: { domain: string }) => x.domain),
      ['c.com', 'a.com'],
    );
    list = (await c.get('/trackings?is_with_deleted=true')).json();
    assert.deepEqual(
      list.map((x: { domain: string; is_deleted: boolean }) => [x.domain, x.is_deleted]),
      [
        ['c.com', false],
        ['b.com', true],
        ['a.com', false],
      ],
    );
    // A deleted tracking can be seen but not changed; its target can be tracked again.
    assert.equal((await c.get(`/trackings/${ids[1]}/detail`)).json().tracking.is_deleted, true);
    assert.equal((await c.patch(`/trackings/${ids[1]}`, { reports_active: false })).statusCode, 404);
    assert.equal((await c.post('/trackings', trackingBody({ domain: 'b.com' }))).statusCode, 201);
  });

  test('GET /trackings: trackings created within one second are newest first too', async () => {
    const c = await rankClient(t);
    const domains = ['one.com', 'two.com', 'three.com', 'four.com', 'five.com', 'six.com'];
    // The fake clock stands still: every creation below falls in one second.
    for (const domain of domains) assert.equal((await c.post('/trackings', trackingBody({ domain, keywords: ['tent'] }))).statusCode, 201);
    const list = (await c.get('/trackings')).json() as { domain: string; created_at: number }[];
    assert.equal(new Set(list.map((x) => x.created_at)).size, 1, 'all in one second');
    assert.deepEqual(
      list.map((x) => x.domain),
      [...domains].reverse(),
    );
  });

  test('PATCH pauses reports (alias reports_active); location and platform cannot change', async () => {
    const c = await rankClient(t);
    const id = (await c.post('/trackings', trackingBody())).json().tracking._id;
    const res = await c.patch(`/trackings/${id}`, { reports_active: false });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().tracking.reports_active, []);
    assert.equal(res.json().annotation, undefined, 'no domain change, no annotation');
    assert.deepEqual((await c.get(`/trackings/${id}/detail`)).json().tracking.reports_active, []);
    assert.deepEqual((await c.patch(`/trackings/${id}`, { reports_active: true })).json().tracking.reports_active, [1, 2]);
    assert.equal((await c.patch(`/trackings/${id}`, { domain: 'example.com', location_id: 2276 })).statusCode, 422);
    assert.equal((await c.patch(`/trackings/${id}`, { domain: 'example.com', platform_id: 2 })).statusCode, 422);
    assert.equal((await c.patch(`/trackings/${id}`, { domain: 'not a domain' })).statusCode, 422);
    assert.equal((await c.get(`/trackings/${id}/detail`)).json().tracking.domain, 'example.com');
  });

  test('tracked keywords: list, add (existing kept once), one keyword, remove', async () => {
    const c = await rankClient(t);
    const created = (await c.post('/trackings', trackingBody())).json();
    const id = created.tracking._id;
    const added = await c.post(`/trackings/${id}/tracked-keywords`, { keywords: ['tent', 'Sleeping Bag'] });
    assert.equal(added.statusCode, 201);
    assert.deepEqual(
      added.json().keywords.map((k: { kw: string }) => k.kw),
      ['sleeping bag'],
    );
    await rankServices(t.ctx).checks.idle();
    const list = (await c.get(`/trackings/${id}/tracked-keywords`)).json();
    assert.deepEqual(list.map((k: { kw: string }) => k.kw).sort(), ['hiking boots', 'sleeping bag', 'tent']);
    const one = await c.get(`/trackings/${id}/tracked-keywords/${list[0]._id}`);
    assert.equal(one.statusCode, 200);
    const k = one.json();
    assert.equal(k.history.length, 1);
    assert.ok(Array.isArray(k.serp_features));
    assert.match(k.serp_snapshot_id, new RegExp(`^[0-9a-f]{32}\\.${new Date(t.clock.now()).toISOString().slice(0, 10)}`));
    assert.equal((await c.get(`/trackings/${id}/tracked-keywords/${created.keywords[0].keyword_id.replace(/./, 'x')}`)).statusCode, 404);
    assert.equal((await c.del(`/trackings/${id}/tracked-keywords`, { keyword_ids: [list[0]._id, 'unknown'] })).statusCode, 204);
    assert.equal((await c.get(`/trackings/${id}/tracked-keywords`)).json().length, 2);
    assert.equal((await c.get(`/trackings/${id}/tracked-keywords/${list[0]._id}`)).statusCode, 404);
  });

  test('the snapshot id of a tracked keyword opens for the account of the tracking only', async () => {
    const c = await rankClient(t);
    const other = await rankClient(t);
    const id = (await c.post('/trackings', trackingBody({ keywords: ['tent'] }))).json().tracking._id;
    await rankServices(t.ctx).checks.idle();
    // Days caught up after downtime: the latest check's snapshot is the one shown.
    t.clock.advance(3 * DAY);
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const [keyword] = (await c.get(`/trackings/${id}/tracked-keywords`)).json();
    const { serp_snapshot_id } = (await c.get(`/trackings/${id}/tracked-keywords/${keyword._id}`)).json();
    assert.match(serp_snapshot_id, new RegExp(`^[0-9a-f]{32}\\.${new Date(t.clock.now()).toISOString().slice(0, 10)}`));
    const snapshot = (key: string) =>
      t.app.inject({ method: 'GET', url: `/v3/serp-tool/serps/${encodeURIComponent(serp_snapshot_id)}/snapshot`, headers: { 'x-access-token': key } });
    const own = await snapshot(c.key);
    assert.equal(own.statusCode, 200, own.body);
    const png = decodePng(Buffer.from(own.json().image, 'base64'));
    assert.ok(png.width > 0 && png.height > 0);
    const foreign = await snapshot(other.key);
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(foreign.json(), { error: { type: 'Error', message: 'Serp not found' } });
  });

  test('reports: list, add, replace, delete; bad emails 422', async () => {
    const c = await rankClient(t);
    const id = (await c.post('/trackings', trackingBody())).json().tracking._id;
    assert.equal((await c.get(`/trackings/${id}/reports`)).json().length, 2);
    const res = await c.post(`/trackings/${id}/reports`, {
      type: 2,
      emails: ['a@example.test', 'B@example.test'],
      name: 'Alerts',
      triggers: { min_change: 3 },
    });
    assert.equal(res.statusCode, 201, res.body);
    const report = res.json();
    assert.deepEqual(Object.keys(report).sort(), ['_id', 'created_at', 'emails', 'min_change', 'name', 'tracking_id', 'triggers', 'type', 'user_id']);
    assert.deepEqual(report.emails, ['a@example.test', 'b@example.test']);
    assert.deepEqual([report.triggers, report.min_change], [[], 3], 'the old triggers object is read as min_change');
    const put = await c.put(`/trackings/${id}/reports/${report._id}`, { type: 1, emails: ['c@example.test'], name: 'Weekly to C', triggers: [1, 2] });
    assert.equal(put.statusCode, 204, put.body);
    const replaced = (await c.get(`/trackings/${id}/reports`)).json().find((r: { _id: string }) => r._id === report._id);
    assert.deepEqual(
      [replaced.type, replaced.emails, replaced.name, replaced.triggers, replaced.min_change],
      [1, ['c@example.test'], 'Weekly to C', [1, 2], null],
    );
    assert.equal((await c.post(`/trackings/${id}/reports`, { type: 0, emails: ['a@example.test'], triggers: { other: 1 } })).statusCode, 422);
    assert.equal((await c.post(`/trackings/${id}/reports`, { type: 0, emails: ['not-an-email'] })).statusCode, 422);
    assert.equal((await c.post(`/trackings/${id}/reports`, { type: 5, emails: ['a@example.test'] })).statusCode, 422);
    assert.equal((await c.del(`/trackings/${id}/reports/${report._id}`)).statusCode, 204);
    assert.equal((await c.del(`/trackings/${id}/reports/${report._id}`)).statusCode, 404);
    assert.equal((await c.put(`/trackings/${id}/reports/${report._id}`, { type: 0, emails: ['c@example.test'] })).statusCode, 404);
    assert.equal((await c.get(`/trackings/${id}/reports`)).json().length, 2);
  });

  test('POST /multiple-trackings creates each missing location × platform pair, skips existing ones, 409 when all exist', async () => {
    const c = await rankClient(t);
    const body = { domain: 'multi.com', location_ids: [2840, 2276], platform_ids: [1, 2], keywords: [{ keyword: 'tent' }] };
    const res = await c.post('/multiple-trackings', body);
    assert.equal(res.statusCode, 201, res.body);
    const out = res.json();
    assert.deepEqual(
      out.map((x: { tracking: { location: { _id: number }; platform_id: number } }) => [x.tracking.location._id, x.tracking.platform_id]),
      [
        [2840, 1],
        [2840, 2],
        [2276, 1],
        [2276, 2],
      ],
    );
    assert.deepEqual(
      out.map((x: { keywords: { kw: string }[] }) => x.keywords.map((k) => k.kw)),
      [['tent'], ['tent'], ['tent'], ['tent']],
    );
    assert.equal((await c.post('/multiple-trackings', body)).statusCode, 409);
    await c.del(`/trackings/${out[1].tracking._id}`);
    // Only the missing pair is created.
    const again = await c.post('/multiple-trackings', body);
    assert.equal(again.statusCode, 201, again.body);
    assert.deepEqual(
      again.json().map((x: { tracking: { location: { _id: number }; platform_id: number } }) => [x.tracking.location._id, x.tracking.platform_id]),
      [[2840, 2]],
    );
    assert.equal((await c.get('/trackings')).json().length, 4);
    // The previous form (one location_id, keywords as strings) still works.
    const old = await c.post('/multiple-trackings', { domain: 'old-form.com', location_id: 2840, platform_ids: [2], keywords: ['tent'] });
    assert.equal(old.statusCode, 201, old.body);
    assert.equal((await c.post('/multiple-trackings', { ...body, platform_ids: [3] })).statusCode, 422);
    assert.equal((await c.post('/multiple-trackings', { ...body, location_ids: [999999999] })).statusCode, 422);
    assert.equal((await c.post('/multiple-trackings', { ...body, location_ids: undefined })).statusCode, 422);
  });

  test('every per-tracking route answers 404 for another account’s tracking and for an unknown id', async () => {
    const owner = await rankClient(t);
    const created = (await owner.post('/trackings', trackingBody())).json();
    const id = created.tracking._id;
    const kid = created.keywords[0].keyword_id;
    const rid = created.reports[0]._id;
    const tag = (await owner.post(`/trackings/${id}/tags`, { name: 'Mine', color: '#123456' })).json();
    const note = (await owner.post(`/trackings/${id}/annotations`, { date: '2026-11-22', text: 'Mine' })).json();
    const stranger = await rankClient(t);
    const routes: [keyof typeof stranger, string, unknown?][] = [
      ['get', '/detail'],
      ['patch', '', { reports_active: false }],
      ['del', ''],
      ['post', '/stats', { days: 7 }],
      ['get', '/tracked-keywords'],
      ['post', '/tracked-keywords', { keywords: ['x'] }],
      ['del', '/tracked-keywords', { keyword_ids: [kid] }],
      ['get', `/tracked-keywords/${kid}`],
      ['get', '/reports'],
      ['post', '/reports', { type: 0, emails: ['x@example.test'] }],
      ['put', `/reports/${rid}`, { type: 1, emails: ['x@example.test'] }],
      ['del', `/reports/${rid}`],
      ['get', '/tags'],
      ['post', '/tags', { name: 'x', color: '#000' }],
      ['put', `/tags/${tag._id}`, { name: 'x', color: '#000' }],
      ['del', `/tags/${tag._id}`],
      ['post', '/tags/assign', { keyword_ids: [kid], tag_ids: [tag._id] }],
      ['post', '/tags/unassign', { keyword_ids: [kid], tag_ids: [tag._id] }],
      ['post', '/annotations', { date: '2026-11-22', text: 'x' }],
      ['put', `/annotations/${note._id}`, { text: 'x' }],
      ['del', `/annotations/${note._id}`],
    ];
    for (const [method, suffix, payload] of routes) {
      for (const tid of [id, '0123456789abcdef01234567']) {
        const res = await (stranger[method] as (p: string, b?: unknown) => Promise<{ statusCode: number; json(): any }>)(`/trackings/${tid}${suffix}`, payload);
        assert.equal(res.statusCode, 404, `${method} ${suffix}`);
        assert.equal(res.json().error.type, 'Error');
      }
    }
    // Tags and keyword ids of another account's tracking cannot be reached through one's own.
    const own = (await stranger.post('/trackings', trackingBody())).json().tracking._id;
    const ownTag = (await stranger.post(`/trackings/${own}/tags`, { name: 'Theirs', color: '#654321' })).json();
    assert.equal((await stranger.post(`/trackings/${own}/tags/assign`, { keyword_ids: [kid], tag_ids: [tag._id] })).statusCode, 422);
    assert.equal((await stranger.post(`/trackings/${own}/tags/assign`, { keyword_ids: [kid], tag_ids: [ownTag._id] })).statusCode, 204);
    assert.equal((await stranger.put(`/trackings/${own}/tags/${tag._id}`, { name: 'x', color: '#000' })).statusCode, 404);
    assert.equal((await stranger.del(`/trackings/${own}/annotations/${note._id}`)).statusCode, 404);
    assert.deepEqual(
      (await stranger.get('/tags')).json().map((x: { _id: string }) => x._id),
      [ownTag._id],
    );
    assert.deepEqual(
      (await owner.get('/tags')).json().map((x: { _id: string }) => x._id),
      [tag._id],
    );
    // The owner's tracking is untouched.
    const detail = (await owner.get(`/trackings/${id}/detail`)).json();
    assert.equal(detail.tracking.is_deleted, false);
    assert.equal(detail.tracking.count, 2);
    assert.equal(detail.reports.length, 2);
    assert.deepEqual(
      detail.tracking.tags.map((x: { name: string }) => x.name),
      ['Mine'],
    );
    assert.ok(detail.keywords.every((k: { tag_ids: string[] }) => k.tag_ids.length === 0));
    const notes = (await owner.post(`/trackings/${id}/stats?from=2026-11-22&to=2026-11-22`, {})).json().annotations;
    assert.deepEqual(
      notes.map((a: { content: { text: string } }) => a.content.text),
      ['Mine'],
    );
  });

  test('without a key: 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v3/rank-tool/trackings' });
    assert.equal(res.statusCode, 401);
  });
});
