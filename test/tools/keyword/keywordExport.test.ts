/**
 * POST /keyword-tool/keywords and /keywords.csv (rule 7): keyword data for issued ids,
 * unknown ids dropped silently, at most 10,000 ids; `fields` picks the CSV columns; the
 * CSV is a real text/csv attachment that parses back into the JSON's values.
 * (10,000 real ids: bulkLimits.test.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { testApp, type TestApp } from '../../support/app.js';
import { newClient, q, type KeywordClient } from './helpers.js';

let t: TestApp;
let c: KeywordClient;
/** Ids from a related-keywords lookup (2840) and an import (Germany, German). */
let ids: string[];

const KNOWN_FIELDS = ['kw', 'sv', 'lid', 'cpc', 'ppc', 'seo', 'msv'];

/** A JSON keyword's value as the CSV writes it. */
function csvValue(k: Record<string, unknown>, field: string): string {
  if (field === 'msv') return JSON.stringify(k.msv);
  // An unknown figure (seo; sv, cpc, ppc of a keyword nobody has data on) is an empty cell.
  if (k[field] === null) return '';
  return String(k[field]);
}

describe('keyword export', () => {
  before(async () => {
    t = await testApp();
    c = await newClient(t);
    const rel = (await c.get(`/related-keywords?${q({ kw: 'coffee beans', location_id: 2840 })}`)).json();
    const imp = (
      await c.post('/keyword-imports', { keywords: ['wanderschuhe', 'zelt test', 'ganz neues stichwort'], location_id: 2276, language_id: 1001 })
    ).json();
    ids = [...rel.keywords.slice(0, 20), ...imp.keywords].map((k: { _id: string }) => k._id);
  });
  after(async () => t.close());

  test('JSON: keyword objects with language and short location, in the order asked; free', async () => {
    const res = await c.post('/keywords', { keyword_ids: ids });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(
      body.map((k: { _id: string }) => k._id),
      ids,
    );
    const us = body[0];
    assert.equal(us.kw, 'coffee beans');
    assert.deepEqual(us.location, { _id: 2840, label: 'United States', code: 'us' });
    assert.equal(typeof us.language, 'object');
    const de = body.at(-1);
    assert.equal(de.kw, 'ganz neues stichwort');
    assert.deepEqual(de.location, { _id: 2276, label: 'Germany', code: 'de' });
    assert.equal(de.language._id, 1001);
    for (const k of body) {
      for (const f of ['_id', 'kw', 'lid', 'sv', 'cpc', 'ppc', 'seo', 'msv']) assert.ok(f in k, `${f} of ${k.kw}`);
    }
    assert.equal((await c.pool()).remaining, 498, 'the export itself is free');
  });

  test('unknown and malformed ids are dropped silently', async () => {
    const res = await c.post('/keywords', {
      keyword_ids: ['0'.repeat(32), ids[0], 'nope', '', ids[1], 'f'.repeat(64), 'f'.repeat(65), `${ids[2]}0`, 'x'.repeat(5000)],
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().map((k: { _id: string }) => k._id),
      [ids[0], ids[1]],
    );
    // Past 64 characters too, and in the CSV.
    const csv = await c.post('/keywords.csv', { keyword_ids: ['x'.repeat(65), ids[0]], fields: 'kw' });
    assert.equal(csv.statusCode, 200);
    assert.equal(parse(csv.body).length, 2);
    assert.deepEqual((await c.post('/keywords', { keyword_ids: [] })).json(), []);
    // Ids are not secrets of an account: any account may export an issued id.
    const other = await newClient(t);
    assert.equal((await other.post('/keywords', { keyword_ids: [ids[0]] })).json()[0]._id, ids[0]);
  });

  test('CSV: a text/csv attachment that parses back into the JSON values, every column by default', async () => {
    const json = (await c.post('/keywords', { keyword_ids: ids })).json();
    const res = await c.post('/keywords.csv', { keyword_ids: ids });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="[^"]+\.csv"$/);
    const rows: string[][] = parse(res.body);
    assert.deepEqual(rows[0], KNOWN_FIELDS);
    assert.equal(rows.length, ids.length + 1);
    rows.slice(1).forEach((row, i) => {
      assert.deepEqual(
        row,
        KNOWN_FIELDS.map((f) => csvValue(json[i], f)),
        `row ${i}`,
      );
    });
    // msv survives the round trip as its JSON.
    assert.deepEqual(JSON.parse(rows[1][6]), json[0].msv);
  });

  test('CSV fields: the columns asked, in that order; repeats once; unknown → 422', async () => {
    const json = (await c.post('/keywords', { keyword_ids: ids })).json();
    const res = await c.post('/keywords.csv', { keyword_ids: ids, fields: 'sv, kw,msv,sv' });
    const rows: string[][] = parse(res.body);
    assert.deepEqual(rows[0], ['sv', 'kw', 'msv']);
    rows.slice(1).forEach((row, i) =>
      assert.deepEqual(
        row,
        ['sv', 'kw', 'msv'].map((f) => csvValue(json[i], f)),
      ),
    );
    const bad = await c.post('/keywords.csv', { keyword_ids: ids, fields: 'kw,password' });
    assert.equal(bad.statusCode, 422);
    assert.equal(typeof bad.json().error.message, 'string');
    // `fields` applies to CSV only: JSON ignores it.
    const ignored = await c.post('/keywords', { keyword_ids: ids.slice(0, 1), fields: 'kw' });
    assert.ok('msv' in ignored.json()[0]);
  });

  test('CSV with quotes, commas and accents in keyword text round-trips', async () => {
    const d = await newClient(t);
    const texts = ['tent, 2 person', 'the "best" hammock', 'sleeping bag\u00e9 caf\u00e9'];
    const imp = (await d.post('/keyword-imports', { keywords: texts, location_id: 2840, language_id: 1000 })).json();
    const kid = imp.keywords.map((k: { _id: string }) => k._id);
    const rows: string[][] = parse((await d.post('/keywords.csv', { keyword_ids: kid, fields: 'kw' })).body);
    assert.deepEqual(
      rows.slice(1).map((r) => r[0]),
      imp.keywords.map((k: { kw: string }) => k.kw),
    );
  });

  test('10,000 ids are accepted, 10,001 → 422 (JSON and CSV)', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => i.toString(16).padStart(32, '0'));
    many[9_999] = ids[0];
    for (const path of ['/keywords', '/keywords.csv']) {
      const ok = await c.post(path, { keyword_ids: many });
      assert.equal(ok.statusCode, 200, path);
      const over = await c.post(path, { keyword_ids: [...many, ids[1]] });
      assert.equal(over.statusCode, 422, path);
      assert.equal(typeof over.json().error.type, 'string');
    }
    assert.deepEqual(
      (await c.post('/keywords', { keyword_ids: many })).json().map((k: { _id: string }) => k._id),
      [ids[0]],
    );
  });

  test('a missing or malformed body → 422; no key → 401', async () => {
    for (const payload of [{}, { keyword_ids: 'abc' }, { keyword_ids: [1, 2] }, { keyword_ids: [{}] }]) {
      for (const path of ['/keywords', '/keywords.csv']) {
        const res = await c.post(path, payload);
        assert.equal(res.statusCode, 422, `${path} ${JSON.stringify(payload).slice(0, 40)}`);
        assert.equal(res.json().error.type, 'ValidationError');
      }
    }
    const anonymous = await t.app.inject({ method: 'POST', url: '/v3/keyword-tool/keywords', payload: { keyword_ids: ids } });
    assert.equal(anonymous.statusCode, 401);
    assert.deepEqual(anonymous.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });
  });
});
