/**
 * No import cycles under src/ (a rule of the house): every module can be read, loaded and
 * tested below the ones that use it, and a class is never met half-defined because the
 * module that declares it was still loading when another one extended it. And no module
 * imports the composition layer above it (the commands and what they start), a loop between
 * layers that no file-level cycle shows.
 *
 * Hand-written rather than eslint-plugin-import's `no-cycle`: that plugin is not among the
 * project's packages, and this needs nothing more than the TypeScript compiler already here.
 * `ts.preProcessFile` lists a file's imports as written (value and `import type` alike,
 * `export … from`, and `import()` — a lazy import still ties the two modules), without
 * type-checking, so the walk over all of src stays short (2.7 s at a load of 20 on 2 cores).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../src');

/** Every TypeScript file under `dir`, as paths relative to it with '/' separators. */
function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/**
 * Each file's imports of other files of the set: relative specifiers only (packages cannot
 * import back), `./x.js` resolved to `x.ts` as NodeNext resolution does.
 */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const resolved = path.posix.join(path.posix.dirname(file), fileName);
      const candidates = [resolved.replace(/\.js$/, '.ts'), resolved.replace(/\.js$/, '.tsx'), `${resolved}.ts`, `${resolved}/index.ts`];
      const target = candidates.find((c) => files.has(c));
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The import cycles of a graph: each strongly connected set of two files or more, or a file importing itself (Tarjan). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || graph.get(file)?.includes(file)) cycles.push(members.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** One line per cycle, with the imports that close it, for the failure message. */
function describeCycle(graph: ReadonlyMap<string, readonly string[]>, members: readonly string[]): string {
  const inside = new Set(members);
  const edges = members.flatMap((from) => (graph.get(from) ?? []).filter((to) => inside.has(to)).map((to) => `${from} -> ${to}`));
  return `cycle of ${members.length}: ${edges.join(', ')}`;
}

let srcGraphRead: Map<string, string[]> | undefined;
/** The import graph of src/, read once for the tests below. */
function srcGraph(): Map<string, string[]> {
  if (srcGraphRead) return srcGraphRead;
  const files = new Map(sourceFiles(SRC).map((f) => [f, fs.readFileSync(path.join(SRC, f), 'utf8')]));
  assert.ok(files.size > 100, `read ${files.size} files under ${SRC}`);
  srcGraphRead = importGraph(files);
  return srcGraphRead;
}

/**
 * The top layer: the commands (main.ts, cli/), the processes they start (serve.ts, the
 * worker's handlers in workers.ts) and the service they build (service.ts). It composes
 * every layer below, so a lower module importing it closes a loop between layers.
 */
const COMPOSITION = /^(main|serve|service|workers)\.ts$|^cli\//;

describe('import cycles', () => {
  test('the walk finds a cycle closed by a type import, an export-from or a lazy import', () => {
    const files = new Map([
      ['a/one.ts', "import { two } from './two.js';\nexport const one = two + 1;"],
      ['a/two.ts', "import type { Three } from '../b/three.js';\nexport const two = 2;"],
      ['b/three.ts', "export type { One } from '../a/four.js';\nexport type Three = number;"],
      ['a/four.ts', "export type One = typeof import('./one.js');\nimport('./two.js');"],
      ['c/self.ts', "import { self } from './self.js';\nexport const x = self;"],
      ['c/leaf.ts', "import { one } from '../a/one.js';\nimport fs from 'node:fs';"],
    ]);
    const graph = importGraph(files);
    assert.deepEqual(importCycles(graph).sort(), [['a/four.ts', 'a/one.ts', 'a/two.ts', 'b/three.ts'], ['c/self.ts']]);
  });

  test('no file under src/ imports itself, directly or through others', () => {
    const graph = srcGraph();
    const cycles = importCycles(graph);
    assert.deepEqual(
      cycles.map((c) => describeCycle(graph, c)),
      [],
      'break each cycle: move the shared piece to a lower module, or pass it in from the composition layer',
    );
  });

  test('no module below the composition layer (commands, serve, service, workers) imports it', () => {
    const upward = [...srcGraph()].flatMap(([from, to]) => (COMPOSITION.test(from) ? [] : to.filter((t) => COMPOSITION.test(t)).map((t) => `${from} -> ${t}`)));
    assert.deepEqual(upward, [], 'move the entry point up to cli/, or pass what it needs in from there');
  });
});
