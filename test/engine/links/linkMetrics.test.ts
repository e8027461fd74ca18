import { test } from 'node:test';
import assert from 'node:assert/strict';
import SqliteDatabase from 'better-sqlite3';
import { computeLinkMetrics } from '../../../src/engine/links/linkMetrics.js';
import type { LinkGraphInput } from '../../../src/engine/links/linkGraphInput.js';
import { tinyWorldFile } from '../../support/world.js';

/**
 * A hand-made web: 4 trusted .edu/.gov-like roots, 4 link-farm roots linking among
 * themselves, and two ordinary one-page sites X and Y. X gets one link from each
 * trusted homepage, Y one from each farm homepage: the same number of links.
 */
function trustVersusFarm(): { input: LinkGraphInput; x: number; y: number } {
  const roots = 10; // 0–3 trusted, 4–7 farms, 8 = X, 9 = Y (one page and one host each)
  const links: [number, number][] = [];
  for (let t = 0; t < 4; t++) links.push([t, 8]);
  for (let f = 4; f < 8; f++) {
    links.push([f, 9]);
    for (let g = 4; g < 8; g++) if (g !== f) links.push([f, g]);
  }
  const n = links.length;
  const ids = Int32Array.from({ length: roots }, (_, i) => i);
  const input: LinkGraphInput = {
    asOfDay: 20_000,
    pageCount: roots,
    pageHost: ids,
    pageRoot: ids,
    pageIsHome: new Uint8Array(roots).fill(1),
    pageShares: new Int32Array(roots),
    pagePublished: new Int32Array(roots).fill(17_000),
    hostCount: roots,
    hostRoot: ids,
    hostIp: ids,
    hostSubnet: ids,
    rootCount: roots,
    rootTrusted: Uint8Array.from([1, 1, 1, 1, 0, 0, 0, 0, 0, 0]),
    rootEdu: new Uint8Array(roots),
    rootGov: new Uint8Array(roots),
    linkCount: n,
    linkSource: Int32Array.from(links.map((l) => l[0])),
    linkTarget: Int32Array.from(links.map((l) => l[1])),
    linkType: new Uint8Array(n),
    linkNofollow: new Uint8Array(n),
    linkHttps: new Uint8Array(n),
    linkDeleted: new Uint8Array(n),
    linkFirstDay: new Int32Array(n).fill(18_000),
    linkEndDay: new Int32Array(n).fill(20_000),
  };
  return { input, x: 8, y: 9 };
}

test('a page linked from trusted seeds has higher TrustFlow than one with as many farm links', () => {
  const { input, x, y } = trustVersusFarm();
  const m = computeLinkMetrics(input);
  assert.equal(m.roots.counters.ref_domains[x], m.roots.counters.ref_domains[y]);
  assert.ok(m.pages.trustFlow[x] > m.pages.trustFlow[y], `${m.pages.trustFlow[x]} > ${m.pages.trustFlow[y]}`);
  assert.equal(m.pages.trustFlow[y], 0);
  assert.ok(m.roots.authority[x] > m.roots.authority[y]);
  assert.ok(m.roots.topRank[x] < m.roots.topRank[y]);
});

test('on the tiny world, flows are 0–100 and rise with PageRank and TrustRank', async () => {
  const db = new SqliteDatabase(await tinyWorldFile(1), { readonly: true });
  for (const level of [0, 1, 2]) {
    const rows = db.prepare('SELECT pagerank, trustrank, citation_flow, trust_flow, authority FROM entity_metrics WHERE level = ?').all(level) as {
      pagerank: number;
      trustrank: number;
      citation_flow: number;
      trust_flow: number;
      authority: number;
    }[];
    for (const r of rows) {
      for (const v of [r.citation_flow, r.trust_flow, r.authority]) assert.ok(v >= 0 && v <= 100 && Number.isInteger(v));
    }
    const byPr = [...rows].sort((a, b) => a.pagerank - b.pagerank);
    for (let i = 1; i < byPr.length; i++) assert.ok(byPr[i].citation_flow >= byPr[i - 1].citation_flow, `CF monotonic at level ${level}`);
    const byTr = [...rows].sort((a, b) => a.trustrank - b.trustrank);
    for (let i = 1; i < byTr.length; i++) assert.ok(byTr[i].trust_flow >= byTr[i - 1].trust_flow, `TF monotonic at level ${level}`);
    assert.ok(byPr.at(-1)!.citation_flow === 100);
  }
  const sum = db.prepare('SELECT SUM(pagerank) FROM entity_metrics WHERE level = 0').pluck().get() as number;
  assert.ok(Math.abs(sum - 1) < 1e-9);
  // Link farms carry (almost) no trust; .edu/.gov carry much.
  const tf = (kind: string): number =>
    db
      .prepare(`SELECT AVG(m.trust_flow) FROM entity_metrics m JOIN root_domains r ON r.id = m.entity_id WHERE m.level = 2 AND r.kind = ?`)
      .pluck()
      .get(kind) as number;
  assert.ok(tf('farm') < 5);
  assert.ok(tf('edu') > tf('blog') && tf('gov') > tf('farm'));
  // TopRank is a permutation 1..N ordered by authority.
  const ranks = db.prepare('SELECT m.top_rank, m.authority FROM entity_metrics m WHERE m.level = 2 ORDER BY m.top_rank').all() as {
    top_rank: number;
    authority: number;
  }[];
  ranks.forEach((r, i) => assert.equal(r.top_rank, i + 1));
  for (let i = 1; i < ranks.length; i++) assert.ok(ranks[i].authority <= ranks[i - 1].authority);
  db.close();
});
