/** Plans: the defaults of DESIGN.md §3 and the operator's plans file. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PLANS, loadPlans, PlanFileError } from '../../src/policy/plans.js';
import { POOLS } from '../../src/policy/pools.js';

let dir: string;
let n = 0;

function planFile(content: unknown): string {
  const file = path.join(dir, `plans-${++n}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('default plans', () => {
  test('no plans file: the defaults of the design', () => {
    const plans = loadPlans(null);
    assert.deepEqual(Object.keys(plans).sort(), ['agency', 'api-pro', 'basic', 'custom', 'entry', 'premium']);
    const table: [string, number, number, number, number, number, number, boolean][] = [
      // plan, daily pools, sp-overview, links, rk rows, ck rows, tracked, gap pages
      ['entry', 100, 20, 100_000, 200, 200, 200, false],
      ['basic', 100, 20, 100_000, 200, 200, 200, false],
      ['premium', 500, 70, 500_000, 700, 700, 700, true],
      ['agency', 1200, 150, 1_200_000, 1200, 1000, 1500, true],
      ['api-pro', 2000, 300, 2_000_000, 2000, 1000, 2000, true],
    ];
    for (const [name, daily, overview, links, rk, ck, tracked, gap] of table) {
      const p = plans[name];
      for (const pool of POOLS) {
        const expected = pool === 'sp-overview' ? overview : pool === 'links' ? links : daily;
        assert.equal(p.pools[pool], expected, `${name} ${pool}`);
      }
      assert.equal(p.relatedKeywordsRows, rk, name);
      assert.equal(p.competitorKeywordsRows, ck, name);
      assert.equal(p.trackedKeywords, tracked, name);
      assert.equal(p.gapPagination, gap, name);
      assert.equal(p.reqsPerShortPeriod, 3, name);
      assert.deepEqual(p.burstWindowMs, { api: 30_000, web: 1_000, mcp: 1_000 }, name);
      assert.equal(p.importCooldownMs, 30_000, name);
    }
    assert.ok(plans.custom.relatedKeywordsRows <= 10_000);
    assert.ok(plans.custom.competitorKeywordsRows <= 1_000);
  });

  test('each load is a fresh copy: changing one never changes the defaults', () => {
    const plans = loadPlans(null);
    plans.premium.pools.serps = 1;
    plans.premium.burstWindowMs.api = 1;
    assert.equal(DEFAULT_PLANS.premium.pools.serps, 500);
    assert.equal(loadPlans(null).premium.burstWindowMs.api, 30_000);
  });
});

describe('plans file', () => {
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-plans-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('overrides fields of a default plan and keeps the rest', () => {
    const plans = loadPlans(planFile({ premium: { pools: { serps: 900, links: 42 }, trackedKeywords: 50, gapPagination: false } }));
    const p = plans.premium;
    assert.equal(p.pools.serps, 900);
    assert.equal(p.pools.links, 42);
    assert.equal(p.pools['related-keywords'], 500);
    assert.equal(p.pools['sp-overview'], 70);
    assert.equal(p.trackedKeywords, 50);
    assert.equal(p.gapPagination, false);
    assert.equal(p.relatedKeywordsRows, 700);
    // Plans the file does not name keep their defaults.
    assert.deepEqual(plans.agency, DEFAULT_PLANS.agency);
  });

  test('a new plan starts from custom', () => {
    const plans = loadPlans(planFile({ internal: { reqsPerShortPeriod: 50, burstWindowMs: { api: 1000 } } }));
    const p = plans.internal;
    assert.equal(p.name, 'internal');
    assert.equal(p.reqsPerShortPeriod, 50);
    assert.deepEqual(p.burstWindowMs, { api: 1000, web: 1000, mcp: 1000 });
    assert.deepEqual(p.pools, DEFAULT_PLANS.custom.pools);
    assert.ok(plans.premium, 'the defaults are still there');
  });

  test('row limits are clamped to the contract: 10,000 and 1,000, related rows at least 200', () => {
    const high = loadPlans(planFile({ custom: { relatedKeywordsRows: 50_000, competitorKeywordsRows: 5_000 } })).custom;
    assert.equal(high.relatedKeywordsRows, 10_000);
    assert.equal(high.competitorKeywordsRows, 1_000);
    const low = loadPlans(planFile({ small: { relatedKeywordsRows: 10, competitorKeywordsRows: 10 } })).small;
    assert.equal(low.relatedKeywordsRows, 200);
    assert.equal(low.competitorKeywordsRows, 10);
    const exact = loadPlans(planFile({ edge: { relatedKeywordsRows: 10_000, competitorKeywordsRows: 1_000 } })).edge;
    assert.equal(exact.relatedKeywordsRows, 10_000);
    assert.equal(exact.competitorKeywordsRows, 1_000);
  });

  test('an empty object changes nothing', () => {
    assert.deepEqual(loadPlans(planFile({})), loadPlans(null));
  });

  const bad: [string, unknown, RegExp][] = [
    ['invalid JSON', '{"premium": {', /cannot read plans file .*plans-\d+\.json/],
    ['an array', [], /must hold a JSON object of plans/],
    ['a string', '"premium"', /must hold a JSON object of plans/],
    ['null', 'null', /must hold a JSON object of plans/],
    ['a plan that is not an object', { premium: null }, /plan premium: .*object/],
    ['a plan that is a number', { premium: 5 }, /plan premium: .*object/],
    ['an unknown pool', { premium: { pools: { searches: 5 } } }, /plan premium: unknown pool "searches"/],
    ['pools that are not an object', { premium: { pools: [5] } }, /plan premium: pools must be an object/],
    ['a negative pool size', { premium: { pools: { serps: -1 } } }, /plan premium: pools\.serps must be a non-negative integer/],
    ['a fractional pool size', { premium: { pools: { serps: 1.5 } } }, /pools\.serps must be a non-negative integer/],
    ['a pool size as text', { premium: { pools: { serps: '500' } } }, /pools\.serps must be a non-negative integer/],
    ['bad rows', { premium: { relatedKeywordsRows: 'many' } }, /plan premium: relatedKeywordsRows must be a non-negative integer/],
    ['a burst of 0', { premium: { reqsPerShortPeriod: 0 } }, /reqsPerShortPeriod must be at least 1/],
    ['a zero window', { premium: { burstWindowMs: { api: 0 } } }, /burstWindowMs\.api/],
    ['an unknown client class', { premium: { burstWindowMs: { robots: 5 } } }, /burstWindowMs\.robots/],
    ['gap pagination as text', { premium: { gapPagination: 'no' } }, /plan premium: gapPagination must be true or false/],
    ['a bad plan name', { 'Premium Plus!': {} }, /plan name "Premium Plus!" is invalid/],
  ];
  for (const [name, content, message] of bad) {
    test(`rejects ${name} with a clear error`, () => {
      const file = planFile(content);
      assert.throws(
        () => loadPlans(file),
        (err: unknown) => err instanceof PlanFileError && message.test(err.message),
      );
    });
  }

  test('rejects a file that does not exist', () => {
    assert.throws(
      () => loadPlans(path.join(dir, 'missing.json')),
      (err: unknown) => err instanceof PlanFileError && /cannot read plans file/.test(err.message),
    );
  });
});
