/**
 * A bystander's latency while another account floods free operations (issue 12, item 2),
 * asserted loosely: bench:fairness measures it properly. Before the fair-use limits one
 * account's lists made a bystander's GET /keyword-tool/limits take 3.3 s median, up to 65 s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;

describe('a bystander while one account floods free operations', () => {
  before(async () => {
    t = await testApp({ env: { QUARRY_FREE_WRITES_PER_MINUTE: '120' } });
  });
  after(() => t.close());

  test('the bystander’s free calls stay well under a second at p99', async () => {
    const flooder = await t.account('agency');
    const bystander = await t.account('premium');
    const ids = Array.from({ length: 10_000 }, (_, i) => `flood-id-${i}`);
    const as = (key: string) => ({ 'x-access-token': key });
    let flooding = true;
    const statuses: number[] = [];
    const lane = async (n: number) => {
      for (let i = 0; flooding; i++) {
        const res =
          (n + i) % 3 === 0
            ? await t.app.inject({ method: 'POST', url: '/v3/keyword-tool/lists', headers: as(flooder.key), payload: { name: `f${n}-${i}`, keyword_ids: ids } })
            : (n + i) % 3 === 1
              ? await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/lists', headers: as(flooder.key) })
              : await t.app.inject({ method: 'POST', url: '/v3/keyword-tool/keywords', headers: as(flooder.key), payload: { keyword_ids: ids } });
        statuses.push(res.statusCode);
      }
    };
    const lanes = [0, 1, 2, 3].map(lane);
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      const res = await t.app.inject({ method: 'GET', url: '/v3/keyword-tool/limits', headers: as(bystander.key) });
      samples.push(performance.now() - started);
      assert.equal(res.statusCode, 200);
    }
    flooding = false;
    await Promise.all(lanes);
    samples.sort((a, b) => a - b);
    const p99 = samples[Math.ceil(0.99 * samples.length) - 1];
    assert.ok(statuses.length > 0, 'the flood ran');
    assert.ok(!statuses.some((s) => s >= 500), `no 5xx: ${[...new Set(statuses)].join(',')}`);
    assert.ok(p99 < 1_500, `bystander p99 ${p99.toFixed(0)} ms`);
  });
});
