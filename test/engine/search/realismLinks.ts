/**
 * Link profiles an SEO would not fault (issue 27), part of the realism suite (realismSuite.ts)
 * over the tiny and small worlds: referring subnets clearly fewer than referring domains, as
 * in real link indexes, where many sites sit on the subnets of a few big hosting providers.
 * On generator v13 every referring domain had its own subnet: among sites with 20 referring
 * domains or more and some trust (TrustFlow 10+, not a farm-fed profile), the median ratio of
 * referring subnets to referring domains was 1.00 on the tiny world and 1.01 on the small one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorldSize } from '../../../src/config.js';
import type { TestSearch } from './searchWorld.js';

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
};

/** Registers the link checks over the world that `world()` opened (in the suite's `before`). */
export function linkRealismSuite(size: WorldSize, world: () => TestSearch): void {
  test(`${size}: referring subnets are clearly fewer than referring domains: median ratio 0.5–0.85, lower for big profiles`, () => {
    const rows = world()
      .store.raw.prepare(
        `SELECT m.ref_domains, m.ref_subnets FROM entity_metrics m JOIN root_domains r ON r.id = m.entity_id
          WHERE m.level = 2 AND m.ref_domains >= 20 AND m.trust_flow >= 10 AND r.kind <> 'farm'`,
      )
      .all() as { ref_domains: number; ref_subnets: number }[];
    assert.ok(rows.length >= 100, `sites with 20 referring domains or more (${rows.length})`);
    const all = median(rows.map((r) => r.ref_subnets / r.ref_domains));
    const big = rows.filter((r) => r.ref_domains >= 200);
    const bigMedian = median(big.map((r) => r.ref_subnets / r.ref_domains));
    assert.ok(all >= 0.5 && all <= 0.85, `median referring subnets / domains ${all.toFixed(2)}`);
    assert.ok(
      big.length >= 5 && bigMedian <= all,
      `sites with 200 referring domains or more (${big.length}): median ${bigMedian.toFixed(2)} against ${all.toFixed(2)}`,
    );
  });
}
