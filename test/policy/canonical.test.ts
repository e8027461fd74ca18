/**
 * Properties of the request cache key: requests that mean the same share a key, requests
 * that mean something else do not.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cacheKey, canonicalParams } from '../../src/policy/canonical.js';

const RUNS = 400;

/** Parameter values as validation hands them over: strings, numbers, booleans, arrays of strings. */
const paramValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }),
);
const params = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), paramValue, { maxKeys: 6 });

/** The same object with its keys in another order. */
function shuffled<T extends Record<string, unknown>>(obj: T, seed: number): T {
  const keys = Object.keys(obj);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = (seed + i * 7919) % (i + 1);
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  // No prototype, as in canonicalParams: a generated "__proto__" member must stay a member.
  const out: Record<string, unknown> = Object.create(null);
  for (const k of keys) out[k] = obj[k];
  return out as T;
}

/** Visible text without leading/trailing whitespace and without whitespace runs inside. */
const keywordText = fc.array(fc.stringMatching(/^[a-z0-9äöüéß-]{1,8}$/), { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));
const whitespace = fc.array(fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000'), { minLength: 1, maxLength: 3 }).map((w) => w.join(''));

describe('canonicalParams', () => {
  test('is idempotent', () => {
    fc.assert(
      fc.property(params, (p) => {
        const once = canonicalParams(p);
        assert.deepEqual(canonicalParams(once), once);
      }),
      { numRuns: RUNS },
    );
  });

  test('key order does not change the key', () => {
    fc.assert(
      fc.property(params, fc.nat(), fc.constantFrom('GET /keyword-tool/trends', 'GET /serp-tool/serps'), (p, seed, op) => {
        assert.equal(cacheKey(op, shuffled(p, seed)), cacheKey(op, p));
      }),
      { numRuns: RUNS },
    );
  });

  test('surrounding and repeated whitespace in keyword text does not change the key', () => {
    fc.assert(
      fc.property(keywordText, whitespace, whitespace, whitespace, fc.integer({ min: 0, max: 3000 }), (kw, lead, trail, inner, loc) => {
        const messy = lead + kw.split(' ').join(inner) + trail;
        assert.equal(
          cacheKey('GET /keyword-tool/related-keywords', { kw: messy, location_id: loc }),
          cacheKey('GET /keyword-tool/related-keywords', { location_id: loc, kw }),
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('undefined members are the same as absent ones', () => {
    fc.assert(
      fc.property(params, fc.string({ minLength: 1, maxLength: 8 }), (p, extra) => {
        fc.pre(!(extra in p));
        assert.equal(cacheKey('op', { ...p, [extra]: undefined }), cacheKey('op', p));
      }),
      { numRuns: RUNS },
    );
  });

  test('different keywords give different keys', () => {
    fc.assert(
      fc.property(keywordText, keywordText, (a, b) => {
        fc.pre(a !== b);
        assert.notEqual(cacheKey('GET /keyword-tool/trends', { kw: a }), cacheKey('GET /keyword-tool/trends', { kw: b }));
      }),
      { numRuns: RUNS },
    );
  });

  test('different values of any parameter, or different operations, give different keys', () => {
    fc.assert(
      fc.property(params, fc.string({ minLength: 1, maxLength: 8 }), paramValue, paramValue, (p, name, a, b) => {
        fc.pre(JSON.stringify(canonicalParams(a)) !== JSON.stringify(canonicalParams(b)));
        assert.notEqual(cacheKey('op', { ...p, [name]: a }), cacheKey('op', { ...p, [name]: b }));
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(params, (p) => {
        assert.notEqual(cacheKey('GET /a', p), cacheKey('GET /b', p));
      }),
      { numRuns: 100 },
    );
  });

  test('members named like Object.prototype members are ordinary members', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const a = JSON.parse(`{"${name}": {"x": 1}, "kw": "a"}`);
      const b = JSON.parse(`{"${name}": {"x": 2}, "kw": "a"}`);
      assert.notEqual(cacheKey('op', a), cacheKey('op', b), name);
      assert.notEqual(cacheKey('op', a), cacheKey('op', { kw: 'a' }), name);
    }
  });

  test('a number and its text are different parameters', () => {
    assert.notEqual(cacheKey('op', { location_id: 2840 }), cacheKey('op', { location_id: '2840' }));
  });

  test('nested objects and arrays are canonical too, array order is kept', () => {
    assert.equal(cacheKey('op', { filter: { b: 1, a: '  x  y ' }, ids: [' a', 'b '] }), cacheKey('op', { ids: ['a', 'b'], filter: { a: 'x y', b: 1 } }));
    assert.notEqual(cacheKey('op', { ids: ['a', 'b'] }), cacheKey('op', { ids: ['b', 'a'] }));
  });
});
