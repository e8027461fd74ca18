/** Helpers of the incremental link metrics tests: two copies of the tiny world, link CSVs, metric comparison. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { openResearchStore } from '../../src/engine/researchStore.js';
import { copyTinyWorld } from './world.js';

/** Every stored metric, link score and flag and root history (ranks compared within the write tolerance). */
export function assertSameMetrics(a: SqliteDatabase.Database, b: SqliteDatabase.Database): void {
  for (const query of [
    'SELECT * FROM entity_metrics ORDER BY level, entity_id',
    'SELECT id, score, strength, best_root, best_host, best_url FROM links ORDER BY id',
    'SELECT * FROM root_history ORDER BY root_domain_id',
  ]) {
    const x = a.prepare(query).raw().all() as unknown[][];
    const y = b.prepare(query).raw().all() as unknown[][];
    assert.equal(x.length, y.length, query);
    for (let i = 0; i < x.length; i++) {
      for (let j = 0; j < x[i].length; j++) {
        const [u, v] = [x[i][j], y[i][j]];
        if (typeof u === 'number' && typeof v === 'number' && !Number.isInteger(u)) {
          assert.ok(Math.abs(u - v) <= 3e-3 * Math.max(Math.abs(u), Math.abs(v)), `${query}: row ${x[i].slice(0, 2).join('/')} column ${j}: ${u} vs ${v}`);
        } else {
          assert.equal(u, v, `${query}: row ${x[i].slice(0, 2).join('/')} column ${j}`);
        }
      }
    }
  }
}

export interface Row {
  source: number;
  newSource: boolean;
  target: number;
  anchor: number;
  nofollow: boolean;
  month: number;
}

export function csv(rows: Row[], urls: string[]): string {
  const lines = ['Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen'];
  for (const r of rows) {
    const source = r.newSource ? `https://new-${r.source % 7}.example.org/p${r.source}` : urls[r.source % urls.length];
    lines.push(`${source},${urls[r.target % urls.length]},anchor ${r.anchor},${r.nofollow},2025-${String(r.month).padStart(2, '0')}-01,2026-11-20`);
  }
  return lines.join('\n');
}

export async function withTwoCopies(fn: (a: SqliteDatabase.Database, b: SqliteDatabase.Database, dir: string, urls: string[]) => Promise<void>): Promise<void> {
  const fileA = await copyTinyWorld(1);
  const dir = path.dirname(fileA);
  const fileB = path.join(dir, 'second.db');
  fs.copyFileSync(fileA, fileB);
  const a = await openResearchStore(fileA);
  const b = await openResearchStore(fileB);
  try {
    const urls = a.raw.prepare('SELECT url FROM pages ORDER BY id').pluck().all() as string[];
    await fn(a.raw, b.raw, dir, urls);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
