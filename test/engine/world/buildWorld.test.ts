import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { buildWorld } from '../../../src/engine/world/buildWorld.js';
import { contentHash } from '../../../src/engine/world/contentHash.js';
import { keywordHistory, averageOfLastYear } from '../../../src/engine/world/keywordHistory.js';
import { copyTinyWorld, tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';

test('the same seed gives the same content; another seed gives another', async () => {
  const shared = await tinyWorldFile(1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-world-'));
  try {
    const again = await buildWorld({ size: 'tiny', seed: 1, file: path.join(dir, 'a.db'), asOf: TINY_WORLD_AS_OF, computeHash: true });
    const other = await buildWorld({ size: 'tiny', seed: 2, file: path.join(dir, 'b.db'), asOf: TINY_WORLD_AS_OF });
    const hashShared = contentHash(shared);
    assert.equal(contentHash(again.file), hashShared);
    // The seed row is not hashed, so this holds only if the generated content differs.
    assert.notEqual(contentHash(other.file), hashShared);
    // The hash stored at build time is the hash of the file (the shared file may predate
    // the current hash definition, so a fresh build is checked).
    const db = new SqliteDatabase(again.file, { readonly: true });
    assert.equal(db.prepare("SELECT value FROM world_meta WHERE key = 'content_hash'").pluck().get(), hashShared);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the content hash leaves out the seed: it hashes what was generated, not how', async () => {
  const file = await copyTinyWorld(1);
  try {
    const before = contentHash(file);
    const db = new SqliteDatabase(file);
    db.prepare("UPDATE world_meta SET value = '999' WHERE key = 'seed'").run();
    db.close();
    assert.equal(contentHash(file), before);
    const changed = new SqliteDatabase(file);
    changed.prepare('UPDATE keywords SET volume = volume + 1 WHERE id = (SELECT MIN(id) FROM keywords)').run();
    changed.close();
    assert.notEqual(contentHash(file), before);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('tiny world meets its size and variety minima', async () => {
  const db = new SqliteDatabase(await tinyWorldFile(1), { readonly: true });
  const one = (sql: string): number => db.prepare(sql).pluck().get() as number;
  assert.ok(one('SELECT COUNT(*) FROM keywords') >= 2000);
  assert.ok(one('SELECT COUNT(*) FROM links') >= 50_000);
  assert.ok(one('SELECT COUNT(*) FROM niches') >= 12);
  const languages = db.prepare('SELECT DISTINCT language_id FROM keywords ORDER BY 1').pluck().all();
  assert.deepEqual(languages, [1000, 1001, 1002]);
  const kinds = db.prepare('SELECT DISTINCT kind FROM root_domains ORDER BY 1').pluck().all();
  for (const kind of ['blog', 'shop', 'brand', 'news', 'forum', 'wiki', 'edu', 'gov', 'directory', 'farm']) assert.ok(kinds.includes(kind), kind);
  const linkTypes = db.prepare('SELECT DISTINCT type FROM links ORDER BY 1').pluck().all();
  assert.deepEqual(linkTypes, ['frame', 'image', 'mention', 'redirect', 'text']);
  // Heavy-tailed volumes: heads in 1e4–1e6, tails down to 10. A head containing another
  // head ("trail running shoes" in "running shoes") is the narrower search: below it.
  const nested = `EXISTS (SELECT 1 FROM keywords o WHERE o.kind = 'head' AND o.language_id = k.language_id AND o.id <> k.id AND (' ' || k.kw || ' ') LIKE ('% ' || o.kw || ' %'))`;
  assert.ok(one(`SELECT MIN(volume) FROM keywords k WHERE kind = 'head' AND language_id = 1000 AND NOT ${nested}`) >= 10_000);
  assert.equal(
    one(`SELECT COUNT(*) FROM keywords k JOIN keywords o ON o.kind = 'head' AND o.language_id = k.language_id AND o.id <> k.id
          AND (' ' || k.kw || ' ') LIKE ('% ' || o.kw || ' %') WHERE k.kind = 'head' AND k.volume >= o.volume`),
    0,
  );
  assert.ok(one("SELECT MAX(volume) FROM keywords WHERE kind = 'head'") <= 1_000_000);
  assert.ok(one('SELECT COUNT(*) FROM keywords WHERE volume <= 100') > 0);
  // CPC tied to commercial intent.
  const cpc = (intent: string): number => one(`SELECT AVG(cpc) FROM keywords WHERE intent LIKE '%${intent}%'`);
  assert.ok(cpc('transactional') > cpc('informational'));
  assert.equal(one('SELECT COUNT(*) FROM keywords WHERE ppc < 0 OR ppc > 100'), 0);
  // Farms share few subnets; other sites are spread out.
  assert.ok(one("SELECT COUNT(DISTINCT h.subnet) FROM hosts h JOIN root_domains r ON r.id = h.root_domain_id WHERE r.kind = 'farm'") <= 5);
  // Timeline: new links in the last 30 days, lost ones in the last 90, nothing after the build date.
  assert.ok(one("SELECT COUNT(*) FROM links WHERE first_seen >= '2026-10-23'") > 0);
  assert.ok(one("SELECT COUNT(*) FROM links WHERE deleted = 1 AND last_seen >= '2026-08-24'") > 0);
  assert.equal(one("SELECT COUNT(*) FROM links WHERE first_seen > '2026-11-22' OR last_seen > '2026-11-22' OR first_seen < '2016-01-01'"), 0);
  assert.equal(one('SELECT COUNT(*) FROM links WHERE last_seen < first_seen OR (deleted = 1 AND deleted_on < last_seen)'), 0);
  assert.ok(one('SELECT COUNT(*) FROM links WHERE internal = 1') > 0);
  db.close();
});

test('keyword history runs monthly from 2015-01 and averages to the volume over the last year', () => {
  const history = keywordHistory({ volume: 12_000, trend: 1.05, seasonPeak: 6, seasonAmplitude: 0.3, noiseSeed: 7 }, TINY_WORLD_AS_OF);
  assert.deepEqual(history[0].slice(0, 2), [2015, 1]);
  assert.deepEqual(history.at(-1)!.slice(0, 2), [2026, 10]);
  assert.ok(Math.abs(averageOfLastYear(history) - 12_000) <= 12);
  const june = history.filter(([, m]) => m === 6).at(-1)![2];
  const december = history.filter(([, m]) => m === 12).at(-1)![2];
  assert.ok(june > december, 'peak month is higher');
});
