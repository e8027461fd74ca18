/**
 * Link metrics and root histories computed in a worker thread while a world build writes
 * (metricsWorker.ts, issue 26): the worker answers the very metrics and history texts the
 * building thread would have computed, and the built world stores a history for every root
 * domain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite from 'better-sqlite3';
import { tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';
import { graphInput, loadAllLinks, loadEntities } from '../../../src/engine/links/graphLoader.js';
import { computeInThread, runWorker } from '../../../src/engine/links/metricsWorker.js';
import { dayNumber } from '../../../src/engine/world/dates.js';

test('the worker computes the same metrics and history texts as the calling thread', async () => {
  const raw = new BetterSqlite(await tinyWorldFile(), { readonly: true });
  try {
    const asOfDay = dayNumber(TINY_WORLD_AS_OF);
    const g = graphInput(loadEntities(raw, asOfDay), loadAllLinks(raw, asOfDay));
    const inWorker = runWorker(g);
    const [metrics, histories] = await Promise.all([inWorker.metrics, inWorker.histories]);
    const here = computeInThread(g);
    assert.equal(histories.length, g.rootCount);
    assert.deepEqual(histories, here.histories);
    assert.deepEqual(metrics, here.metrics);
    // The graph the building thread writes the links from is left whole (copied, not handed over).
    assert.equal(g.linkSource.length, g.linkCount);
  } finally {
    raw.close();
  }
});

test('a built world stores a history for every root domain', async () => {
  const raw = new BetterSqlite(await tinyWorldFile(), { readonly: true });
  try {
    const roots = raw.prepare('SELECT COUNT(*) FROM root_domains').pluck().get() as number;
    const missing = raw
      .prepare('SELECT COUNT(*) FROM root_domains r LEFT JOIN root_history h ON h.root_domain_id = r.id WHERE h.history IS NULL')
      .pluck()
      .get() as number;
    assert.ok(roots > 0);
    assert.equal(missing, 0);
    const sample = JSON.parse(raw.prepare('SELECT history FROM root_history ORDER BY root_domain_id LIMIT 1').pluck().get() as string) as { topRank: number[] };
    assert.ok(sample.topRank.length > 12);
  } finally {
    raw.close();
  }
});
