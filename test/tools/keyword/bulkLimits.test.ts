/**
 * The 10,000 limits of the keyword tool with real keyword ids: export (10,000 OK, 10,001 →
 * 422), keywords per list (10,000 OK, 10,001 → 422 OutOfLimitException) and lists per
 * account (10,000 OK, the 10,001st → 422).
 *
 * 10,000 real ids come from one related-keywords lookup on a custom plan (rows up to
 * 10,000) over the tiny world grown by a Keyword Planner import (plannerKeywords.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { testApp, type TestApp } from '../../support/app.js';
import { unixSeconds } from '../../../src/lib/clock.js';
import { KeywordLists } from '../../../src/store/keywordLists.js';
import { newClient, pace, q, type KeywordClient, type Res } from './helpers.js';
import { importPlannerKeywords } from './plannerKeywords.js';

let t: TestApp;
let c: KeywordClient & { id: string };
/** 10,000 distinct real keyword ids, and one more. */
let ids: string[];
let extra: string;

describe('10,000 limits with real keyword ids', () => {
  before(async () => {
    t = await testApp();
    await importPlannerKeywords(t.ctx, 10_500);
    c = await newClient(t, 'custom');
    const rel = (await c.get(`/related-keywords?${q({ kw: 'widget gadget', location_id: 2840 })}`)).json();
    ids = rel.keywords.map((k: { _id: string }) => k._id);
    pace(t);
    const other = (await c.get(`/related-keywords?${q({ kw: 'gizmo', location_id: 2840 })}`)).json();
    extra = other.keywords[0]._id;
  });
  after(async () => t.close());

  test('the ids are 10,000 distinct real ids', () => {
    assert.equal(ids.length, 10_000);
    assert.equal(new Set(ids).size, 10_000);
    assert.ok(!ids.includes(extra));
  });

  test('export of 10,000 ids: JSON and a CSV with the same values; 10,001 → 422', async () => {
    const json = await c.post('/keywords', { keyword_ids: ids });
    assert.equal(json.statusCode, 200);
    const keywords = json.json();
    assert.deepEqual(
      keywords.map((k: { _id: string }) => k._id),
      ids,
    );
    const csv = await c.post('/keywords.csv', { keyword_ids: ids, fields: 'kw,sv,lid,cpc,ppc,seo,msv' });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const rows: string[][] = parse(csv.body);
    assert.equal(rows.length, 10_001);
    rows.slice(1).forEach((row, i) => {
      const k = keywords[i];
      assert.deepEqual(row, [k.kw, String(k.sv), String(k.lid), String(k.cpc), String(k.ppc), k.seo === null ? '' : String(k.seo), JSON.stringify(k.msv)]);
    });
    for (const path of ['/keywords', '/keywords.csv']) {
      const over = await c.post(path, { keyword_ids: [...ids, extra] });
      assert.equal(over.statusCode, 422, path);
    }
  });

  test('10,000-keyword answers stream (list detail, its CSV, the export and its CSV): no length up front, the event loop turns while they are built, the same documents', async () => {
    const list = (await c.post('/lists', { name: 'streamed', keyword_ids: ids })).json();
    const exported = (await c.post('/keywords', { keyword_ids: ids })).json();
    const requests: [string, () => Promise<Res>][] = [
      ['detail', () => c.get(`/lists/${list._id}`)],
      ['detail csv', () => c.get(`/lists/${list._id}.csv?fields=kw,sv`)],
      ['export', () => c.post('/keywords', { keyword_ids: ids })],
      ['export csv', () => c.post('/keywords.csv', { keyword_ids: ids, fields: 'kw,sv' })],
    ];
    for (const [name, send] of requests) {
      // Counts turns of the event loop while the answer is built: one answer built in a
      // single turn (as before) leaves other requests waiting for all of it.
      let turns = 0;
      let ticking = true;
      const tick = () => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const res = await send();
      ticking = false;
      assert.equal(res.statusCode, 200, name);
      assert.equal(res.headers['content-length'], undefined, `${name}: streamed, no length up front`);
      assert.ok(turns >= 30, `${name}: ${turns} turns of the event loop while it was built`);
      if (name === 'detail') {
        const body = res.json();
        assert.deepEqual(body.keywords, exported);
        const { keyword_ids: _ids, __v: _v, ...meta } = list;
        assert.deepEqual(body.list, meta);
      } else if (name === 'export') assert.deepEqual(res.json(), exported);
      else {
        const rows: string[][] = parse(res.body);
        assert.deepEqual(rows[0], ['kw', 'sv']);
        assert.deepEqual(
          rows.slice(1),
          exported.map((k: { kw: string; sv: number }) => [k.kw, String(k.sv)]),
        );
      }
    }
    assert.equal((await c.del(`/lists/${list._id}`)).statusCode, 204);
  });

  test('a list holds 10,000 keywords; the 10,001st → 422 OutOfLimitException, on create and on add', async () => {
    const created = await c.post('/lists', { name: 'full', keyword_ids: ids });
    assert.equal(created.statusCode, 201);
    const list = created.json();
    assert.equal(list.keyword_ids.length, 10_000);
    const detail = await c.get(`/lists/${list._id}`);
    assert.equal(detail.json().keywords.length, 10_000);
    // Adding one already there is silent.
    assert.equal((await c.post(`/lists/${list._id}/keywords`, { keyword_ids: [ids[5]] })).statusCode, 204);
    const over = await c.post(`/lists/${list._id}/keywords`, { keyword_ids: [extra] });
    assert.equal(over.statusCode, 422);
    assert.equal(over.json().error.type, 'OutOfLimitException');
    assert.equal(typeof over.json().error.message, 'string');
    assert.equal((await c.get(`/lists/${list._id}`)).json().keywords.length, 10_000, 'nothing was added');
    const tooBig = await c.post('/lists', { name: 'too big', keyword_ids: [...ids, extra] });
    assert.equal(tooBig.statusCode, 422);
    assert.equal(tooBig.json().error.type, 'OutOfLimitException');
    // After removing one, one fits again.
    assert.equal((await c.del(`/lists/${list._id}/keywords`, { keyword_ids: [ids[0]] })).statusCode, 204);
    assert.equal((await c.post(`/lists/${list._id}/keywords`, { keyword_ids: [extra] })).statusCode, 204);
    const csv: string[][] = parse((await c.get(`/lists/${list._id}.csv?fields=kw`)).body);
    assert.equal(csv.length, 10_001);
  });

  test('the list limit counts distinct ids as sent, known or not, alike on create and on add; no item cap below it', async () => {
    const unknown = Array.from({ length: 10_000 }, (_, i) => `unknown-${i}`);
    const outOfLimit = (res: { statusCode: number; json(): { error: { type: string } } }, what: string) => {
      assert.equal(res.statusCode, 422, what);
      assert.equal(res.json().error.type, 'OutOfLimitException', what);
    };
    // 20,001 ids (past the old schema cap of 20,000) answer the list limit, not a validation error.
    const many = [...ids, extra, ...unknown];
    assert.equal(many.length, 20_001);
    outOfLimit(await c.post('/lists', { name: 'many', keyword_ids: many }), 'create with 20,001 ids');
    const empty = (await c.post('/lists', { name: 'empty', keyword_ids: [] })).json();
    outOfLimit(await c.post(`/lists/${empty._id}/keywords`, { keyword_ids: many }), 'add 20,001 ids');
    // 10,001 distinct ids, one of them unknown: too many, on create and on add alike.
    const oneUnknownTooMany = [...ids, 'unknown-x'];
    outOfLimit(await c.post('/lists', { name: 'one too many', keyword_ids: oneUnknownTooMany }), 'create with 10,001 distinct ids');
    outOfLimit(await c.post(`/lists/${empty._id}/keywords`, { keyword_ids: oneUnknownTooMany }), 'add 10,001 distinct ids');
    assert.deepEqual((await c.get(`/lists/${empty._id}`)).json().keywords, [], 'nothing was added');
    // 10,000 distinct ids fit; the unknown one is dropped silently.
    const fits = [...ids.slice(0, 9_999), 'unknown-x'];
    const created = await c.post('/lists', { name: 'fits', keyword_ids: fits });
    assert.equal(created.statusCode, 201);
    assert.deepEqual(created.json().keyword_ids, ids.slice(0, 9_999));
    assert.equal((await c.post(`/lists/${empty._id}/keywords`, { keyword_ids: fits })).statusCode, 204);
    assert.equal((await c.get(`/lists/${empty._id}`)).json().keywords.length, 9_999);
    // 20,001 entries naming 10,000 distinct ids fit too: repeats count once.
    const repeated = [...ids, ...ids, ids[0]];
    assert.equal(repeated.length, 20_001);
    const dup = await c.post('/lists', { name: 'repeats', keyword_ids: repeated });
    assert.equal(dup.statusCode, 201);
    assert.equal(dup.json().keyword_ids.length, 10_000);
  });

  test('an account holds 10,000 lists; the 10,001st → 422', async () => {
    const owner = await newClient(t);
    const lists = new KeywordLists(t.ctx.state.db);
    const now = unixSeconds(t.clock.now());
    for (let i = 0; i < 9_999; i++) await lists.create(owner.id, `list ${i}`, [], now);
    const last = await owner.post('/lists', { name: 'the 10,000th', keyword_ids: [ids[0]] });
    assert.equal(last.statusCode, 201);
    const refused = await owner.post('/lists', { name: 'one too many', keyword_ids: [] });
    assert.equal(refused.statusCode, 422);
    assert.equal(typeof refused.json().error.type, 'string');
    assert.notEqual(refused.json().error.type, 'OutOfLimitException');
    assert.equal(typeof refused.json().error.message, 'string');
    const all = (await owner.get('/lists')).json();
    assert.equal(all.length, 10_000);
    assert.equal(all.at(-1).name, 'the 10,000th');
    // The limit is per account; and deleting one makes room.
    const other = await newClient(t);
    assert.equal((await other.post('/lists', { name: 'mine', keyword_ids: [] })).statusCode, 201);
    assert.equal((await owner.del(`/lists/${all[0]._id}`)).statusCode, 204);
    assert.equal((await owner.post('/lists', { name: 'room again', keyword_ids: [] })).statusCode, 201);
  });
});
