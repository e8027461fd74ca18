import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { HISTORY_START_YEAR, keywordHistory, lastCompleteMonth, type HistoryParams } from '../../../src/engine/world/keywordHistory.js';
import { HASH32_START, hash32, hash32Extend } from '../../../src/engine/world/random.js';

test('hash32Extend continues a hash: hash32Extend(hash32(a), b) = hash32(a + b)', () => {
  assert.equal(hash32(''), HASH32_START);
  fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => hash32Extend(hash32(a), b) === hash32(a + b)));
});

/** The history as first defined: every month's noise hashed from its own built strings. */
function referenceHistory(p: HistoryParams, asOfMs: number): [number, number, number][] {
  const normal = (t: number) => ((hash32(`${p.noiseSeed}:${t}:a`) + hash32(`${p.noiseSeed}:${t}:b`) + hash32(`${p.noiseSeed}:${t}:c`)) / 4294967296 - 1.5) * 2;
  const end = lastCompleteMonth(asOfMs);
  const count = (end.year - HISTORY_START_YEAR) * 12 + end.month;
  const raw = Array.from({ length: count }, (_, t) => {
    const season = 1 + p.seasonAmplitude * Math.cos((2 * Math.PI * ((t % 12) + 1 - p.seasonPeak)) / 12);
    return Math.pow(p.trend, -(count - 1 - t) / 12) * season * Math.max(0.2, 1 + 0.08 * normal(t));
  });
  const lastYear = raw.slice(-12).reduce((s, x) => s + x, 0) / Math.min(12, count);
  const scale = lastYear > 0 ? p.volume / lastYear : 0;
  return raw.map((x, t) => [HISTORY_START_YEAR + Math.floor(t / 12), (t % 12) + 1, Math.round(x * scale)]);
}

test('keyword histories are the same numbers as the string-built derivation (API data must not drift)', () => {
  fc.assert(
    fc.property(
      fc.record({
        volume: fc.integer({ min: 0, max: 2_000_000 }),
        trend: fc.double({ min: 0.7, max: 1.4, noNaN: true }),
        seasonPeak: fc.integer({ min: 1, max: 12 }),
        seasonAmplitude: fc.double({ min: 0, max: 0.6, noNaN: true }),
        noiseSeed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      }),
      fc.integer({ min: Date.UTC(2015, 1, 1), max: Date.UTC(2030, 0, 1) }),
      (params, asOf) => {
        const full = referenceHistory(params, asOf);
        assert.deepEqual(keywordHistory(params, asOf), full);
        // The last months alone (site statistics over many keywords) are the same numbers.
        assert.deepEqual(keywordHistory(params, asOf, 12), full.slice(-12));
        assert.deepEqual(keywordHistory(params, asOf, 30), full.slice(-30));
      },
    ),
    { numRuns: 200 },
  );
});
