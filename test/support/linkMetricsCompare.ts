/** Helpers of the incremental link metrics tests: two copies of the tiny world, link CSVs, metric comparison. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { openResearchStore } from '../../src/engine/researchStore.js';
import { bestLinkFlags } from '../../src/engine/links/linkMetrics.js';
import { linkStrength, linkStrengthValue } from '../../src/engine/links/linkStrength.js';
import { topRanks } from '../../src/engine/authority/authorityScores.js';
import { historyDocument, historyRanks, type RootHistory } from '../../src/engine/sites/siteHistory.js';
import { nearRank } from '../../src/engine/links/storedLinkMetrics.js';
import { ENTITY_METRIC_COLUMNS } from '../../src/engine/researchSchema.js';
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

const ENTITY_QUERY = 'SELECT * FROM entity_metrics ORDER BY level, entity_id';
const [PAGERANK, TRUSTRANK, CITATION_FLOW, TRUST_FLOW, AUTHORITY, TOP_RANK] = [
  'pagerank',
  'trustrank',
  'citation_flow',
  'trust_flow',
  'authority',
  'top_rank',
].map((c) => ENTITY_METRIC_COLUMNS.indexOf(c as (typeof ENTITY_METRIC_COLUMNS)[number]));

/**
 * The metrics of two stores that reached the same links by different paths (at once or in
 * parts, incrementally or by a full recompute), within the incremental update's tolerance
 * (docs/decisions.md, "Incremental link metrics"): counters and monthly history counts
 * exactly; ranks within 3e-3 (relative); CitationFlow and TrustFlow within a point (each
 * store's is one of the two integers around the exact value); authority within two (a
 * point of its own, and under a point from the flows it is made of). TopRank, link scores,
 * flags and history documents follow from these: assertConsistentMetrics checks them.
 */
export function assertMetricsClose(a: SqliteDatabase.Database, b: SqliteDatabase.Database): void {
  const x = a.prepare(ENTITY_QUERY).raw().all() as number[][];
  const y = b.prepare(ENTITY_QUERY).raw().all() as number[][];
  assert.equal(x.length, y.length, 'entity rows');
  const slack = new Map([
    [CITATION_FLOW, 1],
    [TRUST_FLOW, 1],
    [AUTHORITY, 2],
  ]);
  for (let i = 0; i < x.length; i++) {
    for (let j = 0; j < x[i].length; j++) {
      const [u, v] = [x[i][j], y[i][j]];
      const where = `entity ${x[i].slice(0, 2).join('/')} ${ENTITY_METRIC_COLUMNS[j]}: ${u} vs ${v}`;
      if (j === PAGERANK || j === TRUSTRANK) assert.ok(Math.abs(u - v) <= 3e-3 * Math.max(Math.abs(u), Math.abs(v)), where);
      else if (slack.has(j)) assert.ok(Math.abs(u - v) <= slack.get(j)!, where);
      else if (j !== TOP_RANK) assert.equal(u, v, where);
    }
  }
  const histories = (db: SqliteDatabase.Database) =>
    (db.prepare('SELECT history FROM root_history ORDER BY root_domain_id').pluck().all() as string[]).map((text) => {
      const h = JSON.parse(text) as RootHistory;
      return { refDomains: h.refDomains, refIps: h.refIps, refSubnets: h.refSubnets, social: h.social };
    });
  assert.deepEqual(histories(a), histories(b), 'monthly history counts');
  assert.equal(a.prepare('SELECT COUNT(*) FROM links').pluck().get(), b.prepare('SELECT COUNT(*) FROM links').pluck().get(), 'links');
}

/**
 * What the update derives from the stored scores matches them: TopRank orders the stored
 * pda (within 1 %, nearRank); every link's score is within a point (of its 0–100 strength value) of the value its
 * source's stored flows and pda give, its strength within one; the best-link flags are
 * those of the stored scores; the history documents are those of the stored monthly
 * counts, flows, pda and TopRank (their monthly TopRanks within 1 %).
 */
export function assertConsistentMetrics(db: SqliteDatabase.Database): void {
  const level = (l: number) =>
    db
      .prepare(`SELECT citation_flow, trust_flow, authority, top_rank, ref_domains FROM entity_metrics WHERE level = ${l} ORDER BY entity_id`)
      .raw()
      .all() as number[][];
  const pages = level(0);
  const roots = level(2);
  const pda = Uint8Array.from(roots, (r) => r[2]);
  const rootCf = Uint8Array.from(roots, (r) => r[0]);
  const rootTf = Uint8Array.from(roots, (r) => r[1]);
  const topRank = topRanks(
    pda,
    rootCf,
    Int32Array.from(roots, (r) => r[4]),
  );
  roots.forEach((r, i) => assert.ok(nearRank(r[3], topRank[i]), `TopRank of root ${i + 1}: ${r[3]} for ${topRank[i]}`));

  const links = db
    .prepare(
      'SELECT id, source_page_id, source_root_id, target_root_id, target_host_id, target_page_id, nofollow, deleted, type, score, strength, best_root, best_host, best_url FROM links ORDER BY id',
    )
    .raw()
    .all() as [number, number, number, number, number, number, number, number, string, number, number, number, number, number][];
  const n = links.length;
  const score = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const [id, sp, sr, , , , nofollow, deleted, type, stored, strength] = links[i];
    const value = linkStrengthValue(pages[sp - 1][0], pages[sp - 1][1], pda[sr - 1], nofollow === 1, deleted === 1, type === 'mention');
    assert.ok(Math.abs(stored / 100 - value) < 1, `link ${id}: score ${stored} for a strength value of ${value}`);
    assert.ok(Math.abs(strength - linkStrength(value)) <= 1, `link ${id}: strength ${strength} for a strength value of ${value}`);
    score[i] = stored;
  }
  const g = { linkCount: n, linkTarget: Int32Array.from(links, (l) => l[5] - 1), rootCount: roots.length };
  const facts = { sourceRoot: Int32Array.from(links, (l) => l[2] - 1), external: Uint8Array.from(links, (l) => (l[2] !== l[3] ? 1 : 0)) };
  const hostCount = db.prepare('SELECT COUNT(*) FROM hosts').pluck().get() as number;
  const pageCount = pages.length;
  const targetRoot = Int32Array.from(links, (l) => l[3] - 1);
  const targetHost = Int32Array.from(links, (l) => l[4] - 1);
  // bestLinkFlags maps target pages to entities; give it the link's own target entity by making each link target "page" i.
  const perLink = { ...g, linkTarget: Int32Array.from({ length: n }, (_, i) => i) };
  const flagsOf = (entityOfLink: Int32Array, count: number) => bestLinkFlags(perLink, facts, score, count, entityOfLink);
  const expected = [flagsOf(targetRoot, roots.length), flagsOf(targetHost, hostCount), flagsOf(g.linkTarget, pageCount)];
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < 3; l++) assert.equal(links[i][11 + l], expected[l][i], `link ${links[i][0]}: best flag ${['root', 'host', 'url'][l]}`);
  }

  const texts = db.prepare('SELECT history FROM root_history ORDER BY root_domain_id').pluck().all() as string[];
  const parsed = texts.map((t) => JSON.parse(t) as RootHistory);
  const months = parsed[0].refDomains.length;
  const counts = {
    months,
    domains: Int32Array.from(parsed.flatMap((h) => h.refDomains)),
    ips: Int32Array.from(parsed.flatMap((h) => h.refIps)),
    subnets: Int32Array.from(parsed.flatMap((h) => h.refSubnets)),
    social: Float64Array.from(parsed.flatMap((h) => h.social)),
  };
  const ranks = historyRanks(
    counts,
    roots.length,
    pda,
    Int32Array.from(roots, (r) => r[3]),
  );
  parsed.forEach((stored, r) => {
    const { topRank: monthly, ...rest } = historyDocument(r, counts, ranks, rootCf, rootTf);
    assert.deepEqual({ ...stored, topRank: [] }, { ...rest, topRank: [] }, `history of root ${r + 1}`);
    monthly.forEach((rank, m) =>
      assert.ok(nearRank(stored.topRank[m], rank), `history of root ${r + 1}, month ${m}: TopRank ${stored.topRank[m]} for ${rank}`),
    );
  });
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
