/**
 * Importing 1,000 links into the `small` world with the incremental metrics update vs the
 * full recompute the import used to run (issue 14): time of each and their ratio.
 * The links join uniformly drawn pages of the world (a fifth from new pages of new sites),
 * with crawl dates in the world's last year; the full recompute runs afterwards on the same
 * store, so both compute the same metrics (the tests check that they agree).
 *
 * Needs `.bench-data/world-small-s1.db` (npm run bench:engine-world builds it); works on a
 * copy under /tmp. Usage: tsx bench/import-incremental.bench.ts [links, default 1000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openResearchStore } from '../src/engine/researchStore.js';
import { importLinksCsv } from '../src/engine/import/linksImport.js';
import { recomputeLinkMetrics } from '../src/engine/links/recomputeLinkMetrics.js';
import { Rng } from '../src/engine/world/random.js';
import { BENCH_AS_OF, smallBenchWorld } from './benchSupport.js';

const count = Number(process.argv[2] ?? 1000);
const world = smallBenchWorld();
if (!world) {
  console.error('.bench-data/world-small-*.db is missing: run npm run bench:engine-world first');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-incremental-'));
const file = path.join(dir, 'research.db');
try {
  fs.copyFileSync(world, file);
  const store = await openResearchStore(file);
  const urls = store.raw.prepare('SELECT url FROM pages ORDER BY id').pluck().all() as string[];
  const totalLinks = store.raw.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;
  const rng = new Rng(1000);
  const lines = ['Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen'];
  for (let i = 0; i < count; i++) {
    const source = rng.next() < 0.2 ? `https://www.bench-new-${rng.int(0, 199)}.com/post-${i}` : urls[rng.int(0, urls.length - 1)];
    const target = urls[rng.int(0, urls.length - 1)];
    lines.push(`${source},${target},bench anchor ${rng.int(0, 20)},${rng.next() < 0.15},2026-0${rng.int(1, 9)}-15,2026-11-20`);
  }
  const csv = path.join(dir, 'links.csv');
  fs.writeFileSync(csv, lines.join('\n'));

  const stages: [string, number][] = [];
  let t = performance.now();
  const result = await importLinksCsv(csv, {
    store,
    asOf: BENCH_AS_OF,
    onStage: (stage) => {
      const now = performance.now();
      stages.push([stage, now - t]);
      t = now;
    },
  });
  stages.push(['end', performance.now() - t]);
  const incremental = stages.reduce((sum, [, ms]) => sum + ms, 0);
  // Each entry holds the time of the stage before it.
  const breakdown = stages.slice(1).map(([, ms], i) => `${stages[i][0]} ${(ms / 1000).toFixed(2)} s`);
  console.log(
    `incremental: ${count} links (${result.created} new) into ${totalLinks.toLocaleString()} links: ${(incremental / 1000).toFixed(2)} s ` +
      `(import ${(stages[0][1] / 1000).toFixed(2)} s; ${breakdown.join(', ')}); mode ${result.metrics?.mode}, ${result.metrics?.linksRead} links read, ` +
      `${result.metrics?.changedEntities} metric rows and ${result.metrics?.changedLinks} links rewritten, ${result.metrics?.pageRankIterations} PageRank iterations`,
  );
  const fullStart = performance.now();
  recomputeLinkMetrics(store.raw, BENCH_AS_OF);
  const full = performance.now() - fullStart + stages[0][1];
  console.log(`full recompute (the import's own time plus recomputing every metric): ${(full / 1000).toFixed(2)} s`);
  console.log(`ratio full / incremental: ${(full / incremental).toFixed(2)} (machine: ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}, shared)`);
  await store.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
