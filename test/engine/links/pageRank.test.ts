import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInEdgeCsr } from '../../../src/engine/links/csrGraph.js';
import { pageRank } from '../../../src/engine/links/pageRank.js';
import { trustRank } from '../../../src/engine/links/trustRank.js';
import { flows } from '../../../src/engine/links/flows.js';

const graph = (n: number, edges: [number, number][]) =>
  buildInEdgeCsr(n, Int32Array.from(edges.map((e) => e[0])), Int32Array.from(edges.map((e) => e[1])));

const close = (actual: number, expected: number, eps = 1e-6) => assert.ok(Math.abs(actual - expected) < eps, `${actual} ≈ ${expected}`);

test('a cycle ranks every node equally', () => {
  const { ranks } = pageRank(graph(3, [[0, 1], [1, 2], [2, 0]]));
  for (const r of ranks) close(r, 1 / 3);
});

test('matches the hand-solved linear system of a small graph (d = 0.85)', () => {
  // A→B, A→C, B→C, C→A. With t = 1/3: a = 0.05 + 0.85c, b = 0.05 + 0.425a, c = 0.05 + 0.425a + 0.85b,
  // so a = 0.128625 / 0.3316875, b = 0.05 + 0.425a, c = 0.0925 + 0.78625a.
  const { ranks } = pageRank(graph(3, [[0, 1], [0, 2], [1, 2], [2, 0]]), { tolerance: 1e-14, maxIterations: 1000 });
  const a = 0.128625 / 0.3316875;
  close(ranks[0], a);
  close(ranks[1], 0.05 + 0.425 * a);
  close(ranks[2], 0.0925 + 0.78625 * a);
  close(ranks[0] + ranks[1] + ranks[2], 1, 1e-12);
});

test('dangling mass is redistributed so that ranks sum to 1', () => {
  // A→B, B has no out-links: a = 0.075 + 0.425b, b = 0.075 + 0.85a + 0.425b → b = 0.13875 / 0.21375.
  const { ranks } = pageRank(graph(2, [[0, 1]]), { tolerance: 1e-14, maxIterations: 1000 });
  const b = 0.13875 / 0.21375;
  close(ranks[1], b);
  close(ranks[0], 0.075 + 0.425 * b);
  close(ranks[0] + ranks[1], 1, 1e-12);
});

test('PageRank sums to 1 on a random graph with dangling nodes', () => {
  const edges: [number, number][] = [];
  let x = 12345;
  for (let i = 0; i < 2000; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const s = x % 300;
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    edges.push([s, x % 400]);
  }
  const { ranks } = pageRank(graph(400, edges), { tolerance: 1e-13, maxIterations: 500 });
  close(ranks.reduce((a, b) => a + b, 0), 1, 1e-9);
});

test('TrustRank flows from seeds only; a farm that links to itself gains no trust', () => {
  // 0 = seed, 1 ← seed; farm 2 ⇄ 3 and 3 → 4.
  const g = graph(5, [[0, 1], [2, 3], [3, 2], [3, 4]]);
  const { ranks } = trustRank(g, [0]);
  assert.ok(ranks[1] > 0);
  assert.equal(ranks[2], 0);
  assert.equal(ranks[4], 0);
  close(ranks.reduce((a, b) => a + b, 0), 1, 1e-9);
});

test('flows are 0–100, 0 for nodes nothing links to, monotonic in rank', () => {
  const ranks = Float64Array.from([0.05, 0.05, 0.1, 0.2, 0.6]);
  const out = flows(ranks, 0.05);
  assert.deepEqual([out[0], out[1]], [0, 0]);
  assert.equal(out[4], 100);
  for (let i = 1; i < out.length; i++) assert.ok(out[i] >= out[i - 1]);
});

test('cache-segmented iteration gives the same ranks as the plain pull iteration', () => {
  const edges: [number, number][] = [];
  let x = 99;
  for (let i = 0; i < 5000; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const s = x % 1000;
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    edges.push([s, x % 1000]);
  }
  const g = graph(1000, edges);
  const plain = pageRank(g, { tolerance: 1e-13, maxIterations: 300 });
  const segmented = pageRank(g, { tolerance: 1e-13, maxIterations: 300, segmentSize: 128 });
  for (let v = 0; v < 1000; v++) close(segmented.ranks[v], plain.ranks[v], 1e-12);
  const seeds = [1, 2, 3];
  const trusted = trustRank(g, seeds);
  const trustedSegmented = pageRank(g, { teleport: Float64Array.from({ length: 1000 }, (_, i) => (seeds.includes(i) ? 1 / 3 : 0)), tolerance: 1e-10, segmentSize: 100 });
  for (let v = 0; v < 1000; v++) close(trustedSegmented.ranks[v], trusted.ranks[v], 1e-9);
});
