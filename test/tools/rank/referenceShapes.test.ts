/**
 * Every rank-tool operation called with its request body in the published reference's form,
 * each answer checked against the reference's response schema (Ajv over
 * reference-openapi.json), and what those bodies do: keywords `[{keyword}]` with `tag_ids`,
 * `tracked_keyword_ids`, multiple trackings by location × platform, PATCH `{domain,
 * tracking_config}` with its annotation, stats with `kwIds` and `from`/`to`, reports with
 * `triggers[]`, tags (7 operations) and annotations (3).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import { DAY } from '../../../src/lib/clock.js';
import { rankServices } from '../../../src/rank/rankService.js';
import { rankClient, type RankClient, type Res } from './helpers.js';

let t: TestApp;
let c: RankClient;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const P = '/rank-tool/trackings/{tracking_id}';

function shaped(method: string, path: string, status: number, res: Res): any {
  assert.equal(res.statusCode, status, `${method} ${path}: ${res.body}`);
  const body = res.body === '' ? undefined : res.json();
  if (body !== undefined) assertReferenceShape(method, path, status, body);
  return body;
}

describe('rank-tool answers match the reference', () => {
  before(async () => {
    t = await testApp();
    c = await rankClient(t, 'premium', 'shapes@example.test');
  });
  after(async () => {
    await rankServices(t.ctx).checks.idle();
    await t.close();
  });

  test('trackings: create, multiple, list, detail, PATCH {domain, tracking_config}, delete', async () => {
    const created = shaped(
      'POST',
      '/rank-tool/trackings',
      201,
      await c.post('/trackings', { domain: 'shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] }),
    );
    const id = created.tracking._id;
    const multi = shaped(
      'POST',
      '/rank-tool/multiple-trackings',
      201,
      await c.post('/multiple-trackings', {
        domain: 'shapes.com',
        location_ids: [2840, 2826],
        platform_ids: [1, 2],
        keywords: [{ keyword: 'tent' }, { keyword: 'stove' }],
      }),
    );
    assert.equal(multi.length, 3, 'the existing (2840, desktop) pair is skipped');
    await rankServices(t.ctx).checks.idle();
    shaped('GET', '/rank-tool/trackings', 200, await c.get('/trackings?is_with_deleted=true'));
    const detail = shaped('GET', `${P}/detail`, 200, await c.get(`/trackings/${id}/detail?from=${day(t.clock.now() - 7 * DAY)}&to=${day(t.clock.now())}`));
    assert.equal(detail.whiteLabel, null);
    assert.deepEqual(Object.keys(detail.tracking.stats.timeframes), [day(t.clock.now())]);

    const patched = shaped(
      'PATCH',
      P,
      200,
      await c.patch(`/trackings/${id}`, {
        domain: 'www.shapes-renamed.com',
        tracking_config: { place_id: 'ChIJ123', ludocid: '42', name: 'Shapes', address: null },
      }),
    );
    assert.equal(patched.tracking.domain, 'shapes-renamed.com');
    assert.deepEqual(patched.tracking.tracking_config, { address: null, ludocid: '42', name: 'Shapes', place_id: 'ChIJ123' });
    assert.equal(patched.annotation.type, 3);
    assert.equal(patched.annotation.content.text, 'Domain changed from shapes.com to shapes-renamed.com');
    // The history stays with the tracking; the detail shows the new settings.
    assert.deepEqual((await c.get(`/trackings/${id}/detail`)).json().tracking.tracking_config, patched.tracking.tracking_config);
    // A null place_id clears the settings; no domain change, no annotation.
    const cleared = shaped('PATCH', P, 200, await c.patch(`/trackings/${id}`, { domain: 'shapes-renamed.com', tracking_config: { place_id: null } }));
    assert.deepEqual(cleared.tracking.tracking_config, { address: null, ludocid: null, name: null, place_id: null });
    assert.equal(cleared.annotation, undefined);
    // Another tracking of the same location and platform follows shapes.com on mobile, not desktop: renaming onto a live one is 409.
    const other = (await c.post('/trackings', { domain: 'other-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    const clash = await c.patch(`/trackings/${other}`, { domain: 'shapes-renamed.com' });
    assert.equal(clash.statusCode, 409, clash.body);
    assert.equal((await c.del(`/trackings/${other}`)).statusCode, 204);
  });

  test('tracked keywords: add [{keyword}] with tag_ids, list, one keyword, remove {tracked_keyword_ids}', async () => {
    const id = (await c.post('/trackings', { domain: 'kw-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    const tag = shaped('POST', `${P}/tags`, 201, await c.post(`/trackings/${id}/tags`, { name: 'Core', color: '#1a73e8' }));
    const added = shaped(
      'POST',
      `${P}/tracked-keywords`,
      201,
      await c.post(`/trackings/${id}/tracked-keywords`, { keywords: [{ keyword: 'tent' }, { keyword: 'Camping Stove' }], tag_ids: [tag._id] }),
    );
    assert.deepEqual(
      added.keywords.map((k: { kw: string; tag_ids: string[] }) => [k.kw, k.tag_ids]),
      [['camping stove', [tag._id]]],
      'only the new keyword is answered; the tracked one gained the tag',
    );
    assert.equal(added.tracking.count, 2);
    assert.equal(added.postponed_keywords, 0);
    await rankServices(t.ctx).checks.idle();
    const list = shaped('GET', `${P}/tracked-keywords`, 200, await c.get(`/trackings/${id}/tracked-keywords`));
    assert.deepEqual(list.map((k: { kw: string; tag_ids: string[] }) => [k.kw, k.tag_ids]).sort(), [
      ['camping stove', [tag._id]],
      ['tent', [tag._id]],
    ]);
    const stove = list.find((k: { kw: string }) => k.kw === 'camping stove');
    const some = (await c.get(`/trackings/${id}/tracked-keywords?fields=kw,position`)).json();
    assert.deepEqual(Object.keys(some[0]), ['kw', 'position']);
    assert.equal((await c.get(`/trackings/${id}/tracked-keywords?fields=kw,nope`)).statusCode, 422);
    const one = shaped('GET', `${P}/tracked-keywords/{tracked_keyword_id}`, 200, await c.get(`/trackings/${id}/tracked-keywords/${list[0]._id}`));
    assert.deepEqual(one.tag_ids, [tag._id]);
    assert.equal(one.rank.last, one.position);
    assert.equal(one.search_volume, one.sv);
    for (const item of one.items) assert.ok(Object.values(item.rank_history).every((d: any) => 'p' in d && 'af' in d && 'ft' in d && 'cov' in d && 'b' in d));
    // Unknown tags are refused and nothing is added.
    assert.equal(
      (await c.post(`/trackings/${id}/tracked-keywords`, { keywords: [{ keyword: 'lantern' }], tag_ids: ['ffffffffffffffffffffffff'] })).statusCode,
      422,
    );
    assert.equal((await c.get(`/trackings/${id}/tracked-keywords`)).json().length, 2);
    shaped('DELETE', `${P}/tracked-keywords`, 204, await c.del(`/trackings/${id}/tracked-keywords`, { tracked_keyword_ids: [stove._id] }));
    assert.deepEqual(
      (await c.get(`/trackings/${id}/tracked-keywords`)).json().map((k: { kw: string }) => k.kw),
      ['tent'],
    );
    assert.equal((await c.del(`/trackings/${id}/tracked-keywords`, { tracked_keyword_ids: [] })).statusCode, 422);
    // Additions and removals are recorded as annotations, shown by the stats.
    const stats = shaped('POST', `${P}/stats`, 200, await c.post(`/trackings/${id}/stats?from=${day(t.clock.now())}&to=${day(t.clock.now())}`, {}));
    assert.deepEqual(
      stats.annotations.map((a: { type: number; content: { keywords_count: number } }) => [a.type, a.content.keywords_count]),
      [
        [1, 1],
        [2, -1],
      ],
    );
  });

  test('stats: kwIds and from/to; tags and annotations shown', async () => {
    const id = (await c.post('/trackings', { domain: 'stats-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent', 'stove', 'lantern'] })).json()
      .tracking._id;
    await rankServices(t.ctx).checks.idle();
    t.clock.advance(2 * DAY);
    await rankServices(t.ctx).checks.runDueChecks(t.clock.now());
    const keywords = (await c.get(`/trackings/${id}/tracked-keywords`)).json();
    const note = shaped(
      'POST',
      `${P}/annotations`,
      201,
      await c.post(`/trackings/${id}/annotations`, { date: day(t.clock.now() - DAY), text: 'Site migration' }),
    );
    assert.deepEqual([note.type, note.content.text, note.date, note.nonShareable], [0, 'Site migration', day(t.clock.now() - DAY), false]);
    const from = day(t.clock.now() - 2 * DAY);
    const to = day(t.clock.now());
    const stats = shaped('POST', `${P}/stats`, 200, await c.post(`/trackings/${id}/stats?from=${from}&to=${to}`, { kwIds: [keywords[0]._id] }));
    assert.deepEqual(stats.history_dates, [from, day(t.clock.now() - DAY), to]);
    assert.deepEqual(
      stats.keywords.map((k: { keyword_id: string }) => k.keyword_id),
      [keywords[0]._id],
    );
    assert.ok(Object.values(stats.stats.timeframes).every((f: any) => f.keywords_with_history === 1 && f.keywords_eligible === 1));
    assert.ok(stats.annotations.some((a: { _id: string }) => a._id === note._id));
    // Outside the range, the note is not shown.
    const before = (await c.post(`/trackings/${id}/stats?from=${from}&to=${from}`, {})).json();
    assert.ok(!before.annotations.some((a: { _id: string }) => a._id === note._id));
  });

  test('reports: add, list, PUT {emails, type, name, triggers} → 204, delete', async () => {
    const id = (await c.post('/trackings', { domain: 'report-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    const report = shaped(
      'POST',
      `${P}/reports`,
      201,
      await c.post(`/trackings/${id}/reports`, { emails: ['a@example.test'], type: 0, name: 'Alert', triggers: [1] }),
    );
    assert.deepEqual([report.type, report.name, report.triggers], [0, 'Alert', [1]]);
    const list = shaped('GET', `${P}/reports`, 200, await c.get(`/trackings/${id}/reports`));
    assert.deepEqual(list.map((r: { type: number }) => r.type).sort(), [0, 1, 2]);
    assert.deepEqual((await c.get(`/trackings/${id}/detail`)).json().tracking.reports_active, [0, 1, 2]);
    shaped(
      'PUT',
      `${P}/reports/{report_id}`,
      204,
      await c.put(`/trackings/${id}/reports/${report._id}`, { emails: ['b@example.test'], type: 2, name: 'Monthly to B', triggers: [] }),
    );
    shaped('DELETE', `${P}/reports/{report_id}`, 204, await c.del(`/trackings/${id}/reports/${report._id}`));
  });

  test('tags: list all, a tracking’s, create, rename, assign (merged), unassign (tolerant), delete (off every keyword)', async () => {
    const id = (await c.post('/trackings', { domain: 'tag-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent', 'stove'] })).json().tracking._id;
    const kws = (await c.get(`/trackings/${id}/tracked-keywords`)).json().map((k: { _id: string }) => k._id);
    const a = shaped('POST', `${P}/tags`, 201, await c.post(`/trackings/${id}/tags`, { name: 'Brand', color: '#ff0000' }));
    const b = shaped('POST', `${P}/tags`, 201, await c.post(`/trackings/${id}/tags`, { name: 'Generic', color: '#00ff00' }));
    assert.deepEqual([a.tracking_id, a.creator, a.name, a.color], [id, 'shapes@example.test', 'Brand', '#ff0000']);
    const mine = shaped('GET', `${P}/tags`, 200, await c.get(`/trackings/${id}/tags`));
    assert.deepEqual(
      mine.map((x: { _id: string }) => x._id),
      [a._id, b._id],
    );
    const all = shaped('GET', '/rank-tool/tags', 200, await c.get('/tags'));
    assert.ok([a._id, b._id].every((tid) => all.some((x: { _id: string }) => x._id === tid)));
    shaped('POST', `${P}/tags/assign`, 204, await c.post(`/trackings/${id}/tags/assign`, { keyword_ids: kws, tag_ids: [a._id] }));
    shaped('POST', `${P}/tags/assign`, 204, await c.post(`/trackings/${id}/tags/assign`, { keyword_ids: [kws[0]], tag_ids: [a._id, b._id] }));
    const tagsOf = async () => (await c.get(`/trackings/${id}/tracked-keywords`)).json().map((k: { tag_ids: string[] }) => k.tag_ids);
    assert.deepEqual(await tagsOf(), [[a._id, b._id], [a._id]], 'merged without duplicates');
    shaped('POST', `${P}/tags/unassign`, 204, await c.post(`/trackings/${id}/tags/unassign`, { keyword_ids: kws, tag_ids: [b._id] }));
    assert.deepEqual(await tagsOf(), [[a._id], [a._id]], 'a tag a keyword lacks is ignored');
    shaped('PUT', `${P}/tags/{tag_id}`, 204, await c.put(`/trackings/${id}/tags/${a._id}`, { name: 'Brand terms', color: '#aa0000' }));
    const renamed = (await c.get(`/trackings/${id}/detail`)).json().tracking.tags.find((x: { _id: string }) => x._id === a._id);
    assert.deepEqual([renamed.name, renamed.color], ['Brand terms', '#aa0000']);
    shaped('DELETE', `${P}/tags/{tag_id}`, 204, await c.del(`/trackings/${id}/tags/${a._id}`));
    assert.deepEqual(await tagsOf(), [[], []], 'deleting a tag takes it off every keyword');
    assert.equal((await c.del(`/trackings/${id}/tags/${a._id}`)).statusCode, 404);
    assert.equal((await c.put(`/trackings/${id}/tags/${a._id}`, { name: 'x', color: 'y' })).statusCode, 404);
    assert.equal((await c.post(`/trackings/${id}/tags`, { name: '  ', color: '#000' })).statusCode, 422);
    assert.equal((await c.post(`/trackings/${id}/tags/assign`, { keyword_ids: kws, tag_ids: [a._id] })).statusCode, 422, 'a deleted tag is unknown');
  });

  test('annotations: create (createTrackingAnnotation), edit → 204, delete → 204 then 404; bad dates 422', async () => {
    const id = (await c.post('/trackings', { domain: 'note-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking._id;
    const note = shaped('POST', `${P}/annotations`, 201, await c.post(`/trackings/${id}/annotations`, { date: day(t.clock.now()), text: 'Launch' }));
    shaped('PUT', `${P}/annotations/{annotation_id}`, 204, await c.put(`/trackings/${id}/annotations/${note._id}`, { text: 'Launch day' }));
    const shown = (await c.post(`/trackings/${id}/stats`, {})).json().annotations;
    assert.deepEqual(
      shown.map((a: { content: { text: string } }) => a.content.text),
      ['Launch day'],
    );
    shaped('DELETE', `${P}/annotations/{annotation_id}`, 204, await c.del(`/trackings/${id}/annotations/${note._id}`));
    assert.equal((await c.del(`/trackings/${id}/annotations/${note._id}`)).statusCode, 404);
    assert.equal((await c.put(`/trackings/${id}/annotations/${note._id}`, { text: 'x' })).statusCode, 404);
    for (const date of ['2026-02-30', 'today', '']) {
      const res = await c.post(`/trackings/${id}/annotations`, { date, text: 'x' });
      assert.equal(res.statusCode, 422, date);
      assert.deepEqual(res.json().error, { type: 'InvalidInput', message: 'Parameter date is invalid' });
    }
    const doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    assert.equal(doc.paths['/rank-tool/trackings/{tracking_id}/annotations'].post.operationId, 'createTrackingAnnotation');
  });

  test('the share token opens the detail, the stats and a keyword’s detail read-only without a key', async () => {
    const created = (await c.post('/trackings', { domain: 'shared-shapes.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json();
    const { _id: id, share_token } = created.tracking;
    const kw = created.keywords[0].keyword_id;
    const anon = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) =>
      t.app.inject({ method, url: `/v3/rank-tool${path}`, ...(payload ? { payload } : {}) });
    shaped('GET', `${P}/detail`, 200, await anon('GET', `/trackings/${id}/detail?share_token=${share_token}`));
    shaped('POST', `${P}/stats`, 200, await anon('POST', `/trackings/${id}/stats?share_token=${share_token}`, {}));
    shaped('GET', `${P}/tracked-keywords/{tracked_keyword_id}`, 200, await anon('GET', `/trackings/${id}/tracked-keywords/${kw}?share_token=${share_token}`));
    assert.equal((await anon('GET', `/trackings/${id}/detail`)).statusCode, 401);
    assert.equal((await anon('GET', `/trackings/${id}/detail?share_token=${share_token.replace(/^./, 'x')}`)).statusCode, 404);
    // Only those reads: the token changes nothing.
    assert.equal((await anon('PATCH', `/trackings/${id}?share_token=${share_token}`, { domain: 'x.com' })).statusCode, 401);
    assert.equal((await anon('GET', `/trackings/${id}/tracked-keywords?share_token=${share_token}`)).statusCode, 401);
    // Another tracking's token does not open this one.
    const other = (await c.post('/trackings', { domain: 'shared-other.com', location_id: 2840, platform_id: 1, keywords: ['tent'] })).json().tracking;
    assert.equal((await anon('GET', `/trackings/${id}/detail?share_token=${other.share_token}`)).statusCode, 404);
  });
});
