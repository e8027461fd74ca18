import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine } from '../../../src/engine/index.js';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { DAY, FakeClock } from '../../../src/lib/clock.js';
import { openSearch } from '../../../src/engine/search/index.js';
import { copyTinyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';

test('imported links are served like sandbox links and counters are recomputed', async () => {
  const file = await copyTinyWorld(1);
  const engine = await openEngine({ file, clock: new FakeClock(TINY_WORLD_AS_OF) });
  try {
    const target = engine.store.raw
      .prepare("SELECT p.url, r.domain FROM pages p JOIN root_domains r ON r.id = p.root_domain_id WHERE r.kind = 'blog' AND p.is_homepage = 0 LIMIT 1")
      .get() as { url: string; domain: string };
    const before = engine.links.urlMetrics(target.domain)!.v;
    const csv = [
      'Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen',
      `https://www.importedsite-one.com/review,${target.url},"great ""review""",false,2026-11-10,2026-11-20`,
      `https://blog.importedsite-two.org/post,${target.url},click here,true,2025-03-01,2026-11-21`,
      `https://cs.stateuni-imported.edu/links,${target.url},${target.domain},0,2026-11-01,2026-11-21`,
      `https://www.importedsite-one.com/review,https://www.brand-new-target.com/,brand new,false,2026-11-02,2026-11-20`,
      'not a url,also not,x,false,2026-01-01,2026-01-02',
    ].join('\n');
    const csvFile = path.join(path.dirname(file), 'links.csv');
    fs.writeFileSync(csvFile, csv);
    const result = await importLinksCsv(csvFile, { store: engine.store, asOf: TINY_WORLD_AS_OF });
    assert.equal(result.created, 4);
    assert.equal(result.skipped, 1);
    assert.equal(result.newRootDomains, 4);

    const after = engine.links.urlMetrics(target.domain)!.v;
    assert.equal(after.ExtBackLinks, before.ExtBackLinks + 3);
    assert.equal(after.RefDomains, before.RefDomains + 3);
    assert.equal(after.RefDomainsEDU_Exact, before.RefDomainsEDU_Exact + 1);
    assert.equal(Number(after.NonUniqueLinkTypeNoFollow), Number(before.NonUniqueLinkTypeNoFollow) + 1);
    const page = engine.links.urlMetrics(target.url)!.v;
    assert.ok(page.ExtBackLinks >= 3);

    const fresh = engine.links.backlinks(target.url, { source: 1 })!.links;
    const imported = fresh.find((l) => l.source === 'https://www.importedsite-one.com/review')!;
    assert.equal(imported.anchor, 'great "review"');
    assert.equal(imported.first_seen, '2026-11-10');
    assert.equal(imported.no_follow, false);
    assert.match(imported._id, /^[0-9a-f]{24}$/);

    // The new target domain exists with its metrics, and the .edu source gives it trust.
    const newTarget = engine.links.urlMetrics('brand-new-target.com')!.v;
    assert.equal(newTarget.Status, 'Found');
    assert.equal(newTarget.ExtBackLinks, 1);
    assert.equal(engine.authority.forUrl('brand-new-target.com')!.known, true);
    const eduTf = engine.links.urlMetrics('stateuni-imported.edu')!.v.TrustFlow;
    assert.ok(eduTf > 0, 'imported .edu joins the trusted seeds');

    // Re-importing the same file updates, never duplicates.
    const again = await importLinksCsv(csvFile, { store: engine.store, asOf: TINY_WORLD_AS_OF });
    assert.equal(again.created, 0);
    assert.equal(again.updated, 4);
    assert.equal(engine.links.urlMetrics(target.domain)!.v.ExtBackLinks, after.ExtBackLinks);
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('a links import deletes the stored rank indexes, so the next start ranks again', async () => {
  const file = await copyTinyWorld(1);
  const clock = new FakeClock(TINY_WORLD_AS_OF);
  const engine = await openEngine({ file, clock });
  try {
    const storedMarkets = () => engine.store.raw.prepare('SELECT location_id FROM search_rank_index ORDER BY 1').pluck().all();
    const search = await engine.search();
    await search.rankIndex(2840);
    await search.rankIndex(2826);
    assert.deepEqual(storedMarkets(), [2826, 2840]);
    const target = engine.store.raw.prepare('SELECT url FROM pages WHERE is_homepage = 1 LIMIT 1').pluck().get() as string;
    const csvFile = path.join(path.dirname(file), 'links.csv');
    fs.writeFileSync(csvFile, `Source URL,Target URL,Anchor\nhttps://www.importedsite-three.com/,${target},home\n`);
    await importLinksCsv(csvFile, { store: engine.store, asOf: TINY_WORLD_AS_OF });
    assert.deepEqual(storedMarkets(), []);

    clock.advance(DAY);
    const next = await openSearch({ store: engine.store, clock });
    assert.equal((await next.rankIndex(2840)).date, '2026-11-23', 'ranked again, not loaded');
  } finally {
    await engine.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

test('a links import into an empty research store makes a served world', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-'));
  const engine = await openEngine({ file: path.join(dir, 'research.db'), clock: new FakeClock(TINY_WORLD_AS_OF) });
  try {
    assert.equal(engine.isBuilt(), false);
    const csvFile = path.join(dir, 'links.tsv');
    fs.writeFileSync(
      csvFile,
      'source_url\ttarget_url\tanchor_text\tnofollow\tfirst_seen\tlast_seen\n' +
        'https://a.example.org/1\thttps://target.example.com/\ttarget\tno\t2026-01-01\t2026-11-01\n' +
        'https://b.example.net/2\thttps://target.example.com/page\tpage\tyes\t2026-02-01\t2026-11-01\n',
    );
    await importLinksCsv(csvFile, { store: engine.store, asOf: TINY_WORLD_AS_OF });
    assert.equal(engine.isBuilt(), true);
    const v = engine.links.urlMetrics('example.com')!.v;
    assert.equal(v.RefDomains, 2);
    assert.equal(v.IndexedURLs, 2);
    const page = engine.links.backlinks('example.com')!;
    assert.equal(page.meta.available_links, 2);
    assert.equal(page.links.length, 2);
    assert.ok(page.links[0].ls >= page.links[1].ls);
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
