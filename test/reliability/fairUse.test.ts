/**
 * Fair use of free operations (issue 12, item 2): a per-account budget of free writes
 * (429 RateLimit with retry_after, refilled by the clock), at most two bulk reads per
 * account at once, a storage quota across an account's lists (422), at most three live
 * backlink exports per account (429 before any charge), workers taking the jobs of the
 * least busy account first, and all lists streamed as one JSON array.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import { SECOND, unixSeconds } from '../../src/lib/clock.js';
import { BulkSlots, ExportPlaces, FreeWriteBudget, writeUnits } from '../../src/policy/fairUse.js';
import { KeywordLists, ListLimitError } from '../../src/store/keywordLists.js';
import { openJobQueue } from '../../src/jobs/openJobQueue.js';
import { newClient } from '../tools/keyword/helpers.js';
import { STREAM_BATCH } from '../../src/http/streamed.js';
import { presentKeyword } from '../../src/tools/keyword/presenters.js';
import { rankClient, trackingBody, type Res } from '../tools/rank/helpers.js';

let t: TestApp;

describe('fair use of free operations', () => {
  before(async () => {
    t = await testApp({ env: { QUARRY_FREE_WRITES_PER_MINUTE: '12' } });
  });
  after(() => t.close());

  test('free writes spend a per-account budget: 1 unit plus 1 per started 1,000 ids; past it 429 RateLimit until the clock refills it', async () => {
    assert.equal(writeUnits(0), 1);
    assert.equal(writeUnits(1), 2);
    assert.equal(writeUnits(10_000), 11);
    const c = await newClient(t);
    const other = await newClient(t);
    for (let i = 0; i < 12; i++) assert.equal((await c.post('/lists', { name: `l${i}`, keyword_ids: [] })).statusCode, 201, `write ${i}`);
    const refused = await c.post('/lists', { name: 'one more', keyword_ids: [] });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.type, 'RateLimit');
    assert.equal(refused.json().error.retry_after, 5, '1 unit at 12 per minute');
    assert.equal(refused.headers['retry-after'], '5');
    // Another account has its own budget; reads are not writes.
    assert.equal((await other.post('/lists', { name: 'mine', keyword_ids: [] })).statusCode, 201);
    assert.equal((await c.get('/lists')).statusCode, 200);
    t.clock.advance(5 * SECOND);
    assert.equal((await c.post('/lists', { name: 'after the wait', keyword_ids: [] })).statusCode, 201);
    // A write larger than the whole budget goes once the bucket is full.
    t.clock.advance(60 * SECOND);
    const big = Array.from({ length: 10_000 }, (_, i) => `id-${i}`);
    assert.equal((await c.post('/lists', { name: 'big', keyword_ids: big })).statusCode, 201);
    // 11 of the 12 units went: one small write still fits, the next does not.
    assert.equal((await c.post('/lists', { name: 'right after', keyword_ids: [] })).statusCode, 201);
    assert.equal((await c.post('/lists', { name: 'one too many', keyword_ids: [] })).statusCode, 429);
  });

  test('rank-tool writes spend the same budget: trackings, tracked keywords, tags, annotations, reports; reads do not', async () => {
    const r = await rankClient(t);
    const created = await r.post('/trackings', trackingBody({ keywords: ['hiking boots'] }));
    assert.equal(created.statusCode, 201, created.body);
    const trackingId = created.json().tracking._id;
    const keywordId = created.json().keywords[0].keyword_id;
    const tag = await r.post(`/trackings/${trackingId}/tags`, { name: 'mine', color: '#123456' });
    assert.equal(tag.statusCode, 201, tag.body);
    // 2 units for the tracking (1 keyword) and 1 for the tag: 9 of 12 left; spend them.
    await t.ctx.fairUse.writes.spend(r.id, 9);
    const base = `/trackings/${trackingId}`;
    const writes: [string, () => Promise<Res>][] = [
      ['create tracking', () => r.post('/trackings', trackingBody({ domain: 'example.org' }))],
      [
        'multiple trackings',
        () => r.post('/multiple-trackings', { domain: 'example.net', location_ids: [2840], platform_ids: [1], keywords: [{ keyword: 'tent' }] }),
      ],
      ['update tracking', () => r.patch(base, { domain: 'example.com' })],
      ['delete tracking', () => r.del(base)],
      ['add keywords', () => r.post(`${base}/tracked-keywords`, { keywords: [{ keyword: 'tent' }] })],
      ['remove keywords', () => r.del(`${base}/tracked-keywords`, { tracked_keyword_ids: [keywordId] })],
      ['create tag', () => r.post(`${base}/tags`, { name: 'two', color: '#000000' })],
      ['change tag', () => r.put(`${base}/tags/${tag.json()._id}`, { name: 'three', color: '#000000' })],
      ['delete tag', () => r.del(`${base}/tags/${tag.json()._id}`)],
      ['assign tags', () => r.post(`${base}/tags/assign`, { keyword_ids: [keywordId], tag_ids: [tag.json()._id] })],
      ['unassign tags', () => r.post(`${base}/tags/unassign`, { keyword_ids: [keywordId], tag_ids: [tag.json()._id] })],
      ['add annotation', () => r.post(`${base}/annotations`, { date: '2026-11-20', text: 'note' })],
      ['change annotation', () => r.put(`${base}/annotations/ffffffffffffffffffffffff`, { text: 'note' })],
      ['delete annotation', () => r.del(`${base}/annotations/ffffffffffffffffffffffff`)],
      ['add report', () => r.post(`${base}/reports`, { type: 1, emails: ['a@example.test'] })],
      ['change report', () => r.put(`${base}/reports/ffffffffffffffffffffffff`, { type: 1, emails: ['a@example.test'] })],
      ['delete report', () => r.del(`${base}/reports/ffffffffffffffffffffffff`)],
    ];
    for (const [name, send] of writes) {
      const res = await send();
      assert.equal(res.statusCode, 429, `${name}: ${res.body}`);
      assert.equal(res.json().error.type, 'RateLimit', name);
    }
    // Reads and stats are not writes; another account has its own budget.
    assert.equal((await r.get(`${base}/tracked-keywords`)).statusCode, 200);
    assert.equal((await r.post(`${base}/stats`, {})).statusCode, 200);
    const other = await rankClient(t);
    assert.equal((await other.post('/trackings', trackingBody())).statusCode, 201);
    // Nothing was written by the refused calls.
    assert.equal((await r.get(`${base}/tags`)).json().length, 1);
    assert.equal((await r.get('/trackings')).json().length, 1);
    // A refilled bucket admits them again.
    t.clock.advance(60 * SECOND);
    assert.equal((await r.post(`${base}/annotations`, { date: '2026-11-20', text: 'note' })).statusCode, 201);
  });

  test('the budget refills continuously and never beyond its size', () => {
    let now = 0;
    const budget = new FreeWriteBudget(60, { now: () => now });
    for (let i = 0; i < 60; i++) budget.spendNow('a', 1);
    assert.throws(() => budget.spendNow('a', 1), /Too many free writes/);
    now += 10 * SECOND;
    for (let i = 0; i < 10; i++) budget.spendNow('a', 1);
    assert.throws(() => budget.spendNow('a', 1));
    now += 3_600 * SECOND;
    for (let i = 0; i < 60; i++) budget.spendNow('a', 1);
    assert.throws(() => budget.spendNow('a', 1));
  });

  test('at most two bulk reads per account at once; a third answers 429 RateLimit, others are not held back', async () => {
    const c = await newClient(t);
    const other = await newClient(t);
    const slots = t.ctx.fairUse.bulk;
    const held = [await slots.take(c.id), await slots.take(c.id)];
    for (const path of ['/lists', '/lists/nope']) {
      const res = await c.get(path);
      assert.equal(res.statusCode, 429, path);
      assert.equal(res.json().error.type, 'RateLimit');
    }
    assert.equal((await c.post('/keywords', { keyword_ids: ['x'] })).statusCode, 429);
    assert.equal((await other.get('/lists')).statusCode, 200);
    held.forEach((release) => release());
    assert.equal((await c.get('/lists')).statusCode, 200);
    // Slots come back after every answer: many reads in a row never run out.
    for (let i = 0; i < 5; i++) assert.equal((await c.get('/lists')).statusCode, 200);
    const bulk = new BulkSlots(1);
    const release = bulk.takeNow('a');
    assert.throws(() => bulk.takeNow('a'));
    release();
    release();
    bulk.takeNow('a');
  });

  test('all lists stream as one JSON array, oldest first, with every keyword id', async () => {
    const c = await newClient(t);
    const lists = new KeywordLists(t.ctx.state.db);
    const now = unixSeconds(t.clock.now());
    const made = [];
    for (let i = 0; i < 25; i++) made.push(await lists.create(c.id, `list ${i}`, [`a${i}`, `b${i}`], now));
    const res = await c.get('/lists');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    // As stored, with the reference's `__v` (always 0: no revision counter is kept).
    const answered = (lists: object[]) => lists.map((l) => ({ ...l, __v: 0 }));
    assert.deepEqual(res.json(), answered(made));
    assert.deepEqual(res.json(), answered(await lists.all(c.id)));
  });

  test('all lists: each list’s ids are read and written a page at a time, and the answer is byte for byte the whole document', async () => {
    const c = await newClient(t);
    const lists = new KeywordLists(t.ctx.state.db);
    const now = unixSeconds(t.clock.now());
    const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}-${i}`);
    const big = await lists.create(c.id, 'big "keyword_ids":[] ünïcode', ids(4_500, 'big'), now);
    await lists.create(c.id, 'empty', [], now);
    await lists.create(c.id, 'exactly one page', ids(2_000, 'page'), now);
    // Pages of 2,000 ids by default: 4,500 ids are three reads.
    const pages: string[][] = [];
    for await (const page of lists.keywordIdPages(big._id)) pages.push(page);
    assert.deepEqual(
      pages.map((p) => p.length),
      [2_000, 2_000, 500],
    );
    assert.deepEqual(pages.flat(), big.keyword_ids);
    const res = await c.get('/lists');
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, JSON.stringify((await lists.all(c.id)).map((l) => ({ ...l, __v: 0 }))));
  });

  test('a list’s detail and a keyword export, written a slice at a time, are byte for byte the whole document', async () => {
    const c = await newClient(t);
    // Issued ids (lists keep only those): the items of the catalog's first keywords.
    const catalog = t.ctx.search.catalog;
    const idList = [...new Set(Array.from({ length: 3 * STREAM_BATCH }, (_, i) => t.ctx.search.keywordItem(catalog.at(i).kw, 2840, 0)._id))];
    assert.ok(idList.length > 2 * STREAM_BATCH, `${idList.length} keywords: several slices`);
    const lists = new KeywordLists(t.ctx.state.db);
    const list = await lists.create(c.id, 'sliced', idList, unixSeconds(t.clock.now()));
    const keywords = t.ctx.search.keywordsById(idList).map((k) => presentKeyword(k, t.ctx.locations));
    const { keyword_ids: _ids, ...meta } = list;
    const detail = await c.get(`/lists/${list._id}`);
    assert.equal(detail.statusCode, 200);
    assert.equal(detail.body, JSON.stringify({ keywords, list: meta }));
    const exported = await c.post('/keywords', { keyword_ids: idList });
    assert.equal(exported.statusCode, 200);
    assert.equal(exported.body, JSON.stringify(keywords));
  });

  test('an account keeps at most its storage quota of keyword ids across its lists: 422 past it, room again after a delete', async () => {
    const { id } = await t.account();
    const lists = new KeywordLists(t.ctx.state.db, 25);
    const now = unixSeconds(t.clock.now());
    const ids = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    const first = await lists.create(id, 'a', ids(20, 'a'), now);
    await assert.rejects(
      lists.create(id, 'b', ids(6, 'b'), now),
      (err: unknown) => err instanceof ListLimitError && /at most 25 keyword ids/.test(err.message),
    );
    await assert.rejects(lists.addKeywords(id, first._id, ids(6, 'c'), now), ListLimitError);
    await lists.create(id, 'b', ids(5, 'b'), now);
    await lists.delete(id, first._id);
    await lists.create(id, 'c', ids(20, 'c'), now);
  });

  test('at most three live backlink exports per account: a fourth is refused before any charge', async () => {
    const { key, id } = await t.account('premium');
    const headers = { 'x-access-token': key };
    const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url: `/v3/link-tool${url}`, headers, payload });
    assert.equal((await post('/exports/suggest', { url: 'learnhub.com' })).statusCode, 200);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(11 * SECOND);
      assert.equal((await post('/exports', { url: 'learnhub.com', limit: 10 + i })).statusCode, 200);
    }
    const pool = async () => (await t.ctx.policy.store.poolState(id, 'links', 'monthly', 500_000, t.clock.now())).remaining;
    const before = await pool();
    t.clock.advance(11 * SECOND);
    const refused = await post('/exports', { url: 'learnhub.com', limit: 20 });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.type, 'RateLimit');
    assert.equal(await pool(), before, 'not charged');
  });

  test('an export’s place counts from before its charge until its job is stored and finished; a request that stores none gives it back', async () => {
    const live = new Set<string>();
    const finished = new Set<string>();
    const places = new ExportPlaces(3, { liveIds: async () => [...live], settledIds: async (ids) => ids.filter((id) => finished.has(id)) });
    // Three requests in flight, none stored yet: a fourth is refused (the old count of stored jobs saw 0).
    const release = [await places.take('a', 'j1'), await places.take('a', 'j2'), await places.take('a', 'j3')];
    await assert.rejects(places.take('a', 'j4'), (err: { type?: string }) => err.type === 'RateLimit');
    await places.take('b', 'other account');
    // j1 is stored (live): counted once, not twice; j2's request failed and gave its place back.
    live.add('j1');
    release[1]();
    await places.take('a', 'j4');
    await assert.rejects(places.take('a', 'j5'));
    // j1 finishes: its place goes with it.
    live.delete('j1');
    finished.add('j1');
    await places.take('a', 'j5');
  });

  test('workers take the jobs of the least busy account first', async () => {
    const queue = openJobQueue(t.ctx.state, t.clock);
    for (let i = 0; i < 4; i++) await queue.enqueue('fair-kind', 'busy', { i });
    assert.equal((await queue.claim('w1', ['fair-kind']))!.accountId, 'busy');
    t.clock.advance(1);
    await queue.enqueue('fair-kind', 'quiet', { i: 0 });
    assert.equal((await queue.claim('w2', ['fair-kind']))!.accountId, 'quiet', 'before the busy account’s older jobs');
    assert.equal((await queue.claim('w3', ['fair-kind']))!.accountId, 'busy');
  });
});
