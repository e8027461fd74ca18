import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openEngine } from '../../../src/engine/index.js';
import { importKeywordsCsv, intentHints } from '../../../src/engine/import/keywordsImport.js';
import { parseLooseNumber } from '../../../src/engine/import/csvFile.js';
import { DAY, FakeClock } from '../../../src/lib/clock.js';
import { openSearch } from '../../../src/engine/search/index.js';
import { copyTinyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';

test('imports a Keyword Planner export (UTF-16LE, tab-separated, title lines first)', async () => {
  const file = await copyTinyWorld(1);
  const engine = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  try {
    const existing = engine.store.raw.prepare("SELECT id, kw, volume FROM keywords WHERE language_id = 1000 AND kind = 'head' LIMIT 1").get() as {
      id: number;
      kw: string;
      volume: number;
    };
    const header = [
      'Keyword',
      'Currency',
      'Avg. monthly searches',
      'Competition',
      'Competition (indexed value)',
      'Top of page bid (low range)',
      'Top of page bid (high range)',
      'Searches: Oct 2025',
      'Searches: Nov 2025',
      'Searches: Dec 2025',
    ];
    const lines = [
      'Keyword Stats 2026-11-22 at 10_00_00',
      '1 November 2025 - 31 December 2025',
      header.join('\t'),
      ['  Quarry Imported   Widget ', 'USD', '1,300', 'High', '87', '0.45', '2.15', '1000', '1200', '1700'].join('\t'),
      [existing.kw.toUpperCase(), 'USD', '50000', 'Low', '12', '1.00', '3.00', '40000', '50000', '60000'].join('\t'),
      ['', 'USD', '10', 'Low', '1', '', '', '', '', ''].join('\t'),
    ];
    const csvFile = path.join(path.dirname(file), 'planner.csv');
    fs.writeFileSync(csvFile, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines.join('\r\n'), 'utf16le')]));
    const result = await importKeywordsCsv(csvFile, { locationId: 2840, languageId: 1000, store: engine.store });
    assert.deepEqual(
      { created: result.created, updated: result.updated, skipped: result.skipped, months: result.months },
      { created: 1, updated: 1, skipped: 1, months: 6 },
    );

    const row = engine.store.raw.prepare("SELECT * FROM keywords WHERE kw = 'quarry imported widget' AND language_id = 1000").get() as Record<string, unknown>;
    assert.equal(row.volume, 1300);
    assert.equal(row.ppc, 87);
    assert.equal(row.cpc, 1.3);
    assert.equal(row.origin, 'import');
    const history = engine.store.raw
      .prepare('SELECT year, month, searches FROM keyword_history WHERE keyword_id = ? AND location_id = 2840 ORDER BY year, month')
      .raw()
      .all(row.id);
    assert.deepEqual(history, [
      [2025, 10, 1000],
      [2025, 11, 1200],
      [2025, 12, 1700],
    ]);
    assert.equal(engine.store.raw.prepare('SELECT share FROM keyword_markets WHERE keyword_id = ? AND location_id = 2840').pluck().get(row.id), 1);

    const updated = engine.store.raw.prepare('SELECT volume, cpc, ppc FROM keywords WHERE id = ?').get(existing.id) as {
      volume: number;
      cpc: number;
      ppc: number;
    };
    assert.deepEqual(updated, { volume: existing.volume, cpc: 2, ppc: 12 });
    const share = engine.store.raw.prepare('SELECT share FROM keyword_markets WHERE keyword_id = ? AND location_id = 2840').pluck().get(existing.id) as number;
    assert.ok(Math.abs(share - Math.min(1, 50000 / existing.volume)) < 1e-9);
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('a keyword import deletes the stored rank indexes, so the next start ranks the new keywords too', async () => {
  const file = await copyTinyWorld(1);
  const clock = new FakeClock(TINY_WORLD_AS_OF);
  const engine = await openEngine({ file, clock });
  try {
    const storedMarkets = () => engine.store.raw.prepare('SELECT location_id FROM search_rank_index ORDER BY 1').pluck().all();
    await (await engine.search()).rankIndex(2840);
    assert.deepEqual(storedMarkets(), [2840]);
    const csvFile = path.join(path.dirname(file), 'planner.csv');
    fs.writeFileSync(csvFile, 'Keyword,Avg. monthly searches\nhiking boots for glacier treks,1300\n');
    await importKeywordsCsv(csvFile, { locationId: 2840, languageId: 1000, store: engine.store });
    assert.deepEqual(storedMarkets(), []);

    clock.advance(DAY);
    const next = await openSearch({ store: engine.store, clock });
    const index = await next.rankIndex(2840);
    assert.equal(index.date, '2026-11-23', 'ranked again, not loaded');
    const imported = next.catalog.find('hiking boots for glacier treks', 1000);
    assert.ok(imported !== undefined && index.covers(imported), 'the imported keyword is ranked');
    assert.deepEqual(storedMarkets(), [2840]);
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('loose numbers and intent hints', () => {
  assert.equal(parseLooseNumber('1,234'), 1234);
  assert.equal(parseLooseNumber('1.5K'), 1500);
  assert.equal(parseLooseNumber('1K – 10K'), Math.round(Math.sqrt(1000 * 10000)));
  assert.equal(parseLooseNumber('--'), null);
  assert.equal(parseLooseNumber('$2.50'), 2.5);
  assert.equal(intentHints('buy cheap boots'), 'transactional');
  assert.equal(intentHints('how to choose boots'), 'informational,question');
  assert.equal(intentHints('boots near me'), 'local');
});

test('a planner row without bids or competition imports its cpc and ppc as null, never 0 (a figure nobody has)', async () => {
  const file = await copyTinyWorld(1);
  const clock = new FakeClock(TINY_WORLD_AS_OF);
  const engine = await openEngine({ file, clock });
  try {
    const csvFile = path.join(path.dirname(file), 'planner.csv');
    fs.writeFileSync(
      csvFile,
      [
        'Keyword,Avg. monthly searches,Competition (indexed value),Top of page bid (low range),Top of page bid (high range)',
        'quarry nobody bids on,700,,,',
        'quarry one bid,900,40,,1.20',
      ].join('\n'),
    );
    await importKeywordsCsv(csvFile, { locationId: 2840, languageId: 1000, store: engine.store });
    const search = await openSearch({ store: engine.store, clock });
    const none = search.keywordItem('quarry nobody bids on', 2840, 1000);
    assert.deepEqual({ sv: none.sv, cpc: none.cpc, ppc: none.ppc }, { sv: 700, cpc: null, ppc: null });
    const one = search.keywordItem('quarry one bid', 2840, 1000);
    assert.deepEqual({ sv: one.sv, cpc: one.cpc, ppc: one.ppc }, { sv: 900, cpc: 1.2, ppc: 40 });
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});
