/** Research ids in the API: 24 lowercase hex digits, whatever the size of the id. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hexId, parseHexId } from '../../../src/engine/links/targets.js';

test('hexId writes 24 lowercase hex digits of the id, below and above 2^32, and parseHexId reads it back', () => {
  for (const id of [1, 255, 256, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x1_0000_0000, Number.MAX_SAFE_INTEGER]) {
    assert.equal(hexId(id), id.toString(16).padStart(24, '0'), String(id));
  }
  fc.assert(
    fc.property(fc.oneof(fc.integer({ min: 1, max: 0xffffffff }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })), (id) => {
      const text = hexId(id);
      assert.match(text, /^[0-9a-f]{24}$/);
      assert.equal(text, id.toString(16).padStart(24, '0'));
      assert.equal(parseHexId(text), id);
    }),
  );
});
