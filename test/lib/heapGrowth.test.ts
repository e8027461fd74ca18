import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../src/lib/heapGrowth.js';

test('the server bounds how far its heap grows past its live size', () => {
  assert.equal(heapGrowingFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.equal(heapGrowingFlag(['--enable-source-maps', '']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
});

test("the operator's own growing factor wins", () => {
  assert.equal(heapGrowingFlag(['--heap-growing-percent=100']), null);
  assert.equal(heapGrowingFlag(['--heap_growing_percent=20']), null);
});

test('set at run time, the factor bounds the heap: garbage kept alive across turns is collected sooner', () => {
  // Objects that live a few turns (as a streamed answer's do) reach the old space; the peak
  // heap with the factor set at run time is well under the peak without it.
  const script = `
    const v8 = require('node:v8');
    if (process.argv[1] === 'bounded') v8.setFlagsFromString('--heap-growing-percent=${HEAP_GROWING_PERCENT}');
    const live = Array.from({ length: 1e6 }, (_, i) => ({ i, s: 'l' + i }));
    let kept = []; let peak = 0;
    (async () => {
      for (let r = 0; r < 300; r++) {
        for (let i = 0; i < 20000; i++) kept.push({ i, s: 'g' + i, a: [i, i] });
        if (kept.length > 200000) kept = [];
        await new Promise((done) => setImmediate(done));
        peak = Math.max(peak, process.memoryUsage().heapTotal);
      }
      process.stdout.write(String(peak + live.length * 0));
    })();`;
  const peak = (mode: string) => Number(spawnSync(process.execPath, ['-e', script, mode], { encoding: 'utf8' }).stdout);
  const lazy = peak('lazy');
  const bounded = peak('bounded');
  assert.ok(bounded > 0 && lazy > 0);
  assert.ok(bounded < lazy * 0.75, `bounded ${bounded} vs lazy ${lazy}`);
});
