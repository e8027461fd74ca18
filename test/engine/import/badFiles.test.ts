/**
 * Issue 24: a truncated, malformed or wrong-format file changes nothing already stored. Each
 * CSV importer reads and checks the whole file before its one write transaction, and refuses
 * the wrong one with an ImportError (the CLI's exit 2 and one-line message): not even the rank
 * indexes an import would otherwise drop are touched. The priors lists have their own test
 * (priorsImport.test.ts), as do WAT and Search Console files (watImport, searchConsoleImport).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openEngine, type Engine } from '../../../src/engine/index.js';
import { importKeywordsCsv } from '../../../src/engine/import/keywordsImport.js';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { ImportError } from '../../../src/engine/import/importError.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { runQuarry } from '../../support/cli.js';
import { copyTinyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';

let engine: Engine;
let dir: string;

before(async () => {
  const file = await copyTinyWorld(1);
  dir = path.dirname(file);
  engine = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  await (await engine.search()).rankIndex(2840);
});
after(async () => {
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What an import could change: row counts of the tables it writes, the stored rank indexes, the world's state. */
function snapshot() {
  const raw = engine.store.raw;
  const count = (table: string) => raw.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
  return {
    keywords: count('keywords'),
    history: count('keyword_history'),
    markets: count('keyword_markets'),
    links: count('links'),
    pages: count('pages'),
    rankIndexes: raw.prepare('SELECT location_id FROM search_rank_index').pluck().all(),
    meta: raw.prepare("SELECT key, value FROM world_meta WHERE key <> 'generation' ORDER BY key").all(),
  };
}

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const PLANNER = 'Keyword,Avg. monthly searches,Competition (indexed value),Top of page bid (low range),Top of page bid (high range)\n';

test('keywords: a file of another kind, without searches, unreadable or truncated is refused and changes nothing', async () => {
  const before = snapshot();
  const cases: [string, string, RegExp][] = [
    ['links.csv', 'Source URL,Target URL,Anchor\nhttps://a.example/,https://b.example/,b\n', /not a Keyword Planner export/],
    ['top-1m.csv', '1,google.com\n2,example.com\n', /not a Keyword Planner export/],
    ['no-searches.csv', 'Keyword,Currency\ncoffee grinder,USD\n', /no "Avg. monthly searches"/],
    ['all-blank.csv', `${PLANNER},,,\n--,--,,,\n`, /none of its 2 rows has a keyword with searches/],
    ['quote.csv', `${PLANNER}"coffee grinder,1300,40,0.5,1.5\n`, /not a readable CSV/],
    ['truncated.csv', `${PLANNER}coffee grinder,1300,40,0.5,1.5\nburr coffee grinder,13`, /looks truncated/],
  ];
  for (const [name, text, message] of cases) {
    await assert.rejects(
      importKeywordsCsv(write(name, text), { locationId: 2840, languageId: 1000, store: engine.store }),
      (e: unknown) => e instanceof ImportError && message.test(e.message),
      name,
    );
  }
  assert.deepEqual(snapshot(), before);
});

test('links: a file of another kind, without a readable row, or truncated is refused and changes nothing', async () => {
  const before = snapshot();
  const header = 'Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen\n';
  const cases: [string, string, RegExp][] = [
    ['planner.csv', `${PLANNER}coffee grinder,1300,40,0.5,1.5\n`, /not a links CSV/],
    ['urls.csv', 'source,notes\nhttps://a.example/,x\n', /not a links CSV/],
    ['no-urls.csv', `${header}not a url,also not,x,false,2026-01-01,2026-01-02\n`, /none of its 1 rows has a source and a target URL/],
    ['cut.csv', `${header}https://a.example/x,https://b.example/,b,false,2026-01-01,2026-01-02\nhttps://c.example/y,https://b.exa`, /looks truncated/],
  ];
  for (const [name, text, message] of cases) {
    await assert.rejects(
      importLinksCsv(write(name, text), { store: engine.store, asOf: TINY_WORLD_AS_OF }),
      (e: unknown) => e instanceof ImportError && message.test(e.message),
      name,
    );
  }
  assert.deepEqual(snapshot(), before);
});

test('the CLI refuses a wrong file with exit 2 and one line saying why', () => {
  const dataDir = path.join(dir, 'cli-data');
  fs.mkdirSync(dataDir, { recursive: true });
  const tranco = write('cli-top-1m.csv', '1,google.com\n');
  const res = runQuarry(['import', 'keywords', tranco, '--location', '2840', '--language', '1000', '--data-dir', dataDir], { QUARRY_DATA_DIR: dataDir });
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /^quarry: .*not a Keyword Planner export/m);
  assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
});
