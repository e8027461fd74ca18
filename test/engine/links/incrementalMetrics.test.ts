import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { recomputeLinkMetrics } from '../../../src/engine/links/recomputeLinkMetrics.js';
import { TINY_WORLD_AS_OF } from '../../support/world.js';
import { assertSameMetrics, csv, withTwoCopies } from '../../support/linkMetricsCompare.js';

test('an incremental update gives the metrics of a full recompute and reads far fewer links for one link', async () => {
  await withTwoCopies(async (a, b, dir, urls) => {
    const file = path.join(dir, 'one.csv');
    // A page of an ordinary blog (a link into the giant wiki touches most of the tiny world's links).
    const target = a
      .prepare("SELECT p.id FROM pages p JOIN root_domains r ON r.id = p.root_domain_id WHERE r.kind = 'blog' ORDER BY p.id LIMIT 1")
      .pluck()
      .get() as number;
    fs.writeFileSync(file, csv([{ source: target + 5000, newSource: false, target: target - 1, anchor: 1, nofollow: false, month: 5 }], urls));
    const storeA = { raw: a } as Parameters<typeof importLinksCsv>[1]['store'];
    const storeB = { raw: b } as Parameters<typeof importLinksCsv>[1]['store'];
    const result = await importLinksCsv(file, { store: storeA, asOf: TINY_WORLD_AS_OF });
    assert.equal(result.metrics?.mode, 'incremental');
    const total = a.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;
    assert.ok(result.metrics!.linksRead < total / 2, `read ${result.metrics!.linksRead} of ${total} links`);
    assert.ok(result.metrics!.pageRankIterations < 30, `warm start took ${result.metrics!.pageRankIterations} iterations`);
    await importLinksCsv(file, { store: storeB, asOf: TINY_WORLD_AS_OF });
    recomputeLinkMetrics(b, TINY_WORLD_AS_OF);
    assertSameMetrics(a, b);
  });
});

test('metrics as of another day fall back to the full recompute', async () => {
  await withTwoCopies(async (a, _b, dir, urls) => {
    const file = path.join(dir, 'one.csv');
    fs.writeFileSync(file, csv([{ source: 1, newSource: false, target: 2, anchor: 1, nofollow: false, month: 5 }], urls));
    const result = await importLinksCsv(file, { store: { raw: a } as never, asOf: TINY_WORLD_AS_OF + 86_400_000 });
    assert.equal(result.metrics?.mode, 'full');
  });
});
