/**
 * Page details of backlink lists: looked up by batch or read all at once, the same
 * details as the pages and metrics tables hold; the reader never holds more pages than
 * its limit and still answers every page of the batch it was just asked for.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { languageCode, PageDetailsReader, type PageDetails } from '../../../src/engine/links/pageDetails.js';
import { tinyWorldFile } from '../../support/world.js';

let raw: Database.Database;
let pageCount: number;

/** What the tables say of a page, read one at a time (the reference). */
function expected(id: number): PageDetails | undefined {
  const row = raw
    .prepare(
      `SELECT p.url, p.title, p.language_id, m.citation_flow, m.trust_flow, m.out_internal, m.out_external
    FROM pages p JOIN entity_metrics m ON m.level = 0 AND m.entity_id = p.id WHERE p.id = ?`,
    )
    .get(id) as Record<string, any> | undefined;
  if (!row) return undefined;
  return {
    url: row.url,
    title: row.title,
    lang: languageCode(row.language_id),
    citationFlow: row.citation_flow,
    trustFlow: row.trust_flow,
    outInternal: row.out_internal,
    outExternal: row.out_external,
  };
}

const sampleIds = (from: number, count: number, step: number) => Array.from({ length: count }, (_, i) => 1 + ((from + i * step) % pageCount));

describe('page details reader', () => {
  before(async () => {
    raw = new Database(await tinyWorldFile(1), { readonly: true });
    pageCount = raw.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  });
  after(() => raw.close());

  it('answers the pages of a batch as the tables hold them, and nothing for unknown ids', () => {
    const reader = new PageDetailsReader(raw);
    const ids = [...sampleIds(0, 300, 37), 999_999_999];
    reader.load(ids);
    for (const id of ids) assert.deepEqual(reader.get(id), expected(id), `page ${id}`);
    assert.equal(reader.get(999_999_999), undefined);
    assert.equal(reader.size, 300);
  });

  it('reads every page at once only for a list with more links than the index has pages', () => {
    const lazy = new PageDetailsReader(raw);
    lazy.preloadFor(pageCount - 1);
    assert.equal(lazy.size, 0, 'a shorter list reads pages as asked');
    const all = new PageDetailsReader(raw);
    all.preloadFor(pageCount);
    assert.equal(all.size, pageCount);
    const ids = sampleIds(5, 500, 23);
    all.load(ids);
    lazy.load(ids);
    for (const id of ids) assert.deepEqual(all.get(id), lazy.get(id), `page ${id}`);
    // Not when the pages would not fit in memory.
    const small = new PageDetailsReader(raw, pageCount - 1);
    small.preloadFor(Number.MAX_SAFE_INTEGER);
    assert.equal(small.size, 0);
  });

  it('holds at most its limit of pages, starting over when full, and still answers the current batch', () => {
    const reader = new PageDetailsReader(raw, 50);
    for (let batch = 0; batch < 12; batch++) {
      const ids = sampleIds(batch * 101, 20, 13);
      reader.load(ids);
      assert.ok(reader.size <= 50, `batch ${batch}: ${reader.size} pages held`);
      for (const id of ids) assert.deepEqual(reader.get(id), expected(id), `batch ${batch}, page ${id}`);
    }
  });
});
