/**
 * The streamed answers' pacing (http/streamed.ts): between two items of a bulk answer the
 * event loop turns, so the requests of other accounts are answered in between.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slices, turns } from '../../src/http/streamed.js';

/** How many callbacks queued with setImmediate ran before each item arrived. */
async function turnsBefore<T>(items: AsyncIterable<T>): Promise<number[]> {
  let ran = 0;
  let going = true;
  const tick = () => {
    ran++;
    if (going) setImmediate(tick);
  };
  setImmediate(tick);
  const seen: number[] = [];
  for await (const _ of items) seen.push(ran);
  going = false;
  return seen;
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe('streamed answers', () => {
  test('turns: the event loop turns before every item but the first', async () => {
    const seen = await turnsBefore(turns(fromArray([1, 2, 3, 4])));
    assert.equal(seen[0], 0, 'the first item comes at once');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `a turn before item ${i}`);
    // Without it, a source that never waits delivers everything in one turn.
    assert.deepEqual(await turnsBefore(fromArray([1, 2, 3, 4])), [0, 0, 0, 0]);
  });

  test('slices: every slice after the first in a turn of its own, all items in order', async () => {
    const items = Array.from({ length: 250 }, (_, i) => i);
    const got: number[][] = [];
    for await (const s of slices(items)) got.push(s);
    assert.deepEqual(got.flat(), items);
    assert.deepEqual(
      got.map((s) => s.length),
      [100, 100, 50],
    );
    const seen = await turnsBefore(slices(items));
    assert.ok(seen[1] > seen[0] && seen[2] > seen[1]);
  });
});
