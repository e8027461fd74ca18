/**
 * The real answer models behind the AnswerSource seam, each against a local fake speaking
 * its provider's documented format (test/support/fakes/answerModels.ts, where each sample's
 * source is named): the requests carry the documented authentication, model and search tool;
 * mentions and citations are counted exactly from the fake answers; a 429 is retried; a 500
 * and a timeout are recorded as failed for that check, charge nothing, and the other models'
 * results stand; the daily budget; one purchase per prompt, model, location and day whoever asks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { assertReferenceShape } from '../../support/reference.js';
import type { FakeUpstream } from '../../support/fakes/upstream.js';
import {
  FAKE_GEMINI_KEY,
  FAKE_OPENAI_KEY,
  FAKE_PERPLEXITY_KEY,
  startFakeDataForSeoOverviews,
  startFakeGemini,
  startFakeOpenAi,
  startFakePerplexity,
  startFakeSerpApiOverviews,
} from '../../support/fakes/answerModels.js';
import { answerServices } from '../../../src/answers/answerService.js';
import { ANSWER_BUDGET } from '../../../src/answers/answerPurchases.js';
import { ProviderLedger } from '../../../src/engine/sources/providerLedger.js';
import { overviewSource } from '../../../src/answers/providers/overviews.js';
import { loadSourcesConfig } from '../../../src/engine/sources/sourceConfig.js';
import { utcDay } from '../../../src/store/rankTracking.js';
import { answerClient, type AnswerClient } from './helpers.js';

let t: TestApp;
let c: AnswerClient;
let openai: FakeUpstream;
let perplexity: FakeUpstream;
let gemini: FakeUpstream;
let serpapi: FakeUpstream;
const LAZY = 'which running shoes last longest?';

before(async () => {
  [openai, perplexity, gemini, serpapi] = await Promise.all([
    startFakeOpenAi(),
    startFakePerplexity(),
    startFakeGemini(),
    startFakeSerpApiOverviews('serp-key', LAZY),
  ]);
  t = await testApp({
    env: {
      QUARRY_OPENAI_API_KEY: FAKE_OPENAI_KEY,
      QUARRY_OPENAI_URL: openai.url,
      QUARRY_PERPLEXITY_API_KEY: FAKE_PERPLEXITY_KEY,
      QUARRY_PERPLEXITY_URL: perplexity.url,
      QUARRY_GEMINI_API_KEY: FAKE_GEMINI_KEY,
      QUARRY_GEMINI_URL: gemini.url,
      QUARRY_SERP_SOURCE: 'serpapi',
      QUARRY_SERPAPI_KEY: 'serp-key',
      QUARRY_SERPAPI_URL: serpapi.url,
      QUARRY_SOURCE_BACKOFF_MS: '0',
      // One retry; a deadline long enough that a loaded machine's answers are never late (the hang test waits two of them).
      QUARRY_SOURCE_RETRIES: '1',
      QUARRY_SOURCE_TIMEOUT_MS: '3000',
      QUARRY_ANSWER_DAILY_BUDGET_USD: '1',
    },
  });
  c = await answerClient(t);
});
after(async () => {
  await t.close();
  await Promise.all([openai, perplexity, gemini, serpapi].map((f) => f.close()));
});

const spent = () => new ProviderLedger(t.ctx.state.db).spend(ANSWER_BUDGET, utcDay(t.clock.now()));

/** Creates a monitor of Hoka asking the four real models one prompt, checks it, and answers the prompt's detail. */
async function check(prompt: string, client = c) {
  const res = await client.post('/monitor', {
    location_id: 2840,
    platform_id: 1,
    brand: 'Hoka',
    domain: 'hoka.com',
    models: [10, 20, 30, 40],
    prompts: [prompt],
  });
  assert.equal(res.statusCode, 201, res.body);
  const id = res.json()._id as string;
  await answerServices(t.ctx).checks.idle();
  const promptId = (await client.get(`/monitor/${id}/prompts`)).json().prompts[0]._id;
  const detail = (await client.get(`/prompt/${promptId}`)).json();
  const byModel = new Map<number, any>(detail.answers.map((a: { model_id: number }) => [a.model_id, a]));
  return { id, detail, byModel };
}

describe('the configured models', () => {
  test('are listed with their providers; Google’s AI Overviews with isSerp', async () => {
    const models = (await c.get('/models')).json().models as { id: number; provider: string; model: string; isSerp: boolean }[];
    assert.deepEqual(
      models.filter((m) => m.provider !== 'sandbox').map((m) => [m.id, m.provider, m.model, m.isSerp]),
      [
        [10, 'openai', 'gpt-4.1-mini', false],
        [20, 'perplexity', 'sonar', false],
        [30, 'gemini', 'gemini-2.5-flash', false],
        [40, 'google', 'ai-overview:serpapi', true],
      ],
    );
  });
});

describe('a check of the four real models', () => {
  let byModel: Map<number, any>;
  let id: string;
  before(async () => {
    ({ byModel, id } = await check('What are the best running shoes?'));
  });

  test('sends each provider its documented request: authentication, model, search tool, the prompt', () => {
    const o = openai.requests.at(-1)!;
    assert.equal(o.url.pathname, '/v1/responses');
    assert.equal(o.headers.authorization, `Bearer ${FAKE_OPENAI_KEY}`);
    const ob = JSON.parse(o.body);
    assert.equal(ob.model, 'gpt-4.1-mini');
    assert.equal(ob.input, 'What are the best running shoes?');
    assert.equal(ob.tools[0].type, 'web_search');
    const p = perplexity.requests.at(-1)!;
    assert.equal(p.url.pathname, '/chat/completions');
    assert.equal(p.headers.authorization, `Bearer ${FAKE_PERPLEXITY_KEY}`);
    const pb = JSON.parse(p.body);
    assert.equal(pb.model, 'sonar');
    assert.deepEqual(pb.messages, [{ role: 'user', content: 'What are the best running shoes?' }]);
    const g = gemini.requests.at(-1)!;
    assert.equal(g.url.pathname, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(g.headers['x-goog-api-key'], FAKE_GEMINI_KEY);
    assert.equal(g.headers.authorization, undefined);
    const gb = JSON.parse(g.body);
    assert.deepEqual(gb.tools, [{ google_search: {} }]);
    assert.equal(gb.contents[0].parts[0].text, 'What are the best running shoes?');
    const s = serpapi.requests.at(-1)!;
    assert.equal(s.url.pathname, '/search.json');
    assert.equal(s.url.searchParams.get('engine'), 'google');
    assert.equal(s.url.searchParams.get('q'), 'What are the best running shoes?');
    assert.equal(s.url.searchParams.get('api_key'), 'serp-key');
  });

  test('counts the mentions in the prose only: list items yes, link labels and citation titles no', () => {
    const mentions = (m: number) => byModel.get(m).mentions.map((x: { text: string }) => x.text);
    assert.deepEqual(mentions(10), ['Hoka', 'HOKA']);
    assert.deepEqual(mentions(20), ['Hoka', 'Höka', 'hoka']);
    assert.deepEqual(mentions(30), ['Hoka']);
    assert.deepEqual(mentions(40), ['Hoka', 'Hoka']);
    for (const a of byModel.values()) for (const m of a.mentions) assert.equal(a.text.slice(m.start, m.end), m.text);
  });

  test('reads the citations: url_citation annotations, search_results, grounding chunks by title, overview references', () => {
    const urls = (m: number) => byModel.get(m).citations.map((x: { url: string; domain: string | null }) => [x.url, x.domain]);
    assert.deepEqual(urls(10), [
      ['https://www.hoka.com/en/us/clifton?utm_source=chatgpt.com', 'hoka.com'],
      ['https://www.brooksrunning.com/en_us/ghost?utm_source=chatgpt.com', 'brooksrunning.com'],
      ['https://www.runnersworld.com/gear/a1/best-running-shoes/?utm_source=chatgpt.com', 'runnersworld.com'],
    ]);
    assert.equal(byModel.get(20).citations.length, 3);
    assert.equal(byModel.get(20).citations[0].title, 'Bondi 9 | HOKA');
    // Gemini's chunks are redirect links: the domain is the chunk's title, the redirect is never followed.
    assert.deepEqual(
      byModel.get(30).citations.map((x: { domain: string }) => x.domain),
      ['asics.com', 'hoka.com', 'hoka.com'],
    );
    assert.ok(byModel.get(30).citations.every((x: { url: string }) => x.url.startsWith('https://vertexaisearch.cloud.google.com/grounding-api-redirect/')));
    assert.equal(byModel.get(40).citations.length, 3);
    for (const m of [10, 20, 30, 40]) assert.equal(byModel.get(m).cites_domain, true, String(m));
    // Asics is named before Hoka in Gemini's answer: Hoka comes second.
    assert.equal(byModel.get(30).position, 2);
    assert.deepEqual(byModel.get(30).brands, [{ name: 'Asics', domain: 'asics.com', mentions: 2 }]);
    assert.equal(byModel.get(20).position, 1);
  });

  test('the dashboard adds them up per model: domain citations as distinct URLs, utm_* ignored', async () => {
    const d = (await c.get(`/monitor/${id}`)).json();
    assertReferenceShape('GET', '/answer-tool/monitor/{id}', 200, d);
    const fig = new Map<number, any>(d.models.map((m: { model_id: number }) => [m.model_id, m]));
    assert.deepEqual(
      [10, 20, 30, 40].map((m) => [fig.get(m).answers, fig.get(m).mentions, fig.get(m).mention_count, fig.get(m).domain_citations, fig.get(m).visibility]),
      [
        [1, 1, 2, 1, 100],
        [1, 1, 3, 1, 100],
        [1, 1, 1, 2, 100],
        [1, 1, 2, 1, 100],
      ],
    );
    assert.equal(fig.get(30).share_of_voice, 50);
    assert.equal(fig.get(30).average_position, 2);
    assert.deepEqual(fig.get(10).cited_urls[0], { url: 'https://www.brooksrunning.com/en_us/ghost', count: 1 });
  });

  test('each answer is bought once and charged at its price (Perplexity at the cost it reports)', async () => {
    assert.deepEqual(
      [openai, perplexity, gemini, serpapi].map((f) => f.requests.length),
      [1, 1, 1, 1],
    );
    assert.deepEqual(await spent(), { spent: 0.03 + 0.0051 + 0.04 + 0.015, calls: 4 });
  });

  test('another account asking the same prompt the same day is answered from the store: no provider call', async () => {
    const other = await answerClient(t);
    const { byModel: theirs } = await check('What are the best running shoes?', other);
    assert.deepEqual(
      [openai, perplexity, gemini, serpapi].map((f) => f.requests.length),
      [1, 1, 1, 1],
    );
    assert.equal(theirs.get(10).text, byModel.get(10).text);
  });
});

describe('provider failures', () => {
  test('a 429 is retried; a 500 and a timeout are recorded as failed, charge nothing, and the other models stand', async () => {
    const before = await spent();
    openai.script({ status: 429, json: { error: { message: 'Rate limit reached', type: 'requests' } }, headers: { 'retry-after': '0' } });
    perplexity.script(...Array.from({ length: 2 }, () => ({ status: 500, json: { error: { message: 'Internal error' } } })));
    gemini.script(...Array.from({ length: 2 }, () => ({ hang: true })));
    const counts = [openai, perplexity, gemini].map((f) => f.requests.length);
    const { byModel, id } = await check('Which trail running shoes are best?');
    assert.deepEqual(
      [openai, perplexity, gemini].map((f, i) => f.requests.length - counts[i]),
      [2, 2, 2],
    );
    assert.equal(byModel.get(10).status, 'ok');
    assert.equal(byModel.get(40).status, 'ok');
    assert.equal(byModel.get(20).status, 'failed');
    assert.match(byModel.get(20).error, /HTTP 500/);
    assert.equal(byModel.get(30).status, 'failed');
    assert.match(byModel.get(30).error, /no answer within 3000 ms/);
    assert.equal(byModel.get(30).text, '');
    // Only the two answers received are charged.
    const after = await spent();
    assert.equal(Math.round((after.spent - before.spent) * 1e6) / 1e6, 0.045);
    assert.equal(after.calls - before.calls, 2);
    const list = (await c.get('/monitors')).json().monitors.find((m: { _id: string }) => m._id === id);
    assert.equal(list.monitoring_state, 'warned');
    const d = (await c.get(`/monitor/${id}`)).json();
    assert.deepEqual(
      d.models.map((m: { model_id: number; answers: number; failed: number }) => [m.model_id, m.answers, m.failed]),
      [
        [10, 1, 0],
        [20, 0, 1],
        [30, 0, 1],
        [40, 1, 0],
      ],
    );
    // A later round asks the failed models again (no sooner than 15 minutes after).
    t.clock.advance(16 * 60_000);
    await answerServices(t.ctx).checks.runDue(t.clock.now());
    const again = (await c.get(`/monitor/${id}`)).json();
    assert.ok(again.models.every((m: { answers: number }) => m.answers === 1));
  });

  test('with the daily budget spent, paid models fail without a call and the sandbox ones still answer', async () => {
    const day = utcDay(t.clock.now());
    const ledger = new ProviderLedger(t.ctx.state.db);
    const { spent: used } = await ledger.spend(ANSWER_BUDGET, day);
    assert.ok(await ledger.reserve(ANSWER_BUDGET, day, 1 - used, 1));
    const counts = [openai, perplexity, gemini, serpapi].map((f) => f.requests.length);
    const res = await c.post('/monitor', {
      location_id: 2840,
      platform_id: 1,
      brand: 'Hoka',
      domain: 'hoka.com',
      models: [1, 10, 20],
      prompts: ['Are Hoka shoes good for walking?'],
    });
    await answerServices(t.ctx).checks.idle();
    assert.deepEqual(
      [openai, perplexity, gemini, serpapi].map((f, i) => f.requests.length - counts[i]),
      [0, 0, 0, 0],
    );
    const d = (await c.get(`/monitor/${res.json()._id}`)).json();
    assert.deepEqual(
      d.models.map((m: { model_id: number; answers: number; failed: number }) => [m.model_id, m.answers, m.failed]),
      [
        [1, 1, 0],
        [10, 0, 1],
        [20, 0, 1],
      ],
    );
    const promptId = (await c.get(`/monitor/${res.json()._id}/prompts`)).json().prompts[0]._id;
    const failed = (await c.get(`/prompt/${promptId}`)).json().answers.find((a: { model_id: number }) => a.model_id === 10);
    assert.match(failed.error, /daily budget of \$1 is spent/);
    await ledger.refund(ANSWER_BUDGET, day, 1 - used);
  });
});

describe('AI Overviews', () => {
  test('SerpApi’s lazily loaded overview is fetched with its page_token, as a second search', async () => {
    const n = serpapi.requests.length;
    const { byModel } = await check(LAZY.charAt(0).toUpperCase() + LAZY.slice(1));
    const sent = serpapi.requests.slice(n);
    assert.deepEqual(
      sent.map((r) => r.url.searchParams.get('engine')),
      ['google', 'google_ai_overview'],
    );
    assert.equal(sent[1].url.searchParams.get('page_token'), 'KIVu-nictZPdbqMwEIXfJdeQghnw');
    assert.equal(byModel.get(40).mentions.length, 2);
  });

  test('DataForSEO’s ai_overview item: its elements’ text and every reference, with its Basic authentication and the task’s cost', async () => {
    const fake = await startFakeDataForSeoOverviews('dfs@example.test', 'pw');
    try {
      const sources = loadSourcesConfig({
        QUARRY_SERP_SOURCE: 'dataforseo',
        QUARRY_DATAFORSEO_LOGIN: 'dfs@example.test',
        QUARRY_DATAFORSEO_PASSWORD: 'pw',
        QUARRY_DATAFORSEO_URL: fake.url,
      });
      const model = answerServices(t.ctx).models.find((m) => m.id === 40)!;
      const source = overviewSource(model, sources, { timeoutMs: 1000, retries: 0, backoffMs: 0 })!;
      const { answer, cost } = await source.ask({
        prompt: 'best cushioned running shoes',
        locationId: 2840,
        languageId: 1000,
        platformId: 2,
        day: '2026-11-22',
        countryCode: 'us',
        languageCode: 'en',
        canonicalLocation: null,
        engineDomain: 'google.com',
      });
      const sent = fake.requests[0];
      assert.equal(sent.url.pathname, '/v3/serp/google/organic/live/advanced');
      assert.equal(sent.headers.authorization, `Basic ${Buffer.from('dfs@example.test:pw').toString('base64')}`);
      assert.deepEqual(JSON.parse(sent.body), [
        { keyword: 'best cushioned running shoes', location_code: 2840, device: 'mobile', load_async_ai_overview: true, language_code: 'en' },
      ]);
      assert.equal(answer.text, 'Top cushioned running shoes\nHoka and Brooks lead for cushioning; Hoka is lighter.');
      assert.deepEqual(
        answer.citations.map((x) => x.domain),
        ['hoka.com', 'brooksrunning.com'],
      );
      assert.equal(cost, 0.002);
    } finally {
      await fake.close();
    }
  });
});

describe('metrics', () => {
  test('/metrics counts answers checked per provider and outcome, and answers bought', async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}"]/g, (ch) => `\\${ch}`)} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
    assert.ok(value('quarry_answer_checks_total{provider="openai",outcome="answered"}') >= 3);
    assert.ok(value('quarry_answer_checks_total{provider="perplexity",outcome="failed"}') >= 1);
    assert.ok(value('quarry_answer_checks_total{provider="gemini",outcome="failed"}') >= 1);
    assert.ok(value('quarry_answers_bought_total{provider="openai"}') >= 2);
    assert.ok(value('quarry_answers_bought_total{provider="google"}') >= 2);
  });
});
