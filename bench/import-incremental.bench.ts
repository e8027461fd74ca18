/**
 * Importing links into the `small` world with the incremental metrics update vs the full
 * recompute the import used to run (issue 14): the same CSV imported into two copies of
 * the world, one updated incrementally, the other recomputed in full (both write what
 * changed: the full recompute rewrites every entity row and the links whose score or flags
 * moved). Prints each one's wall time and CPU time per stage, and the ratio full /
 * incremental for 1,000 links (the figure) and, for the shape of the cost, for 1
 * and 50 links (each on fresh copies). CPU seconds are this process's, so they hold on a
 * machine shared with other work; wall times do not.
 *
 * The links join uniformly drawn pages of the world (a fifth from new pages of new sites),
 * with crawl dates in the world's last year. Needs `.bench-data/world-small-s1.db` (npm run
 * bench:engine-world builds it); works on copies under /tmp, removed at the end.
 * Usage: tsx bench/import-incremental.bench.ts [links …, default 1 50 1000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openResearchStore } from '../src/engine/researchStore.js';
import { importLinksCsv, type LinksImportResult } from '../src/engine/import/linksImport.js';
import { Rng } from '../src/engine/world/random.js';
import { BENCH_AS_OF, smallBenchWorld } from './benchSupport.js';

const counts = process.argv.slice(2).map(Number);
if (counts.length === 0) counts.push(1, 50, 1000);
const world = smallBenchWorld();
if (!world) {
  console.error('.bench-data/world-small-*.db is missing: run npm run bench:engine-world first');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-incremental-'));

interface Run {
  result: LinksImportResult;
  wall: number;
  cpu: number;
  stages: string;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function importInto(csv: string, fullRecompute: boolean): Promise<Run> {
  const file = path.join(dir, fullRecompute ? 'full.db' : 'incremental.db');
  fs.copyFileSync(world!, file);
  const store = await openResearchStore(file);
  try {
    const stages: string[] = [];
    let stage = 'import';
    let wallMark = performance.now();
    let cpuMark = cpuNow();
    const close = (next: string) => {
      const [wall, cpu] = [performance.now(), cpuNow()];
      stages.push(`${stage} ${((wall - wallMark) / 1000).toFixed(1)}/${(cpu - cpuMark).toFixed(1)}`);
      [stage, wallMark, cpuMark] = [next, wall, cpu];
    };
    const wall0 = performance.now();
    const cpu0 = cpuNow();
    const result = await importLinksCsv(csv, { store, asOf: BENCH_AS_OF, fullRecompute, onStage: close });
    close('');
    return { result, wall: (performance.now() - wall0) / 1000, cpu: cpuNow() - cpu0, stages: stages.join(', ') };
  } finally {
    await store.close();
    fs.rmSync(file, { force: true });
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

try {
  const probe = await openResearchStore(world);
  const urls = probe.raw.prepare('SELECT url FROM pages ORDER BY id').pluck().all() as string[];
  const totalLinks = probe.raw.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;
  await probe.close();
  console.log(`world: ${urls.length.toLocaleString()} pages, ${totalLinks.toLocaleString()} links; times are wall/CPU seconds`);
  for (const count of counts) {
    const rng = new Rng(1000 + count);
    const lines = ['Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen'];
    for (let i = 0; i < count; i++) {
      const source = rng.next() < 0.2 ? `https://www.bench-new-${rng.int(0, 199)}.com/post-${i}` : urls[rng.int(0, urls.length - 1)];
      const target = urls[rng.int(0, urls.length - 1)];
      lines.push(`${source},${target},bench anchor ${rng.int(0, 20)},${rng.next() < 0.15},2026-0${rng.int(1, 9)}-15,2026-11-20`);
    }
    const csv = path.join(dir, `links-${count}.csv`);
    fs.writeFileSync(csv, lines.join('\n'));
    const incremental = await importInto(csv, false);
    const full = await importInto(csv, true);
    const m = incremental.result.metrics!;
    console.log(
      `${count} links: incremental ${incremental.wall.toFixed(1)} s wall, ${incremental.cpu.toFixed(1)} CPU-s (${incremental.stages}); mode ${m.mode}, ` +
        `${m.linksRead.toLocaleString()} links recounted or rescored, ${m.changedEntities.toLocaleString()} metric rows and ${m.changedLinks.toLocaleString()} links rewritten, ` +
        `${m.pageRankIterations} PageRank iterations`,
    );
    console.log(
      `${count} links: full recompute ${full.wall.toFixed(1)} s wall, ${full.cpu.toFixed(1)} CPU-s (${full.stages}); ${full.result.metrics!.changedLinks.toLocaleString()} links rewritten`,
    );
    console.log(
      `${count} links: ratio full / incremental ${(full.cpu / incremental.cpu).toFixed(2)} in CPU time, ${(full.wall / incremental.wall).toFixed(2)} in wall time ` +
        `(machine: ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}, shared)`,
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
