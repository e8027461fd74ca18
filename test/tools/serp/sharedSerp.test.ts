/**
 * A SERP bought once for everyone, also when two processes ask for it at the same moment
 * (issue 24): the buyer holds a lease on the query's `serp` row of provider_answers while it
 * buys, and another process asking meanwhile waits for that purchase instead of making its own
 * (engine/sources/providerSerp.ts). Two apps on one shared test state stand for two API
 * processes on one state store (each with its own connections; under npm run test:scale, one
 * PostgreSQL database with a pool each). The provider is a SerpApi fake (fakes/serpApiCoffee.ts:
 * SerpApi's documented Google Search format) that holds its answers until the second process
 * is waiting, so the two purchases really overlap.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedTestState, testApp, type SharedTestState, type TestApp } from '../../support/app.js';
import { coffeeSerpApiPage, startFakeUpstream, type FakeUpstream } from '../../support/fakes/index.js';
import { until } from '../../support/processes.js';
import { newClient, qs, type Res, type ToolClient } from './serpClient.js';

let serpapi: FakeUpstream;
let state: SharedTestState;
let first: TestApp;
let second: TestApp;
let a: ToolClient;
let b: ToolClient;

before(async () => {
  serpapi = await startFakeUpstream();
  serpapi.setDefault((req) => ({ json: coffeeSerpApiPage(req.url.searchParams.get('q') ?? '', 10) }));
  state = await sharedTestState();
  // A deadline that only catches a hung call (a loaded machine is slow); retries without waiting.
  const env = {
    QUARRY_SERP_SOURCE: 'serpapi',
    QUARRY_SERPAPI_KEY: 'test-key',
    QUARRY_SERPAPI_URL: serpapi.url,
    QUARRY_SOURCE_BACKOFF_MS: '0',
    QUARRY_SOURCE_RETRIES: '2',
    QUARRY_SOURCE_TIMEOUT_MS: '20000',
  };
  first = await testApp({ env, state });
  second = await testApp({ env, state, clock: first.clock });
  // Two accounts: the second's request is not answered from the first's cached answer.
  a = await newClient(first);
  b = await newClient(second);
});
after(async () => {
  await first.close();
  await second.close();
  await serpapi.close();
  await state.close();
});

/**
 * Sends the first process's lookup, then, once its purchase is in flight at the held fake, the
 * second's; lets the fake answer once the second process waits for the first's purchase (or
 * has made a purchase of its own, which the caller's assertions then show).
 */
async function overlapping(kw: string): Promise<[Res, Res]> {
  const path = `/serp-tool/serps?${qs({ kw, location_id: 2840 })}`;
  const before = serpapi.requests.length;
  const release = serpapi.hold();
  try {
    const one = a.get(path);
    await until('the first process’s purchase', () => (serpapi.requests.length > before ? true : undefined), 120_000, 10);
    const two = b.get(path);
    await until(
      'the second process waiting for it',
      () => (second.ctx.sources.answers.waiting > 0 || serpapi.requests.length > before + 1 ? true : undefined),
      120_000,
      10,
    );
    release();
    return await Promise.all([one, two]);
  } finally {
    release();
  }
}

test('two processes asking for one new SERP at the same moment make one provider call and answer the same SERP', async () => {
  const before = serpapi.requests.length;
  const [one, two] = await overlapping('cold brew');
  assert.equal(one.statusCode, 200, one.body);
  assert.equal(two.statusCode, 200, two.body);
  assert.equal(serpapi.requests.length - before, 1, 'one purchase for both processes');
  const urls = (res: Res) => (res.json() as { items: { type: string; url: string }[] }).items.filter((i) => i.type === 'ORGANIC').map((i) => i.url);
  assert.deepEqual(urls(two), urls(one));
  assert.deepEqual(urls(one).slice(0, 3), ['https://en.wikipedia.org/wiki/Coffee', 'https://www.starbucks.com/', 'https://www.peets.com/']);
});

test('when the buying process’s call fails, the waiting process buys the SERP itself: 424 for the first, the SERP for the second', async () => {
  const before = serpapi.requests.length;
  // SerpApi's answer to a wrong key (not retried): the first purchase fails and gives its lease back.
  serpapi.script({ status: 401, json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } });
  const [one, two] = await overlapping('french press');
  assert.equal(one.statusCode, 424, one.body);
  assert.equal(one.json().error.type, 'UpstreamError');
  assert.equal(two.statusCode, 200, two.body);
  assert.equal(serpapi.requests.length - before, 2, 'the failed purchase, then the second process’s');
  assert.equal(second.ctx.sources.answers.waiting, 0);
});
