/**
 * Keyword figures bought once for everyone (issue 24): a keyword's provider figures live in
 * the state store (provider_answers, kind `keyword-data`), not only in a process's own copy of
 * the research store. Two apps on one shared test state stand for two processes sharing a state
 * store (each with its own research copy and state-store connections; under npm run test:scale,
 * one PostgreSQL database with a pool each): a keyword the first bought is served by the second
 * with the same figures, and a keyword the provider has no data for is not asked again
 * either. The provider is the DataForSEO fake (dataForSeoKeywords.ts: the documented Keywords
 * Data format, figures from keywordWeb.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedTestState, testApp, type SharedTestState, type TestApp } from '../../support/app.js';
import {
  coffeeKeywords,
  coffeeWeb,
  FAKE_DFS_LOGIN,
  FAKE_DFS_PASSWORD,
  keywordProviderEnv,
  startFakeDataForSeo,
  type FakeUpstream,
} from '../../support/fakes/index.js';
import { client, pace } from './helpers.js';

let fake: FakeUpstream;
let first: TestApp;
let second: TestApp;
let state: SharedTestState;

before(async () => {
  fake = await startFakeDataForSeo({ keywords: coffeeKeywords(), links: coffeeWeb() }, FAKE_DFS_LOGIN, FAKE_DFS_PASSWORD);
  state = await sharedTestState();
  first = await testApp({ env: keywordProviderEnv(fake), state, world: 'none' });
  second = await testApp({ env: keywordProviderEnv(fake), state, clock: first.clock, world: 'none' });
});
after(async () => {
  await first.close();
  await second.close();
  await fake.close();
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
