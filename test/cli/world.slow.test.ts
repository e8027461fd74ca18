/**
 * `quarry world build|info` and `quarry import keywords|links` as operators run them:
 * child processes against a temporary data dir holding a tiny world (seed 3), checked
 * through their output, exit codes and the research store.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { contentHash } from '../../src/engine/world/contentHash.js';
import { runQuarry } from '../support/cli.js';

describe('quarry world | import', () => {
  let dataDir: string;
  const quarry = (args: string[]) => runQuarry(args, { QUARRY_DATA_DIR: dataDir });
  const researchFile = () => path.join(dataDir, 'research.db');
  /** Reads the research store the commands wrote (read-only, closed after). */
  const readStore = <T>(fn: (db: SqliteDatabase.Database) => T): T => {
    const db = new SqliteDatabase(researchFile(), { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-world-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('world build --size tiny --seed 3 builds the research store and reports its counts', () => {
    const res = quarry(['world', 'build', '--size', 'tiny', '--seed', '3']);
    assert.equal(res.code, 0, res.stderr);
    // 2,500 drawn, 45 of them phrasings that do not read as English and are left out (keywordGenerator.ts: hidden).
    assert.match(res.stdout, /^built .*research\.db: 2455 keywords, \d+ root domains, \d+ pages, \d+ links in [\d.]+ s$/m);
    const again = quarry(['world', 'build', '--size', 'tiny', '--seed', '3']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already holds a built world \(use --force to rebuild\)/);
  });

  test('world info prints the metadata and counts; --hash adds the content hash', () => {
    const plain = quarry(['world', 'info']);
    assert.equal(plain.code, 0, plain.stderr);
    const info = JSON.parse(plain.stdout) as Record<string, unknown> & { counts: Record<string, number> };
    assert.equal(info.built, true);
    assert.equal(info.size, 'tiny');
    assert.equal(info.seed, 3);
    assert.equal(info.contentHash, null, 'not computed at build');
    assert.equal(info.counts.keywords, 2455);
    for (const key of ['rootDomains', 'hosts', 'pages', 'links']) assert.ok(info.counts[key] > 0, key);
    assert.equal(
      info.counts.links,
      readStore((db) => db.prepare('SELECT COUNT(*) FROM links').pluck().get()),
    );

    const hashed = quarry(['world', 'info', '--hash']);
    assert.equal(hashed.code, 0, hashed.stderr);
    const withHash = JSON.parse(hashed.stdout) as { contentHash: string; counts: unknown };
    assert.match(withHash.contentHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(withHash.counts, info.counts);
    assert.equal(withHash.contentHash, contentHash(researchFile()));
  });

  test('a bad --size exits non-zero and names the sizes', () => {
    const res = quarry(['world', 'build', '--size', 'huge', '--data-dir', path.join(dataDir, 'other')]);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /'huge' is invalid\. must be one of tiny, small, large/);
    assert.equal(fs.existsSync(path.join(dataDir, 'other')), false, 'nothing built');
  });

  test('import keywords reads a Keyword Planner export and reports what it imported', () => {
    const existing = readStore(
      (db) => db.prepare("SELECT kw FROM keywords WHERE language_id = 1000 AND kind = 'head' ORDER BY id LIMIT 1").pluck().get() as string,
    );
    // The Planner's layout: UTF-16LE, tab-separated, two title lines before the header.
    const lines = [
      'Keyword Stats 2026-11-22 at 10_00_00',
      'All locations',
      [
        'Keyword',
        'Currency',
        'Avg. monthly searches',
        'Competition',
        'Competition (indexed value)',
        'Top of page bid (low range)',
        'Top of page bid (high range)',
        'Searches: Sep 2026',
        'Searches: Oct 2026',
      ].join('\t'),
      ['cli imported widget', 'USD', '880', 'High', '71', '0.50', '1.50', '800', '960'].join('\t'),
      [existing, 'USD', '12,000', 'Low', '20', '1.00', '2.00', '11000', '13000'].join('\t'),
    ];
    const file = path.join(dataDir, 'planner.csv');
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines.join('\r\n'), 'utf16le')]));
    const res = quarry(['import', 'keywords', file, '--location', '2840', '--language', '1000']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^imported 2 keywords \(1 new, 1 updated, 0 skipped, 4 monthly values\)$/m);
    const imported = readStore((db) => db.prepare("SELECT volume, ppc, origin FROM keywords WHERE kw = 'cli imported widget' AND language_id = 1000").get());
    assert.deepEqual(imported, { volume: 880, ppc: 71, origin: 'import' });
  });

  test('import links reads a links CSV, reports what it imported and recomputes the metrics', () => {
    const target = readStore((db) => db.prepare('SELECT url FROM pages WHERE is_homepage = 1 ORDER BY id LIMIT 1').pluck().get() as string);
    const file = path.join(dataDir, 'links.csv');
    fs.writeFileSync(
      file,
      [
        'Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen',
        `https://www.cli-imported-one.com/post,${target},read more,false,2026-10-01,2026-11-20`,
        `https://news.cli-imported-two.org/story,${target},home,true,2026-09-01,2026-11-21`,
        'not a url,also not,x,false,2026-01-01,2026-01-02',
      ].join('\n'),
    );
    const res = quarry(['import', 'links', file]);
    assert.equal(res.code, 0, res.stderr);
    // It raised the data generation, which a running server reloads on (engine/live).
    assert.match(res.stderr, /research store at generation \d+; serving processes on this data directory load it within seconds/);
    const info = JSON.parse(quarry(['world', 'info']).stdout) as { generation: number };
    assert.ok(info.generation >= 1);
    assert.match(res.stdout, /^imported 2 links \(2 new, 0 updated, 1 skipped\); 2 new root domains, 2 new pages; metrics recomputed over \d+ links$/m);
    const links = readStore((db) =>
      db.prepare("SELECT COUNT(*) FROM links l JOIN pages p ON p.id = l.source_page_id WHERE p.url LIKE '%cli-imported-%'").pluck().get(),
    );
    assert.equal(links, 2);
  });
});
