/**
 * Saved keyword lists (rule 12): create 201, list all, detail as JSON or CSV, rename 204,
 * delete 204 (keyword data intact), add (existing ones silent) and remove (absent ones
 * silent) 204; 404 for an unknown list. Limits of 10,000: bulkLimits.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { testApp, type TestApp } from '../../support/app.js';
import { MINUTE, unixSeconds } from '../../../src/lib/clock.js';
import { newClient, q, type KeywordClient } from './helpers.js';

let t: TestApp;
let ids: string[];
const FIELDS = ['kw', 'sv', 'lid', 'cpc', 'ppc', 'seo', 'msv'];

function csvValue(k: Record<string, unknown>, field: string): string {
  if (field === 'msv') return JSON.stringify(k.msv);
  if (field === 'seo' && k.seo === null) return '';
  return String(k[field]);
}

async function createList(c: KeywordClient, name: string, keywordIds: string[]) {
  const res = await c.post('/lists', { name, keyword_ids: keywordIds });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describe('keyword lists', () => {
  before(async () => {
    t = await testApp();
    const c = await newClient(t);
    const rel = (await c.get(`/related-keywords?${q({ kw: 'coffee beans', location_id: 2840 })}`)).json();
    ids = rel.keywords.slice(0, 12).map((k: { _id: string }) => k._id);
  });
  after(async () => t.close());

  test('create → 201 with the stored list; list-all shows it with its keyword ids', async () => {
    const c = await newClient(t);
    const now = unixSeconds(t.clock.now());
    const res = await c.post('/lists', { name: '  Coffee  ', keyword_ids: ids.slice(0, 3) });
    assert.equal(res.statusCode, 201);
    const list = res.json();
    assert.deepEqual(Object.keys(list).sort(), ['__v', '_id', 'created_at', 'creator', 'keyword_ids', 'name', 'updated_at', 'user_id']);
    assert.equal(list.__v, 0, 'no revision counter is kept');
    assert.match(list._id, /^[0-9a-f]{24}$/);
    assert.equal(list.name, 'Coffee');
    assert.deepEqual(list.keyword_ids, ids.slice(0, 3));
    assert.equal(list.user_id, c.id);
    assert.equal(list.creator, c.id);
    assert.equal(list.created_at, now);
    assert.equal(list.updated_at, now);
    const empty = await createList(c, 'empty', []);
    assert.deepEqual(empty.keyword_ids, []);
    // Created in the same second: listed in the order of creation.
    const more = [];
    for (const name of ['c', 'd', 'e', 'f']) more.push(await createList(c, name, ids.slice(0, 1)));
    const all = await c.get('/lists');
    assert.equal(all.statusCode, 200);
    assert.deepEqual(all.json(), [list, empty, ...more]);
  });

  test('detail JSON: {keywords, list}, keywords with a short location', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'detail', ids.slice(0, 5));
    const res = await c.get(`/lists/${list._id}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['keywords', 'list']);
    const { keyword_ids: _ids, __v: _v, ...meta } = list;
    assert.deepEqual(body.list, meta);
    assert.deepEqual(
      body.keywords.map((k: { _id: string }) => k._id),
      ids.slice(0, 5),
    );
    for (const k of body.keywords) assert.deepEqual(k.location, { _id: 2840, label: 'United States', code: 'us' });
    // The same data as the export.
    const exported = (await c.post('/keywords', { keyword_ids: ids.slice(0, 5) })).json();
    assert.deepEqual(body.keywords, exported);
  });

  test('detail CSV: .csv suffix, ?ext=csv and Accept: text/csv; fields picks columns', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'Coffee list', ids.slice(0, 6));
    const json = (await c.get(`/lists/${list._id}`)).json().keywords;
    const variants = [
      await c.get(`/lists/${list._id}.csv`),
      await c.get(`/lists/${list._id}?ext=csv`),
      await c.get(`/lists/${list._id}`, { accept: 'text/csv' }),
      await c.get(`/lists/${list._id}`, { accept: 'application/json;q=0.5, text/csv' }),
    ];
    for (const res of variants) {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="Coffee-list\.csv"$/);
      const rows: string[][] = parse(res.body);
      assert.deepEqual(rows[0], FIELDS);
      assert.deepEqual(
        rows.slice(1),
        json.map((k: Record<string, unknown>) => FIELDS.map((f) => csvValue(k, f))),
      );
    }
    const picked = await c.get(`/lists/${list._id}.csv?fields=kw,seo`);
    const rows: string[][] = parse(picked.body);
    assert.deepEqual(rows[0], ['kw', 'seo']);
    assert.deepEqual(
      rows.slice(1),
      json.map((k: Record<string, unknown>) => [csvValue(k, 'kw'), csvValue(k, 'seo')]),
    );
    const bad = await c.get(`/lists/${list._id}.csv?fields=kw,secret`);
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json(), { error: { type: 'InvalidInput', message: 'Parameter fields is invalid' } });
    // JSON stays JSON without any of the three signals.
    assert.match(String((await c.get(`/lists/${list._id}?fields=kw`)).headers['content-type']), /^application\/json/);
  });

  test('rename → 204, the new name and updated_at show', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'old', ids.slice(0, 1));
    t.clock.advance(5 * MINUTE);
    const res = await c.patch(`/lists/${list._id}`, { name: 'new name' });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const detail = (await c.get(`/lists/${list._id}`)).json();
    assert.equal(detail.list.name, 'new name');
    assert.equal(detail.list.updated_at, list.updated_at + 300);
    assert.equal(detail.list.created_at, list.created_at);
    for (const name of ['', '   ', 'n'.repeat(201)]) {
      assert.equal((await c.patch(`/lists/${list._id}`, { name })).statusCode, 422, JSON.stringify(name));
    }
    assert.equal((await c.patch(`/lists/${list._id}`, {})).statusCode, 422);
  });

  test('delete → 204; the list is gone, its keyword data intact', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'doomed', ids.slice(0, 4));
    const keep = await createList(c, 'kept', ids.slice(0, 2));
    const res = await c.del(`/lists/${list._id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await c.get(`/lists/${list._id}`)).statusCode, 404);
    assert.deepEqual(
      (await c.get('/lists')).json().map((l: { _id: string }) => l._id),
      [keep._id],
    );
    const exported = (await c.post('/keywords', { keyword_ids: ids.slice(0, 4) })).json();
    assert.deepEqual(
      exported.map((k: { _id: string }) => k._id),
      ids.slice(0, 4),
    );
    assert.deepEqual(
      (await c.get(`/lists/${keep._id}`)).json().keywords.map((k: { _id: string }) => k._id),
      ids.slice(0, 2),
    );
    assert.equal((await c.del(`/lists/${list._id}`)).statusCode, 404, 'deleting twice');
  });

  test('add: 204, an existing keyword is silent and not duplicated; remove: 204, absent ones silent', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'edit', ids.slice(0, 3));
    const add = await c.post(`/lists/${list._id}/keywords`, { keyword_ids: [ids[1], ids[3], ids[3], ids[4]] });
    assert.equal(add.statusCode, 204);
    assert.equal(add.body, '');
    let detail = (await c.get(`/lists/${list._id}`)).json();
    assert.deepEqual(
      detail.keywords.map((k: { _id: string }) => k._id),
      ids.slice(0, 5),
    );
    const remove = await c.del(`/lists/${list._id}/keywords`, { keyword_ids: [ids[0], ids[9], 'never-a-keyword'] });
    assert.equal(remove.statusCode, 204);
    assert.equal(remove.body, '');
    detail = (await c.get(`/lists/${list._id}`)).json();
    assert.deepEqual(
      detail.keywords.map((k: { _id: string }) => k._id),
      ids.slice(1, 5),
    );
    // The list-all record follows.
    assert.deepEqual((await c.get('/lists')).json()[0].keyword_ids, ids.slice(1, 5));
    // Remove with no ids or no body is a no-op 204; add needs at least one id.
    assert.equal((await c.del(`/lists/${list._id}/keywords`, { keyword_ids: [] })).statusCode, 204);
    assert.equal((await c.del(`/lists/${list._id}/keywords`)).statusCode, 204);
    assert.equal((await c.post(`/lists/${list._id}/keywords`, { keyword_ids: [] })).statusCode, 422);
    assert.equal((await c.post(`/lists/${list._id}/keywords`, {})).statusCode, 422);
  });

  test('an unknown list → 404 on detail, rename, delete, add and remove', async () => {
    const c = await newClient(t);
    for (const id of ['0123456789abcdef01234567', 'nope', '__proto__']) {
      const answers = [
        await c.get(`/lists/${id}`),
        await c.get(`/lists/${id}.csv`),
        await c.patch(`/lists/${id}`, { name: 'x' }),
        await c.del(`/lists/${id}`),
        await c.post(`/lists/${id}/keywords`, { keyword_ids: [ids[0]] }),
        await c.del(`/lists/${id}/keywords`, { keyword_ids: [ids[0]] }),
      ];
      for (const res of answers) {
        assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
        assert.equal(res.json().error.type, 'Error');
        assert.equal(typeof res.json().error.message, 'string');
      }
    }
  });

  test('lists are free', async () => {
    const c = await newClient(t);
    const list = await createList(c, 'free', ids);
    for (let i = 0; i < 5; i++) await c.get(`/lists/${list._id}`);
    const limits = (await c.get('/limits')).json();
    for (const [pool, state] of Object.entries<{ limit: number; remaining: number }>(limits.resources)) {
      assert.equal(state.remaining, state.limit, pool);
    }
  });
});
