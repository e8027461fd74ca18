/**
 * The provider exchange and the sources configuration, without an app: backoff steps and
 * Retry-After, final answers not retried, hostile provider answers (not JSON, oversized,
 * wrong shapes) failing cleanly, and the environment's validation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exchange } from '../../../src/engine/sources/providerHttp.js';
import { readSerpApi, mapSerpApi } from '../../../src/engine/sources/serpApi.js';
import { keywordDataOf, mapDataForSeoSerp, readTask } from '../../../src/engine/sources/dataForSeo.js';
import { loadSourcesConfig, SourceConfigError } from '../../../src/engine/sources/sourceConfig.js';
import { SourceError } from '../../../src/engine/sources/types.js';
import { loadConfig, ConfigError } from '../../../src/config.js';
import { startFakeUpstream, type FakeUpstream } from '../../support/fakes/upstream.js';

let fake: FakeUpstream;
before(async () => {
  fake = await startFakeUpstream();
});
after(async () => fake.close());

describe('exchange', () => {
  test('backs off exponentially with jitter and honours Retry-After', async () => {
    const waits: number[] = [];
    fake.script(
      { status: 429, json: { error: 'hourly limit' }, headers: { 'retry-after': '7' } },
      { status: 429, json: { error: 'hourly limit' } },
      { status: 500, json: {} },
      { json: { ok: 1 } },
    );
    const value = await exchange(
      'serpapi',
      { url: `${fake.url}/search.json`, method: 'GET' },
      { timeoutMs: 1000, retries: 3, backoffMs: 100, sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
      (status, body) =>
        status === 200 ? { ok: true, value: body } : { ok: false, retry: status === 429 ? 'rate-limited' : 'failed', message: `HTTP ${status}` },
    );
    assert.deepEqual(value, { ok: 1 });
    // 7 s asked by the provider; then half of 200 ms and of 400 ms (jitter pinned at 0.5).
    assert.deepEqual(waits, [7000, 100, 200]);
  });

  test('a final refusal is not retried; the last reason is reported', async () => {
    const before = fake.requests.length;
    fake.script({ status: 401, json: { error: 'Invalid API key.' } });
    await assert.rejects(
      exchange('serpapi', { url: `${fake.url}/search.json`, method: 'GET' }, { timeoutMs: 1000, retries: 3, backoffMs: 0 }, readSerpApi),
      (err: unknown) => err instanceof SourceError && err.reason === 'failed' && /Invalid API key/.test(err.message),
    );
    assert.equal(fake.requests.length - before, 1);
  });

  test("answers that are not JSON, or not the provider's JSON, fail cleanly", async () => {
    fake.setDefault({ status: 200, json: 'a string, not a page' });
    await assert.rejects(exchange('serpapi', { url: `${fake.url}/x`, method: 'GET' }, { timeoutMs: 1000, retries: 1, backoffMs: 0 }, readSerpApi), SourceError);
    await assert.rejects(
      exchange('dataforseo', { url: `${fake.url}/x`, method: 'POST', body: '[]' }, { timeoutMs: 1000, retries: 1, backoffMs: 0 }, readTask),
      SourceError,
    );
  });
});

describe('mapping hostile provider JSON', () => {
  test('wrong types, missing fields and non-http links are dropped, never thrown', () => {
    const serp = mapSerpApi({
      organic_results: [{ title: 42, link: 'javascript:alert(1)' }, { title: 'ok', link: 'https://ok.example/a' }, null, 'x'],
      ads: 'not a list',
      related_questions: [{ question: '' }, { question: 'real?' }],
      knowledge_graph: [],
      search_information: { total_results: 'many' },
    });
    assert.deepEqual(
      serp.blocks.map((b) => (b.kind === 'organic' ? b.url : b.type)),
      ['https://ok.example/a', 'SIMILAR_QUESTIONS'],
    );
    assert.equal(serp.totalResults, null);
    const d = mapDataForSeoSerp(
      { items: [{ type: 'organic', rank_group: 'one', url: 'https://a.example/' }, { type: 'paid' }, 7, { type: 'related_searches', items: [1, '', 'q'] }] },
      0,
    );
    assert.deepEqual(d.blocks, [
      {
        kind: 'feature',
        type: 'SIMILAR_QUERIES',
        column: 'main',
        url: null,
        title: null,
        desc: null,
        members: [{ type: 'QUERY', url: null, title: 'q', desc: null }],
      },
    ]);
    assert.equal(keywordDataOf({ keyword: 'k', search_volume: 'lots' }), null);
    assert.deepEqual(
      keywordDataOf({
        keyword: ' Mixed  Case ',
        search_volume: 10.4,
        cpc: -1,
        competition_index: 400,
        monthly_searches: [{ year: 2026, month: 13, search_volume: 1 }],
      }),
      {
        kw: 'mixed case',
        volume: 10,
        cpc: null,
        competition: 100,
        history: [],
      },
    );
  });
});

describe('sources configuration', () => {
  test('the sandbox is the default of every capability', () => {
    const c = loadSourcesConfig({});
    assert.deepEqual([c.serp, c.keywords, c.links], ['sandbox', 'sandbox', 'sandbox']);
    assert.equal(c.serpapi, null);
    assert.equal(c.dataforseo, null);
    assert.equal(loadConfig({}).sources.serp, 'sandbox');
  });

  test('a provider needs its credentials; unknown sources and bad numbers are refused', () => {
    const refused = (env: Record<string, string>, message: RegExp) =>
      assert.throws(
        () => loadSourcesConfig(env),
        (e: unknown) => e instanceof SourceConfigError && message.test(e.message),
      );
    refused({ QUARRY_SERP_SOURCE: 'serpapi' }, /QUARRY_SERPAPI_KEY/);
    refused({ QUARRY_SERP_SOURCE: 'dataforseo', QUARRY_DATAFORSEO_LOGIN: 'x' }, /QUARRY_DATAFORSEO_PASSWORD/);
    refused({ QUARRY_KEYWORD_SOURCE: 'dataforseo' }, /QUARRY_DATAFORSEO_LOGIN/);
    refused({ QUARRY_SERP_SOURCE: 'bing' }, /must be one of sandbox, serpapi, dataforseo/);
    refused({ QUARRY_LINK_SOURCE: 'ahrefs' }, /must be one of sandbox, majestic, dataforseo/);
    refused({ QUARRY_LINK_SOURCE: 'majestic', QUARRY_AUTHORITY_SOURCE: 'moz', QUARRY_MOZ_TOKEN: 't' }, /QUARRY_MAJESTIC_KEY/);
    refused({ QUARRY_LINK_SOURCE: 'majestic', QUARRY_AUTHORITY_SOURCE: 'moz', QUARRY_MAJESTIC_KEY: 'k' }, /QUARRY_MOZ_TOKEN/);
    // Real links over the sandbox's authority (or the reverse) would mix two webs in one answer.
    refused({ QUARRY_LINK_SOURCE: 'majestic', QUARRY_MAJESTIC_KEY: 'k' }, /both name providers/);
    refused({ QUARRY_LINK_SOURCE: 'dataforseo', QUARRY_AUTHORITY_SOURCE: 'dataforseo' }, /QUARRY_DATAFORSEO_LOGIN/);
    refused({ QUARRY_SERP_DAILY_BUDGET_USD: '-1' }, /must be a number/);
    refused({ QUARRY_SOURCE_RETRIES: '99' }, /between 0 and 10/);
    refused({ QUARRY_SERPAPI_URL: 'file:///etc/passwd' }, /http\(s\) URL/);
    assert.throws(() => loadConfig({ QUARRY_SERP_SOURCE: 'serpapi' }), ConfigError);
    const c = loadSourcesConfig({ QUARRY_SERP_SOURCE: 'SerpApi', QUARRY_SERPAPI_KEY: ' k ', QUARRY_SERPAPI_URL: 'http://127.0.0.1:9/' });
    assert.deepEqual(c.serpapi, { apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    assert.equal(c.serpCost, 0.015);
  });
});
