/**
 * LiveResearch (src/engine/live/liveResearch.ts) on plain objects: leases keep a replaced set
 * open until the last one is released, views answer from the set of the running scope, and
 * `follow` binds methods to the object they belong to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { follow, LiveResearch, type LoadedSet } from '../../../src/engine/live/liveResearch.js';

class Counter {
  #n: number;
  constructor(n: number) {
    this.#n = n;
  }
  value(): number {
    return this.#n;
  }
}

interface FakeSet extends LoadedSet {
  counter: Counter;
  closed: boolean;
}

function fakeSet(generation: number): FakeSet {
  const set: FakeSet = {
    file: 'research.db',
    ino: 1,
    generation,
    counter: new Counter(generation),
    closed: false,
    close: async () => {
      set.closed = true;
    },
  };
  return set;
}

test('a replaced set stays open while a lease holds it and closes at the last release', async () => {
  const first = fakeSet(1);
  const live = new LiveResearch(first);
  const a = live.lease();
  const b = live.lease();
  live.swap(fakeSet(2));
  assert.equal(live.current.generation, 2);
  assert.equal(live.draining, 1);
  a.release();
  a.release(); // twice counts once
  assert.equal(first.closed, false);
  b.release();
  await live.drained();
  assert.equal(first.closed, true);
  assert.equal(live.draining, 0);
});

test('a set nobody uses closes at the swap; close() closes the current and the draining ones', async () => {
  const first = fakeSet(1);
  const live = new LiveResearch(first);
  const second = fakeSet(2);
  live.swap(second);
  await live.drained();
  assert.equal(first.closed, true);
  const held = live.lease();
  const third = fakeSet(3);
  live.swap(third);
  await live.close();
  assert.deepEqual([second.closed, third.closed], [true, true]);
  held.release();
});

test('views answer from the set pinned to the running scope, across awaits, and from the current one outside', async () => {
  const live = new LiveResearch(fakeSet(1));
  const counter = live.view((set) => set.counter);
  const lease = live.lease();
  const seen = live.within(lease, async () => {
    const before = counter.value();
    live.swap(fakeSet(2));
    await new Promise((resolve) => setImmediate(resolve));
    // A method read through the view works on its own object (private fields and all).
    return [before, counter.value(), live.set.generation];
  });
  assert.deepEqual(await seen, [1, 1, 1]);
  assert.equal(counter.value(), 2);
  lease.release();
  assert.equal(await live.use(async () => counter.value()), 2);
});

test('follow reads every property at the time of the read', () => {
  let target = new Counter(1);
  const view = follow(() => target);
  assert.equal(view.value(), 1);
  target = new Counter(5);
  assert.equal(view.value(), 5);
  assert.ok('value' in view);
  assert.equal(Object.getPrototypeOf(view), Counter.prototype);
});
