import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildInEdgeCsr, tileCsr, type CsrGraph } from '../../../src/engine/links/csrGraph.js';
import { pageRank } from '../../../src/engine/links/pageRank.js';
import { trustRank } from '../../../src/engine/links/trustRank.js';
import { flows } from '../../../src/engine/links/flows.js';

const graph = (n: number, edges: [number, number][]) => buildInEdgeCsr(n, Int32Array.from(edges.map((e) => e[0])), Int32Array.from(edges.map((e) => e[1])));

const close = (actual: number, expected: number, eps = 1e-6) => assert.ok(Math.abs(actual - expected) < eps, `${actual} ≈ ${expected}`);

test('a cycle ranks every node equally', () => {
  const { ranks } = pageRank(
    graph(3, [
      [0, 1],
      [1, 2],
      [2, 0],
    ]),
  );
  for (const r of ranks) close(r, 1 / 3);
});

test('matches the hand-solved linear system of a small graph (d = 0.85)', () => {
  // A→B, A→C, B→C, C→A. With t = 1/3: a = 0.05 + 0.85c, b = 0.05 + 0.425a, c = 0.05 + 0.425a + 0.85b,
  // so a = 0.128625 / 0.3316875, b = 0.05 + 0.425a, c = 0.0925 + 0.78625a.
  const { ranks } = pageRank(
    graph(3, [
      [0, 1],
      [0, 2],
      [1, 2],
      [2, 0],
    ]),
    { tolerance: 1e-14, maxIterations: 1000 },
  );
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
  close(
    ranks.reduce((a, b) => a + b, 0),
    1,
    1e-9,
  );
});

test('TrustRank flows from seeds only; a farm that links to itself gains no trust', () => {
  // 0 = seed, 1 ← seed; farm 2 ⇄ 3 and 3 → 4.
  const g = graph(5, [
    [0, 1],
    [2, 3],
    [3, 2],
    [3, 4],
  ]);
  const { ranks } = trustRank(g, [0]);
  assert.ok(ranks[1] > 0);
  assert.equal(ranks[2], 0);
  assert.equal(ranks[4], 0);
  close(
    ranks.reduce((a, b) => a + b, 0),
    1,
    1e-9,
  );
});

test('flows are 0–100, 0 for nodes nothing links to, monotonic in rank', () => {
  const ranks = Float64Array.from([0.05, 0.05, 0.1, 0.2, 0.6]);
  const out = flows(ranks, 0.05);
  assert.deepEqual([out[0], out[1]], [0, 0]);
  assert.equal(out[4], 100);
  for (let i = 1; i < out.length; i++) assert.ok(out[i] >= out[i - 1]);
});

/** Edges of a pseudo-random graph (a linear congruential generator), listed by source. */
function randomEdges(nodes: number, count: number, seed: number): [number, number][] {
  const edges: [number, number][] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const s = x % nodes;
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    edges.push([s, x % nodes]);
  }
  return edges.sort((a, b) => a[0] - b[0]);
}

/** The textbook pull iteration over the in-edge CSR, for reference. */
function plainPull(g: CsrGraph, iterations: number, d = 0.85): Float64Array {
  const n = g.nodeCount;
  let ranks = new Float64Array(n).fill(1 / n);
  for (let it = 0; it < iterations; it++) {
    let dangling = 0;
    const contribution = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      if (g.outDegree[u] === 0) dangling += ranks[u];
      else contribution[u] = ranks[u] / g.outDegree[u];
    }
    const next = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      let sum = 0;
      for (let e = g.offsets[v]; e < g.offsets[v + 1]; e++) sum += contribution[g.sources[e]];
      next[v] = (1 - d) * (1 / n) + d * (sum + dangling * (1 / n));
    }
    ranks = next;
  }
  return ranks;
}

test('tiles hold every edge once, in the tile of its blocks, in source order', () => {
  const g = graph(1000, randomEdges(1000, 5000, 7));
  const tiles = tileCsr(g, 5);
  assert.equal(tiles.blockCount, 32);
  const expected = new Map<string, number>();
  for (let v = 0; v < 1000; v++)
    for (let e = g.offsets[v]; e < g.offsets[v + 1]; e++) expected.set(`${g.sources[e]}>${v}`, (expected.get(`${g.sources[e]}>${v}`) ?? 0) + 1);
  for (let tile = 0; tile < tiles.blockCount ** 2; tile++) {
    const targetStart = Math.floor(tile / tiles.blockCount) * 32;
    const sourceStart = (tile % tiles.blockCount) * 32;
    let previousSource = -1;
    for (let k = tiles.tileOffsets[tile]; k < tiles.tileOffsets[tile + 1]; k++) {
      const source = sourceStart + (tiles.packed[k] >>> 5);
      const key = `${source}>${targetStart + (tiles.packed[k] & 31)}`;
      assert.ok(source >= previousSource, 'source order within a tile');
      previousSource = source;
      assert.ok((expected.get(key) ?? 0) > 0, `edge ${key} once`);
      expected.set(key, expected.get(key)! - 1);
    }
  }
  assert.equal(tiles.tileOffsets[tiles.blockCount ** 2], g.edgeCount);
  assert.ok([...expected.values()].every((count) => count === 0));
});

test('the tiled iteration gives the ranks of the plain pull iteration, bit for bit, at any block size', () => {
  // 1000 nodes, some of them dangling (sources only among the first 900).
  const g = graph(
    1000,
    randomEdges(1000, 6000, 99)
      .map(([s, t]) => [s % 900, t] as [number, number])
      .sort((a, b) => a[0] - b[0]),
  );
  const reference = plainPull(g, 40);
  for (const blockBits of [3, 5, 7, 16]) {
    const { ranks } = pageRank(g, { tolerance: 0, maxIterations: 40, tiles: tileCsr(g, blockBits) });
    assert.deepEqual(ranks, reference, `blockBits ${blockBits}`);
  }
  const seeds = [1, 2, 3];
  const trusted = trustRank(g, seeds);
  const trustedSmallTiles = trustRank(g, seeds, 0.85, tileCsr(g, 4));
  assert.deepEqual(trustedSmallTiles.ranks, trusted.ranks);
  assert.equal(trustedSmallTiles.iterations, trusted.iterations);
  close(
    trusted.ranks.reduce((a, b) => a + b, 0),
    1,
    1e-9,
  );
});

test('block sizes outside 1–16 bits are refused (source and target offsets share one int32)', () => {
  const g = graph(3, [[0, 1]]);
  assert.throws(() => tileCsr(g, 17), RangeError);
  assert.throws(() => tileCsr(g, 0), RangeError);
});
