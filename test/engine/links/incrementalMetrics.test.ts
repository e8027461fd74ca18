import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { recomputeLinkMetrics } from '../../../src/engine/links/recomputeLinkMetrics.js';
import { currentRankEdges } from '../../../src/engine/links/rankEdgeCache.js';
import { loadRankEdges } from '../../../src/engine/links/graphLoader.js';
import { TINY_WORLD_AS_OF } from '../../support/world.js';
import { assertConsistentMetrics, assertMetricsClose, csv, withTwoCopies } from '../../support/linkMetricsCompare.js';

type Store = Parameters<typeof importLinksCsv>[1]['store'];

test('an incremental update gives the metrics of a full recompute and reads far fewer links for one link', async () => {
  await withTwoCopies(async (a, b, dir, urls) => {
    const file = path.join(dir, 'one.csv');
    // A page of an ordinary blog (a link into the giant wiki touches most of the tiny world's links).
    const target = a
      .prepare("SELECT p.id FROM pages p JOIN root_domains r ON r.id = p.root_domain_id WHERE r.kind = 'blog' ORDER BY p.id LIMIT 1")
      .pluck()
      .get() as number;
    fs.writeFileSync(file, csv([{ source: target + 5000, newSource: false, target: target - 1, anchor: 1, nofollow: false, month: 5 }], urls));
    const result = await importLinksCsv(file, { store: { raw: a } as Store, asOf: TINY_WORLD_AS_OF });
    assert.equal(result.metrics?.mode, 'incremental');
    const total = a.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;
    assert.ok(result.metrics!.linksRead < total / 20, `read ${result.metrics!.linksRead} of ${total} links`);
    assert.ok(result.metrics!.pageRankIterations < 30, `warm start took ${result.metrics!.pageRankIterations} iterations`);
    await importLinksCsv(file, { store: { raw: b } as Store, asOf: TINY_WORLD_AS_OF, fullRecompute: true });
    assertMetricsClose(a, b);
    assertConsistentMetrics(a);
    assert.equal(a.prepare('SELECT COUNT(*) FROM link_changes').pluck().get(), 0, 'the change log is emptied');
  });
});

test('new, updated, lost and revived links: the counters and histories of a full recompute, the scores within its tolerance', async () => {
  await withTwoCopies(async (a, b, dir, urls) => {
    // Links between pages of every kind of domain, then the same links again, some lost, some nofollow, one revived.
    const pick = (n: number) => urls[(n * 7919) % urls.length];
    const header = 'Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen,Lost';
    const first = [header];
    const second = [header];
    for (let i = 0; i < 30; i++) {
      const source = i % 5 === 0 ? `https://www.fresh-${i % 3}.edu/p${i}` : pick(i);
      const target = pick(i + 1000);
      first.push(`${source},${target},anchor ${i % 4},${i % 6 === 0},2025-0${1 + (i % 9)}-01,2026-10-01,`);
      second.push(`${source},${target},anchor ${i % 4},${i % 4 === 0},2025-0${1 + (i % 9)}-01,2026-11-20,${i % 3 === 0 ? '2026-11-01' : ''}`);
    }
    // An existing link of the world is lost, and a lost one comes back.
    const existing = a
      .prepare(
        `SELECT s.url, t.url, l.anchor, l.deleted FROM links l JOIN pages s ON s.id = l.source_page_id JOIN pages t ON t.id = l.target_page_id
         WHERE l.internal = 0 AND l.anchor NOT LIKE '%,%' AND l.anchor NOT LIKE '%"%' ORDER BY l.id LIMIT 400`,
      )
      .raw()
      .all() as [string, string, string, number][];
    const live = existing.find((l) => l[3] === 0)!;
    const lost = existing.find((l) => l[3] === 1);
    second.push(`${live[0]},${live[1]},${live[2]},false,2024-01-01,2026-11-20,2026-11-10`);
    if (lost) second.push(`${lost[0]},${lost[1]},${lost[2]},false,2024-01-01,2026-11-21,`);
    const [one, two] = ['first.csv', 'second.csv'].map((name) => path.join(dir, name));
    fs.writeFileSync(one, first.join('\n'));
    fs.writeFileSync(two, second.join('\n'));
    for (const file of [one, two]) {
      const result = await importLinksCsv(file, { store: { raw: a } as Store, asOf: TINY_WORLD_AS_OF });
      assert.equal(result.metrics?.mode, 'incremental');
      await importLinksCsv(file, { store: { raw: b } as Store, asOf: TINY_WORLD_AS_OF, fullRecompute: true });
    }
    assertMetricsClose(a, b);
    assertConsistentMetrics(a);
    assertConsistentMetrics(b);
    // The second update started from the rank edges the first one cached: they are the table's.
    const pageCount = a.prepare('SELECT COUNT(*) FROM pages').pluck().get() as number;
    const pairs = (edges: { source: Int32Array; target: Int32Array }) =>
      Array.from(edges.source, (s, i) => s * pageCount + edges.target[i]).sort((x, y) => x - y);
    assert.deepEqual(pairs(currentRankEdges(a, [], pageCount)), pairs(loadRankEdges(a)));
  });
});

test('metrics as of another day fall back to the full recompute', async () => {
  await withTwoCopies(async (a, _b, dir, urls) => {
    const file = path.join(dir, 'one.csv');
    fs.writeFileSync(file, csv([{ source: 1, newSource: false, target: 2, anchor: 1, nofollow: false, month: 5 }], urls));
    const result = await importLinksCsv(file, { store: { raw: a } as never, asOf: TINY_WORLD_AS_OF + 86_400_000 });
    assert.equal(result.metrics?.mode, 'full');
    recomputeLinkMetrics(a, TINY_WORLD_AS_OF + 86_400_000);
  });
});
