import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { hexId, openEngine, type Engine } from '../../../src/engine/index.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { csvRecord, type CsvRecordSource } from '../../../src/lib/csv.js';
import { tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';

let engine: Engine;
before(async () => {
  engine = await openEngine({ file: await tinyWorldFile(1), clock: new FakeClock(TINY_WORLD_AS_OF) });
});
after(() => engine.close());

const giant = 'openpedia.org';

test('backlinks page strongest first, with the exact total and stable paging', () => {
  const first = engine.links.backlinks(giant, {}, { offset: 0, limit: 500 })!;
  assert.equal(first.meta.url_type, 'RootDomain');
  assert.equal(first.links.length, 500);
  const target = engine.links.resolve(giant)!;
  const all = [...engine.links.streamBacklinks(target, {})];
  assert.equal(first.meta.available_links, all.length);
  assert.deepEqual(first.links, all.slice(0, 500));
  const second = engine.links.backlinks(giant, {}, { offset: 500, limit: 500 })!;
  assert.deepEqual(second.links, all.slice(500, 1000));
  for (let i = 1; i < all.length; i++) assert.ok(all[i].ls <= all[i - 1].ls, 'link strength never rises down the list');
  const item = first.links[0];
  assert.match(item._id, /^[0-9a-f]{24}$/);
  assert.match(item.first_seen, /^\d{4}-\d\d-\d\d$/);
  assert.equal(typeof item.no_follow, 'boolean');
  assert.ok(item.target.includes('openpedia.org'));
  assert.deepEqual(engine.links.backlinkById(item._id)!.targetRootDomain, giant);
  assert.equal(engine.links.backlinkById('ffffffffffffffffffffffff'), null);
});

test('source 1 = first seen in the last 30 days; source 2 = lost and last seen in the last 90 days', () => {
  const target = engine.links.resolve(giant)!;
  const fresh = [...engine.links.streamBacklinks(target, { source: 1 })];
  assert.ok(fresh.length > 0);
  for (const l of fresh) assert.ok(l.first_seen >= '2026-10-23');
  assert.equal(engine.links.countBacklinks(target, { source: 1 }), fresh.length);
  const lost = [...engine.links.streamBacklinks(target, { source: 2 })];
  assert.ok(lost.length > 0);
  for (const l of lost) assert.ok(l.deleted && l.last_seen >= '2026-08-24' && l.reason_lost);
  // Relative to the given date: a year later nothing is new.
  assert.equal(engine.links.countBacklinks(target, { source: 1 }, TINY_WORLD_AS_OF + 365 * 86_400_000), 0);
});

test('links_per_domain 1 gives one link per referring domain, the strongest', () => {
  const target = engine.links.resolve(giant)!;
  const one = [...engine.links.streamBacklinks(target, { linksPerDomain: 1 })];
  const domains = new Set(one.map((l) => l.domainId));
  assert.equal(domains.size, one.length);
  const all = [...engine.links.streamBacklinks(target, {})];
  assert.equal(one.length, new Set(all.map((l) => l.domainId)).size);
  assert.equal(engine.links.countBacklinks(target, { linksPerDomain: 1 }), one.length);
  const firstOfDomain = new Map<string, string>();
  for (const l of all) if (!firstOfDomain.has(l.domainId)) firstOfDomain.set(l.domainId, l._id);
  for (const l of one) assert.equal(l._id, firstOfDomain.get(l.domainId));
  // With a filter, one per domain among the matching links.
  const newOne = [...engine.links.streamBacklinks(target, { source: 1, linksPerDomain: 1 })];
  assert.equal(new Set(newOne.map((l) => l.domainId)).size, newOne.length);
  assert.equal(engine.links.countBacklinks(target, { source: 1, linksPerDomain: 1 }), newOne.length);
});

test('export filters', () => {
  const target = engine.links.resolve(giant)!;
  const check = (filter: Parameters<typeof engine.links.countBacklinks>[1], ok: (l: ReturnType<typeof engine.links.backlinkById> & {}) => boolean) => {
    const rows = [...engine.links.streamBacklinks(target, filter)];
    assert.ok(rows.length > 0, JSON.stringify(filter));
    assert.equal(engine.links.countBacklinks(target, filter), rows.length);
    for (const l of rows) assert.ok(ok({ ...l, targetRootDomain: giant }), JSON.stringify(filter));
  };
  check({ noFollow: true }, (l) => l.no_follow);
  check({ liveLinks: true }, (l) => !l.deleted);
  check({ linkType: 'image' }, (l) => l.type === 'image');
  check({ flagRedirectLink: true, flagFrameLink: true }, (l) => l.redirect || l.frame);
  check({ minCitationFlow: 30, maxTrustFlow: 80 }, (l) => l.source_cf >= 30 && l.source_tf <= 80);
  check({ minLinkStrength: 5 }, (l) => l.ls >= 5);
  check({ targetAnchorText: 'openpedia' }, (l) => `${l.anchor} ${l.alt}`.toLowerCase().includes('openpedia'));
  check({ targetHrefText: '/wiki/' }, (l) => l.target.includes('/wiki/'));
  check({ maxTopRank: 20 }, () => true);
});

/**
 * The CSV a record source writes, drained through buffers of `bytes` bytes (or the next
 * record's size when larger), `maxRows` records at a time.
 */
function csvOf(source: CsvRecordSource, bytes: number, maxRows: number): string {
  const chunks: Buffer[] = [];
  for (let need = source.nextRecordBytes(); need > 0; need = source.nextRecordBytes()) {
    const chunk = Buffer.alloc(Math.max(bytes, need));
    let end = 0;
    for (let before = -1; before !== end;) {
      before = end;
      end = source.writeRecords(chunk, end, maxRows);
    }
    chunks.push(chunk.subarray(0, end));
  }
  return Buffer.concat(chunks).toString('utf8');
}

test('CSV records of backlinks are the generic encoding of their rows, byte for byte', async () => {
  // A copy of the world whose strongest links and their pages hold what CSV must quote,
  // text beyond ASCII, an unknown link type, a two-digit strength and a page without metrics.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-backlink-csv-'));
  const file = path.join(dir, 'world.db');
  fs.copyFileSync(await tinyWorldFile(1), file);
  const raw = new Database(file);
  const target = engine.links.resolve(giant)!;
  const strongest = raw
    .prepare('SELECT id, source_page_id FROM links WHERE target_root_id = ? AND internal = 0 ORDER BY score DESC, id LIMIT 20')
    .all(target.entityId) as { id: number; source_page_id: number }[];
  strongest.forEach(({ id, source_page_id: page }, i) => {
    raw
      .prepare('UPDATE links SET anchor = ?, alt = ?, deleted = ?, reason_lost = ? WHERE id = ?')
      .run(i % 4 === 3 ? `Kaffee für Genießer ${i} 😀` : `best "coffee", ever ${i}`, 'line\nbreak\r', i % 2, 'gone, "moved"', id);
    raw.prepare('UPDATE pages SET title = ?, language_id = ? WHERE id = ?').run(`Coffee, "tea" ${i} — café`, i % 3 === 0 ? 9999 : 1, page);
  });
  raw.prepare('UPDATE links SET type = \'odd, "type"\', strength = 10 WHERE id = ?').run(strongest[5].id);
  // What the export query's one string a link cannot carry: a NUL (its separator), a strength of two digits.
  raw.prepare("UPDATE links SET anchor = 'nul' || char(0) || 'inside', alt = char(0) WHERE id = ?").run(strongest[9].id);
  raw.prepare("UPDATE links SET type = 'image', strength = 12 WHERE id = ?").run(strongest[10].id);
  raw.prepare('DELETE FROM entity_metrics WHERE level = 0 AND entity_id = ?').run(strongest[7].source_page_id);
  raw.close();
  const hostile = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  try {
    for (const filter of [{}, { source: 2 as const }, { linksPerDomain: 1 as const }, { linkType: 'image' }]) {
      const expected = [...hostile.links.streamBacklinkRows(target, filter)].map(csvRecord).join('');
      assert.ok(expected.length > 0, JSON.stringify(filter));
      assert.equal(csvOf(hostile.links.backlinkCsv(target, filter), 64 * 1024, 1000), expected, JSON.stringify(filter));
      // Small buffers and few rows at a time: records never split, nothing lost between calls.
      assert.equal(csvOf(hostile.links.backlinkCsv(target, filter), 300, 3), expected, JSON.stringify(filter));
    }
    const first = csvOf(hostile.links.backlinkCsv(target, {}, 12), 4096, 1000);
    assert.equal(first, [...hostile.links.streamBacklinkRows(target, {}, 12)].map(csvRecord).join(''));
    assert.ok(first.includes('"best ""coffee"", ever'), 'a quoted anchor');
    assert.ok(first.includes('Kaffee für Genießer 3 😀'), 'an anchor beyond ASCII');
    assert.ok(first.includes(',true,"gone, ""moved""",'), 'a lost link with its quoted reason');
    assert.ok(first.includes('"Coffee, ""tea"" 0 — café"'), 'a quoted title');
    assert.ok(first.includes('"odd, ""type"""'), 'an unknown type, quoted');
    assert.ok(first.includes(',nul\0inside,\0,'), 'an anchor and an alt with a NUL');
    assert.ok(first.includes(',12\n'), 'a strength of two digits');
    assert.ok(!first.includes(hexId(strongest[7].id)), 'a link whose source page has no metrics is left out');
  } finally {
    await hostile.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('URL metrics: the full linkindex v with string-typed non-unique counters', () => {
  const { v, target } = engine.links.urlMetrics(giant)!;
  assert.equal(target.type, 'RootDomain');
  assert.equal(v.Status, 'Found');
  assert.equal(v.ItemType, 1);
  assert.equal(typeof v.TotalNonUniqueLinks, 'string');
  assert.equal(Number(v.TotalNonUniqueLinks), engine.links.backlinks(giant)!.meta.available_links);
  assert.ok(v.RefDomains > 0 && v.RefIPs >= v.RefSubNets);
  const host = engine.links.urlMetrics('de.openpedia.org')!;
  assert.equal(host.target.type, 'SubDomain');
  assert.equal(host.v.ItemType, 2);
  const unknown = engine.links.urlMetrics('https://never-seen-domain.com/x')!;
  assert.equal(unknown.v.Status, 'NotFound');
  assert.equal(unknown.v.ItemType, 3);
  assert.equal(unknown.v.ExtBackLinks, 0);
  assert.equal(engine.links.urlMetrics('not a url'), null);
});

test('export suggestions list root domain, subdomain, URL and protocol variants', () => {
  const s = engine.links.exportSuggestions('https://www.openpedia.org/')!;
  assert.equal(s.suggestedType, 'URL');
  assert.deepEqual(
    s.suggestions.map((x) => x.type),
    ['RootDomain', 'SubDomain', 'URL', 'URL'],
  );
  assert.deepEqual(
    s.suggestions.map((x) => x.url),
    ['openpedia.org', 'www.openpedia.org', 'https://www.openpedia.org/', 'http://www.openpedia.org/'],
  );
  assert.ok(s.suggestions[0].backLinks >= s.suggestions[1].backLinks && s.suggestions[1].backLinks >= s.suggestions[2].backLinks);
});

test('backlink profile and top content', () => {
  const p = engine.links.backlinkProfile(giant)!;
  assert.equal(p.backLinkCalendar.length, 90);
  assert.equal(p.backLinkCalendar.at(-1)!.Date, '2026-11-22');
  assert.ok(p.backLinkCalendar.some((d) => d.NewLinks > 0));
  assert.ok(p.refDomains.length > 0 && p.anchors.length > 0);
  for (let i = 1; i < p.refDomains.length; i++) assert.ok(p.refDomains[i].matchedLinks <= p.refDomains[i - 1].matchedLinks);
  const top = engine.links.topContent(giant, 10)!;
  assert.equal(top.topContent.length, 10);
  for (let i = 1; i < 10; i++) assert.ok(top.topContent[i].citationFlow <= top.topContent[i - 1].citationFlow);
});
