/** Role lists of `quarry serve --roles` (the processes themselves: roles.slow.test.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_ROLES, parseRoles } from '../../src/roles.js';

describe('role lists', () => {
  test('names of api, worker and scheduler, in any case and order, with spaces; all three by default', () => {
    assert.deepEqual([...ALL_ROLES], ['api', 'worker', 'scheduler']);
    assert.deepEqual([...parseRoles('api')], ['api']);
    assert.deepEqual([...parseRoles(' Worker , api,worker')].sort(), ['api', 'worker']);
    assert.deepEqual([...parseRoles('scheduler,worker,api')].sort(), ['api', 'scheduler', 'worker']);
  });

  test('anything else is refused with the valid names: empty, unknown, other separators, hostile text', () => {
    for (const text of ['', ',', 'api,', 'web', 'api;worker', 'api worker', '__proto__', 'api\u0000', 'x'.repeat(10_000)]) {
      assert.throws(() => parseRoles(text), /api, worker, scheduler/, JSON.stringify(text.slice(0, 20)));
    }
  });
});
