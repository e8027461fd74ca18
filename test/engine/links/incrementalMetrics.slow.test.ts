/**
 * The two-halves property over random imports (several tiny-world copies: slow, run by npm
 * run test:slow). The incremental update keeps a score while the exact value stays within a
 * point of it (docs/decisions.md), so the two paths agree within that tolerance, and each
 * one's derived metrics (TopRank, link scores and flags, histories) follow from its scores.
 */
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { TINY_WORLD_AS_OF } from '../../support/world.js';
import { assertConsistentMetrics, assertMetricsClose, csv, withTwoCopies } from '../../support/linkMetricsCompare.js';

test('property: importing links in two halves gives the same metrics as importing them at once', async () => {
  const row = fc.record({
    source: fc.nat(20_000),
    newSource: fc.boolean(),
    target: fc.nat(20_000),
    anchor: fc.nat(3),
    nofollow: fc.boolean(),
    month: fc.integer({ min: 1, max: 12 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(row, { minLength: 2, maxLength: 24 }), fc.nat(), async (rows, cut) => {
      await withTwoCopies(async (a, b, dir, urls) => {
        const split = 1 + (cut % (rows.length - 1));
        const [all, first, second] = ['all.csv', 'first.csv', 'second.csv'].map((name) => path.join(dir, name));
        fs.writeFileSync(all, csv(rows, urls));
        fs.writeFileSync(first, csv(rows.slice(0, split), urls));
        fs.writeFileSync(second, csv(rows.slice(split), urls));
        await importLinksCsv(all, { store: { raw: a } as never, asOf: TINY_WORLD_AS_OF });
        await importLinksCsv(first, { store: { raw: b } as never, asOf: TINY_WORLD_AS_OF });
        await importLinksCsv(second, { store: { raw: b } as never, asOf: TINY_WORLD_AS_OF });
        assertMetricsClose(a, b);
        assertConsistentMetrics(a);
        assertConsistentMetrics(b);
      });
    }),
    { numRuns: 4 },
  );
});
