/**
 * Keyword figures bought once for everyone (issue 24): a keyword's provider figures live in
 * the state store (provider_answers, kind `keyword-data`), not only in a process's own copy of
 * the research store. Two apps on one shared test state stand for two processes sharing a state
 * store (each with its own research copy and state-store connections; under npm run test:scale,
 * one PostgreSQL database with a pool each): a keyword the first bought is served by the second
 * with the same figures, and a keyword the provider has no data for is not asked again
 * either; and when both processes ask for a new keyword at the same moment, the second waits
 * for the first's purchase (its lease on the keyword's row) instead of buying it too. The provider is the DataForSEO fake (dataForSeoKeywords.ts: the documented Keywords
 * Data format, figures from keywordWeb.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { scrapeMetrics, sharedTestState, type SharedTestState, type TestApp } from '../../support/app.js';
import type { FakeUpstream } from '../../support/fakes/index.js';
import { until } from '../../support/processes.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { client, pace } from './helpers.js';

let real: RealMode;
let fake: FakeUpstream;
let first: TestApp;
let second: TestApp;
let state: SharedTestState;

before(async () => {
  state = await sharedTestState();
  real = await startRealMode({ keywordSource: true, world: 'none', state });
  first = real.t;
  fake = real.dataforseo!;
  second = await real.another();
});
after(async () => {
  await real.close();
  await state.close();
});

const volumeCalls = () => fake.requests.filter((r) => r.url.pathname.includes('search_volume')).length;

test('a keyword’s figures bought for one account through one process are served to another account by another process without a second purchase', async () => {
  // Two accounts: the second's request is not answered from the first's cached answer.
  const { key } = await first.account();
  const other = await second.account();
  const body = { keywords: ['cold brew coffee maker', 'qwzx plokij brew'], location_id: 2840, language_id: 1000 };
  const a = await client(first, key).post('/keyword-imports', body);
  assert.equal(a.statusCode, 200, a.body);
  assert.equal(volumeCalls(), 1);
  pace(second);
  const b = await client(second, other.key).post('/keyword-imports', body);
  assert.equal(b.statusCode, 200, b.body);
  const figures = (res: typeof a) => res.json().keywords.map((k: { kw: string; sv: number | null; cpc: number | null }) => [k.kw, k.sv, k.cpc]);
  assert.deepEqual(figures(b), figures(a));
  assert.equal(figures(a)[0][1], 1900, 'the provider’s search_volume');
  assert.equal(figures(a)[1][1], null, 'a keyword the provider has no data for');
  assert.equal(volumeCalls(), 1, 'neither keyword bought again by the second process');
});

test('two processes importing one new keyword at the same moment buy its figures once', async () => {
  const one = client(first, (await first.account()).key);
  const two = client(second, (await second.account()).key);
  pace(first);
  pace(second);
  const body = { keywords: ['iced coffee'], location_id: 2840, language_id: 1000 };
  const before = volumeCalls();
  // The fake holds its answer until the second process waits for the first's purchase (or
  // makes one of its own, which the count below then shows).
  const release = fake.hold();
  try {
    const a = one.post('/keyword-imports', body);
    await until('the first process’s purchase', () => (volumeCalls() > before ? true : undefined), 120_000, 10);
    const b = two.post('/keyword-imports', body);
    await until(
      'the second process waiting for it',
      () => (second.ctx.sources.answers.waiting > 0 || volumeCalls() > before + 1 ? true : undefined),
      120_000,
      10,
    );
    // GET /metrics of the waiting process shows the lookup waiting (the first process's shows none).
    assert.match(await scrapeMetrics(second.app), /^quarry_provider_purchase_waits 1$/m);
    assert.match(await scrapeMetrics(first.app), /^quarry_provider_purchase_waits 0$/m);
    release();
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.statusCode, 200, ra.body);
    assert.equal(rb.statusCode, 200, rb.body);
    assert.equal(volumeCalls() - before, 1, 'one purchase for both processes');
    const volume = (res: typeof ra) => res.json().keywords.map((k: { kw: string; sv: number | null }) => [k.kw, k.sv]);
    assert.deepEqual(volume(ra), [['iced coffee', 135_000]]);
    assert.deepEqual(volume(rb), volume(ra));
    assert.match(await scrapeMetrics(second.app), /^quarry_provider_purchase_waits 0$/m, 'no longer waiting');
  } finally {
    release();
  }
});
