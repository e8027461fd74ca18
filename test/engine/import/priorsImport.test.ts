import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { openEngine } from '../../../src/engine/index.js';
import { importCcRanks, importTranco, parseCcRanksLine, parseTrancoLine, unreverseHost } from '../../../src/engine/import/priorsImport.js';
import { priorAuthority } from '../../../src/engine/authority/authorityScores.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { ImportError } from '../../../src/engine/import/importError.js';
import { copyTinyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';

const HOST_RANKS = [
  '#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev',
  '1\t3.1E7\t2\t0.0061\tcom.bigsearch.www',
  '2\t2.9E7\t1\t0.0072\tcom.bigsearch',
  '3\t2.5E7\t5\t0.0011\tuk.co.tea-shop.www',
  '7\t1.0E7\t9\t0.0002\tcom.bigsearch.maps',
  'garbage line',
  '8\tNaN\t3\t0.1\tcom.broken',
  '9\t1.0E6\t10\t0.0001\t..',
  '',
].join('\n');

test('CC ranks lines: reversed hosts roll up to registrable domains; bad lines are skipped', () => {
  assert.equal(unreverseHost('uk.co.tea-shop.www'), 'www.tea-shop.co.uk');
  assert.deepEqual(parseCcRanksLine('3\t2.5E7\t5\t0.0011\tuk.co.tea-shop.www'), {
    domain: 'tea-shop.co.uk',
    harmonicRank: 3,
    harmonicValue: 2.5e7,
    pagerankRank: 5,
    pagerankValue: 0.0011,
  });
  // The domain-ranks file has an extra column; header order decides.
  const header = ['#harmonicc_pos', '#harmonicc_val', '#pr_pos', '#pr_val', '#host_rev', '#n_hosts'];
  assert.equal(parseCcRanksLine('4\t1.5\t4\t0.2\tcom.example\t12', header)?.domain, 'example.com');
  for (const bad of ['', 'x', '0\t1\t1\t1\tcom.a', '1\t1\t1\t1\t', '1.5\t1\t1\t1\tcom.a', '1\t1\t1\t1\tcom.<script>'])
    assert.equal(parseCcRanksLine(bad), null, bad);
  assert.deepEqual(parseTrancoLine('1,Google.com'), { domain: 'google.com', trancoRank: 1 });
  for (const bad of ['', 'rank,domain', '0,a.com', '1,', 'a,b.com', '1,not a domain', '1,localhost']) assert.equal(parseTrancoLine(bad), null, bad);
});

test('property: the authority prior falls as the position grows and stays within 1–100', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2e9 }), fc.integer({ min: 1, max: 2e9 }), (a, b) => {
      const [pa, pb] = [priorAuthority(a), priorAuthority(b)];
      assert.ok(pa >= 1 && pa <= 100);
      if (a <= b) assert.ok(pa >= pb);
    }),
  );
});

test('CC ranks and Tranco imports give unknown domains a prior pda and TopRank; a new list replaces the old one; resumable', async () => {
  const file = await copyTinyWorld(1);
  const dir = path.dirname(file);
  const engine = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  try {
    const ranks = path.join(dir, 'cc-main-host-ranks.txt.gz');
    fs.writeFileSync(ranks, zlib.gzipSync(HOST_RANKS));
    const stages: string[] = [];
    const result = await importCcRanks(ranks, { store: engine.store, onProgress: (s) => stages.push(s) });
    assert.deepEqual({ lines: result.lines, domains: result.domains, skipped: result.skipped }, { lines: 7, domains: 4, skipped: 3 });
    assert.ok(stages.every((s) => s === 'read cc-ranks (bytes)'));
    const row = engine.store.raw.prepare('SELECT * FROM domain_priors WHERE domain = ?').get('bigsearch.com');
    assert.deepEqual(row, {
      domain: 'bigsearch.com',
      cc_harmonic_rank: 1,
      cc_harmonic_value: 3.1e7,
      cc_pagerank_rank: 1,
      cc_pagerank_value: 0.0072,
      tranco_rank: null,
    });
    const big = engine.authority.forUrl('bigsearch.com')!;
    assert.equal(big.known, false);
    assert.equal(big.pda, 100);
    assert.equal(big.topRank, 1);
    assert.equal(engine.authority.forUrl('https://www.tea-shop.co.uk/')!.pda, priorAuthority(3));

    const tranco = path.join(dir, 'top-1m.csv');
    fs.writeFileSync(tranco, '1,bigsearch.com\n2,video-site.com\n3,bad domain\n1000,tea-shop.co.uk\n');
    const t = await importTranco(tranco, { store: engine.store, batchSize: 1 });
    assert.equal(t.domains, 3);
    assert.equal(engine.authority.forUrl('video-site.com')!.topRank, 2);
    assert.equal(engine.authority.forUrl('video-site.com')!.pda, priorAuthority(2));
    // CC's harmonic position comes first when a domain has both.
    assert.equal(engine.authority.forUrl('tea-shop.co.uk')!.topRank, 3);

    // A new Tranco list replaces the old one: video-site.com drops out.
    const newer = path.join(dir, 'top-1m-newer.csv');
    fs.writeFileSync(newer, '5,bigsearch.com\n');
    const controller = new AbortController();
    const several = Array.from({ length: 50 }, (_, i) => `${i + 6},site-${i}.com`).join('\n');
    fs.appendFileSync(newer, `${several}\n`);
    await assert.rejects(
      importTranco(newer, { store: engine.store, batchSize: 10, signal: controller.signal, onProgress: () => controller.abort(new Error('crash')) }),
      /crash/,
    );
    const resumed = await importTranco(newer, { store: engine.store, batchSize: 10 });
    assert.equal(resumed.resumedFrom, 10);
    assert.equal(resumed.lines, 41);
    assert.equal(engine.store.raw.prepare('SELECT COUNT(*) FROM domain_priors WHERE tranco_rank IS NOT NULL').pluck().get(), 51);
    assert.equal(engine.store.raw.prepare('SELECT tranco_rank FROM domain_priors WHERE domain = ?').pluck().get('video-site.com'), null);
    assert.equal((await importTranco(newer, { store: engine.store })).alreadyImported, true);

    // A known domain keeps its link metrics, raised to a higher prior.
    const known = engine.store.raw
      .prepare('SELECT r.domain, m.authority FROM root_domains r JOIN entity_metrics m ON m.level = 2 AND m.entity_id = r.id ORDER BY m.authority LIMIT 1')
      .get() as {
      domain: string;
      authority: number;
    };
    fs.writeFileSync(tranco, `1,${known.domain}\n`);
    await importTranco(tranco, { store: engine.store, restart: true });
    const raised = engine.authority.forUrl(known.domain)!;
    assert.equal(raised.known, true);
    assert.equal(raised.pda, Math.max(known.authority, 100));

    // A CC file with a wrong header is refused.
    const wrong = path.join(dir, 'wrong.txt');
    fs.writeFileSync(wrong, '#pos\t#host\n1\tcom.a\n');
    await assert.rejects(importCcRanks(wrong, { store: engine.store }), /not a Common Crawl ranks file/);
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Issue 24: a bad file changes nothing already stored. Found from outside: a truncated gzip
 * exited 2 with the previous priors gone (a domain fell from pda 70 / TopRank 2,345 to 2 /
 * null); cc-ranks given a Tranco CSV, and tranco given a ranks file, exited 0 ("N lines
 * skipped") and wiped the earlier list.
 */
test('a truncated, foreign or unreadable list is refused and the priors stay as they were', async () => {
  const file = await copyTinyWorld(1);
  const dir = path.dirname(file);
  const engine = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  const priors = () => engine.store.raw.prepare('SELECT * FROM domain_priors ORDER BY domain').all();
  const staged = () => engine.store.raw.prepare('SELECT COUNT(*) FROM domain_priors_staging').pluck().get();
  try {
    const ranks = path.join(dir, 'cc-main-domain-ranks.txt.gz');
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 2345}\t${1e6 - i}\t${i + 10}\t0.001\tcom.ranked-${i}`);
    fs.writeFileSync(
      ranks,
      zlib.gzipSync(['#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\t#n_hosts', ...lines.map((l) => `${l}\t3`)].join('\n')),
    );
    await importCcRanks(ranks, { store: engine.store });
    const tranco = path.join(dir, 'top-1m.csv');
    fs.writeFileSync(tranco, '1,bigsearch.com\n2,video-site.com\n');
    await importTranco(tranco, { store: engine.store });
    const before = priors();
    const ranked = engine.authority.forUrl('ranked-0.com')!;
    assert.equal(ranked.topRank, 2345);
    assert.ok(ranked.pda > 2);

    // A truncated gzip: the reader fails at the end; nothing staged is swapped in.
    const whole = fs.readFileSync(ranks);
    const truncated = path.join(dir, 'cc-main-domain-ranks-cut.txt.gz');
    fs.writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await assert.rejects(importCcRanks(truncated, { store: engine.store, batchSize: 100 }), ImportError);
    assert.deepEqual(priors(), before);
    assert.deepEqual(engine.authority.forUrl('ranked-0.com'), ranked);

    // The wrong list for the command: refused at its first line, before any write.
    await assert.rejects(
      importCcRanks(tranco, { store: engine.store }),
      (e: unknown) => e instanceof ImportError && /not a Common Crawl ranks file/.test(e.message),
    );
    await assert.rejects(importTranco(ranks, { store: engine.store }), (e: unknown) => e instanceof ImportError && /not a Tranco list/.test(e.message));
    // A list whose first line reads but whose lines mostly do not.
    const mostlyBad = path.join(dir, 'top-mixed.csv');
    fs.writeFileSync(mostlyBad, ['1,example.com', ...Array.from({ length: 20 }, (_, i) => `${i}\tcom.site-${i}`)].join('\n'));
    await assert.rejects(importTranco(mostlyBad, { store: engine.store }), /20 of 21 lines are not rank,domain lines/);
    const empty = path.join(dir, 'empty.csv');
    fs.writeFileSync(empty, '\n');
    await assert.rejects(importTranco(empty, { store: engine.store }), /empty/);
    assert.deepEqual(priors(), before);
    assert.equal(staged(), 0, 'what a refused file staged is dropped');
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
