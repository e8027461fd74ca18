/**
 * SERP providers behind the SERP tool, the keyword tool's SERPs and rank checks, and the
 * keyword-volume provider behind keyword imports and related keywords, each against a local
 * fake of the provider answering in its documented format: the mapped SERP and keyword
 * items with our layout, CTR and metrics, authentication, retries on the rate-limit answer,
 * error bodies, a timeout, the daily budget, one call per SERP and day (and per unknown
 * keyword), and that a failed lookup charges nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { DAY } from '../../../src/lib/clock.js';
import { baseClickThroughRate } from '../../../src/engine/search/clickThroughCurve.js';
import { newClient, pace, qs, type ToolClient } from '../../tools/serp/serpClient.js';
import { startFakeUpstream, type FakeUpstream } from '../../support/fakes/upstream.js';
import { SourceError, type EngineSources } from '../../../src/engine/sources/index.js';
import { otherProcessSources } from '../../support/otherSources.js';
import { rankServices } from '../../../src/rank/rankService.js';

/** A SerpApi Google Search answer (https://serpapi.com/search-api), trimmed to what we map. */
function serpApiPage(q: string) {
  return {
    search_metadata: {
      id: 'abc',
      status: 'Success',
      google_url: `https://www.google.com/search?q=${encodeURIComponent(q)}&oq=${encodeURIComponent(q)}&num=100`,
    },
    search_information: { total_results: 1_230_000 },
    ads: [
      { position: 1, block_position: 'top', title: 'Shoes on sale', link: 'https://shop.example/sale', description: 'Cheap shoes' },
      { position: 2, block_position: 'bottom', title: 'More shoes', link: 'https://other.example/', description: 'Bottom ad' },
    ],
    answer_box: { type: 'organic_result', title: 'What are running shoes', link: 'https://en.wikipedia.org/wiki/Running_shoe', snippet: 'Shoes for running.' },
    organic_results: [
      {
        position: 1,
        title: 'Best running shoes 2024',
        link: 'https://www.runnersworld.com/gear/best-running-shoes',
        snippet: 'Our picks.',
        date: 'Jan 3, 2020',
      },
      { position: 2, title: 'Running shoe - Wikipedia', link: 'https://en.wikipedia.org/wiki/Running_shoe', snippet: 'A running shoe is...' },
      { position: 3, title: 'Nike running', link: 'https://www.nike.com/', snippet: 'Just do it.' },
      { position: 4, title: 'no link is skipped' },
    ],
    related_questions: [{ question: 'How long do running shoes last?' }, { question: 'Are running shoes good for walking?' }],
    related_searches: [{ query: 'running shoes women' }, { query: 'trail running shoes' }],
  };
}

let fake: FakeUpstream;
let fakeD: FakeUpstream;
let t: TestApp;
let c: ToolClient;
/** DataForSEO as the SERP source, over the same engine and state store as the app (one app start for both providers). */
let dfs: EngineSources;
const serps = (params: Record<string, string | number>) => c.get(`/serp-tool/serps?${qs(params)}`);

/** The app: SerpApi for SERPs, DataForSEO for keyword data. */
before(async () => {
  fake = await startFakeUpstream();
  fake.setDefault((req) => ({ json: serpApiPage(req.url.searchParams.get('q') ?? '') }));
  fakeD = await startFakeUpstream();
  fakeD.setDefault((req) =>
    req.url.pathname.startsWith('/v3/keywords_data/')
      ? { json: searchVolumeAnswer(keywordsAsked(req.url.pathname, (JSON.parse(req.body) as { keywords: string[] }[])[0].keywords)) }
      : { json: dataForSeoPage((JSON.parse(req.body) as { keyword: string }[])[0].keyword) },
  );
  const env = {
    QUARRY_SERP_SOURCE: 'serpapi',
    QUARRY_KEYWORD_SOURCE: 'dataforseo',
    QUARRY_SERPAPI_KEY: 'test-key',
    QUARRY_SERPAPI_URL: fake.url,
    QUARRY_DATAFORSEO_LOGIN: 'login@example.test',
    QUARRY_DATAFORSEO_PASSWORD: 'secret',
    QUARRY_DATAFORSEO_URL: fakeD.url,
    QUARRY_SOURCE_BACKOFF_MS: '0',
    QUARRY_SOURCE_RETRIES: '2',
    QUARRY_SOURCE_TIMEOUT_MS: '1500',
    QUARRY_SERP_DAILY_BUDGET_USD: '0.075',
  };
  t = await testApp({ env });
  c = await newClient(t);
  dfs = otherProcessSources(t, { ...env, QUARRY_SERP_SOURCE: 'dataforseo', QUARRY_SERP_COST_USD: '0.01', QUARRY_SERP_DAILY_BUDGET_USD: '5' });
});
after(async () => {
  await t.close();
  await fake.close();
  await fakeD.close();
});

describe('SerpApi as the SERP source', () => {
  test('maps organic results, ads and features onto our items; layout, CTR and source URL are ours', async () => {
    const res = await serps({ kw: 'Running Shoes', location_id: 2840 });
    assert.equal(res.statusCode, 200, res.body);
    const serp = res.json();
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.url.pathname, '/search.json');
    assert.equal(sent.url.searchParams.get('api_key'), 'test-key');
    assert.equal(sent.url.searchParams.get('q'), 'running shoes');
    assert.equal(sent.url.searchParams.get('engine'), 'google');
    assert.equal(sent.url.searchParams.get('gl'), 'us');
    assert.equal(sent.url.searchParams.get('num'), '100');
    assert.equal(serp.serp_source_url, serpApiPage('running shoes').search_metadata.google_url);
    assert.equal(serp.results, 1_230_000);
    const types = serp.items.map((i: { type: string }) => i.type);
    assert.deepEqual(types, ['ADV_TOP', 'FEATURED_SNIPPET', 'ORGANIC', 'ORGANIC', 'SIMILAR_QUESTIONS', 'ORGANIC', 'ADV_BOTTOM', 'SIMILAR_QUERIES']);
    const organic = serp.items.filter((i: { type: string }) => i.type === 'ORGANIC');
    assert.deepEqual(
      organic.map((o: { position: number; url: string; domain: string }) => [o.position, o.url, o.domain]),
      [
        [1, 'https://www.runnersworld.com/gear/best-running-shoes', 'runnersworld.com'],
        [2, 'https://en.wikipedia.org/wiki/Running_shoe', 'wikipedia.org'],
        [3, 'https://www.nike.com/', 'nike.com'],
      ],
    );
    // Our CTR curve under the two features above the first result.
    assert.ok(organic[0].ctr < baseClickThroughRate(1) && organic[0].ctr > 0);
    assert.deepEqual(
      serp.ctr,
      organic.map((o: { ctr: number }) => o.ctr),
    );
    // Boxes stack top to bottom.
    for (let i = 1; i < serp.items.length; i++) assert.ok(serp.items[i].size.t > serp.items[i - 1].size.t);
    assert.equal(serp.items[0].items[0].type, 'ADV');
    assert.equal(serp.items[0].items[0].url, 'https://shop.example/sale');
    const questions = serp.items.find((i: { type: string }) => i.type === 'SIMILAR_QUESTIONS');
    assert.deepEqual(
      questions.items.map((q: { title: string }) => q.title),
      ['How long do running shoes last?', 'Are running shoes good for walking?'],
    );
    assert.match(questions.items[0].mId, /^[0-9a-f]{32}$/);
    assert.equal(serp.serp_results, 3);
    assert.match(serp.serp_snapshot_id, /^[0-9a-f]{32}\.\d{4}-\d{2}-\d{2}(\.sch)?$/);
  });

  test('one provider call per SERP and day, whoever asks and through which tool', async () => {
    const before = fake.requests.length;
    pace(t);
    const other = await newClient(t);
    const res = await other.get(`/serp-tool/serps?${qs({ kw: 'running shoes', location_id: 2840 })}`);
    assert.equal(res.statusCode, 200);
    pace(t);
    const detail = await c.get(`/keyword-tool/serps?${qs({ kw: 'running shoes', location_id: 2840 })}`);
    assert.equal(detail.statusCode, 200, detail.body);
    const body = detail.json();
    assert.ok(body.serpFeatures.includes('FEATURED_SNIPPET'));
    // The first result shows a date over six months old.
    assert.equal(body.kwOpps.isOutdatedPage, true);
    assert.equal(fake.requests.length, before, 'no second call the same day');
  });

  test('retries its rate-limit answer with backoff, then answers', async () => {
    const before = fake.requests.length;
    fake.script(
      { status: 429, json: { error: 'Your account has exceeded the hourly searches limit.' } },
      { status: 503, json: { error: 'Service unavailable' } },
    );
    pace(t);
    const res = await serps({ kw: 'trail shoes', location_id: 2840 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(fake.requests.length - before, 3);
  });

  test('an error body fails the lookup with 424 and charges nothing', async () => {
    pace(t);
    const charged = (await c.pool('serps')).remaining;
    const before = fake.requests.length;
    fake.script({ status: 401, json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } });
    const res = await serps({ kw: 'wrong key', location_id: 2840 });
    assert.equal(res.statusCode, 424, res.body);
    assert.equal(res.json().error.type, 'UpstreamError');
    assert.match(res.json().error.message, /Invalid API key/);
    assert.equal(fake.requests.length - before, 1, 'a wrong key is not retried');
    assert.equal((await c.pool('serps')).remaining, charged);
    // Nothing was cached either: the next try calls the provider again.
    pace(t);
    assert.equal((await serps({ kw: 'wrong key', location_id: 2840 })).statusCode, 200);
  });

  test('rate limited past the retries, or out of searches: 424, nothing charged', async () => {
    pace(t);
    const charged = (await c.pool('serps')).remaining;
    const limited = { status: 429, json: { error: 'Your account has exceeded the hourly searches limit.' } };
    fake.script(limited, limited, limited);
    const res = await serps({ kw: 'limited shoes', location_id: 2840 });
    assert.equal(res.statusCode, 424);
    assert.match(res.json().error.message, /rate-limited/);
    const before = fake.requests.length;
    fake.script({ status: 429, json: { error: 'Your account has run out of searches.' } });
    pace(t);
    assert.equal((await serps({ kw: 'limited shoes', location_id: 2840 })).statusCode, 424);
    assert.equal(fake.requests.length - before, 1, 'an exhausted account is not retried');
    assert.equal((await c.pool('serps')).remaining, charged);
  });

  test('a provider that does not answer times out: 424, nothing charged', async () => {
    pace(t);
    const charged = (await c.pool('serps')).remaining;
    const before = fake.requests.length;
    fake.script({ hang: true }, { hang: true }, { hang: true });
    const res = await serps({ kw: 'slow shoes', location_id: 2840 });
    assert.equal(res.statusCode, 424);
    assert.match(res.json().error.message, /timeout/);
    assert.equal(fake.requests.length - before, 3);
    assert.equal((await c.pool('serps')).remaining, charged);
  });

  test('the daily budget stops calls until the next day; failed calls spent nothing', async () => {
    // Bought so far today: running shoes, trail shoes, wrong key (second try) = 3 × $0.015 of $0.075.
    pace(t);
    assert.equal((await serps({ kw: 'budget one', location_id: 2840 })).statusCode, 200);
    pace(t);
    assert.equal((await serps({ kw: 'budget two', location_id: 2840 })).statusCode, 200);
    const before = fake.requests.length;
    pace(t);
    const charged = (await c.pool('serps')).remaining;
    const res = await serps({ kw: 'budget three', location_id: 2840 });
    assert.equal(res.statusCode, 424);
    assert.match(res.json().error.message, /budget/);
    assert.equal(fake.requests.length, before, 'no call over budget');
    assert.equal((await c.pool('serps')).remaining, charged);
    // Held SERPs are still served.
    pace(t);
    assert.equal((await serps({ kw: 'budget one', location_id: 2840, platform_id: 1 })).statusCode, 200);
    t.clock.advance(DAY);
    assert.equal((await serps({ kw: 'budget three', location_id: 2840 })).statusCode, 200);
    assert.equal(fake.requests.length, before + 1);
  });

  test('rank checks read the provider: one call per SERP and day, no check for days it cannot fetch', async () => {
    const { checks } = rankServices(t.ctx);
    pace(t);
    const before = fake.requests.length;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v3/rank-tool/trackings',
      headers: { 'x-access-token': c.key },
      payload: { domain: 'nike.com', location_id: 2840, platform_id: 1, keywords: ['running shoes', 'rank only shoes'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    await checks.idle();
    // One call per keyword's SERP (the day moved on since 'running shoes' was bought).
    assert.equal(fake.requests.length - before, 2);
    const rows = await t.ctx.state.db.selectFrom('rank_checks').selectAll().execute();
    const today = new Date(t.clock.now()).toISOString().slice(0, 10);
    assert.deepEqual(
      rows.map((r) => [r.day, r.position]),
      [
        [today, 3],
        [today, 3],
      ],
    );
    // Two days later, without a run in between: only today is checked (a provider cannot fetch yesterday).
    t.clock.advance(2 * DAY);
    await checks.runDueChecks(t.clock.now());
    const later = await t.ctx.state.db.selectFrom('rank_checks').select('day').distinct().orderBy('day').execute();
    assert.deepEqual(
      later.map((r) => r.day),
      [today, new Date(t.clock.now()).toISOString().slice(0, 10)],
    );
    assert.equal(fake.requests.length - before, 4);
  });

  test('concurrent lookups of one new SERP by different accounts make one call', async () => {
    const before = fake.requests.length;
    const others = await Promise.all([newClient(t), newClient(t), newClient(t)]);
    const answers = await Promise.all(others.map((o) => o.get(`/serp-tool/serps?${qs({ kw: 'concurrent shoes', location_id: 2840 })}`)));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [200, 200, 200],
    );
    assert.equal(fake.requests.length - before, 1);
  });

  test('a snapshot of a held SERP is drawn from the day it was bought', async () => {
    pace(t);
    const res = await serps({ kw: 'snapshot shoes', location_id: 2840 });
    const id = res.json().serp_snapshot_id as string;
    const before = fake.requests.length;
    t.clock.advance(DAY);
    const snap = await c.get(`/serp-tool/serps/${id}/snapshot`);
    assert.equal(snap.statusCode, 200, snap.body);
    assert.equal(fake.requests.length, before, 'drawn from the held SERP');
  });

  test("a keyword's difficulty is its fetched SERP's: none before the fetch, the same in related keywords after", async () => {
    const seedOf = async () => {
      pace(t);
      const res = await (await newClient(t)).get(`/keyword-tool/related-keywords?${qs({ kw: 'hiking boots', location_id: 2840 })}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().keywords[0] as { kw: string; seo: number | null; seo_ts: number | null };
    };
    // The sandbox's ranking says nothing of the real web: no difficulty until the SERP is fetched.
    assert.equal((await seedOf()).seo, null);
    pace(t);
    const serp = (await serps({ kw: 'hiking boots', location_id: 2840 })).json();
    const seed = await seedOf();
    assert.equal(seed.seo, serp.rank);
    assert.equal(seed.seo_ts, serp.rank_updated_at);
  });
});

/** A DataForSEO Google Organic live/advanced answer (https://docs.dataforseo.com/v3/serp/google/organic/live/advanced/). */
function dataForSeoPage(keyword: string, cost = 0.002) {
  return {
    version: '0.1.20240801',
    status_code: 20000,
    status_message: 'Ok.',
    cost,
    tasks_count: 1,
    tasks_error: 0,
    tasks: [
      {
        id: '07231252-7652-0139-0000-301b3ccdda6f',
        status_code: 20000,
        status_message: 'Ok.',
        cost,
        result: [
          {
            keyword,
            check_url: `https://www.google.de/search?q=${encodeURIComponent(keyword)}&hl=de&gl=DE`,
            se_results_count: 5_000,
            items: [
              { type: 'paid', rank_group: 1, rank_absolute: 1, title: 'Ad one', url: 'https://ads.example/one', description: 'An ad' },
              { type: 'paid', rank_group: 2, rank_absolute: 2, title: 'Ad two', url: 'https://ads.example/two', description: 'Another' },
              { type: 'local_pack', rank_group: 1, rank_absolute: 3, title: 'Laufladen Berlin', url: 'https://laufladen.example/', description: 'Shop' },
              { type: 'local_pack', rank_group: 2, rank_absolute: 4, title: 'Sport Shop', url: null, description: null },
              {
                type: 'organic',
                rank_group: 1,
                rank_absolute: 5,
                title: 'Laufschuhe Test',
                url: 'https://www.test.example/laufschuhe',
                description: 'Testsieger',
                timestamp: '2026-10-01 10:00:00 +00:00',
              },
              {
                type: 'people_also_ask',
                rank_group: 1,
                rank_absolute: 6,
                items: [{ type: 'people_also_ask_element', title: 'Welche Laufschuhe sind die besten?' }],
              },
              { type: 'organic', rank_group: 2, rank_absolute: 7, title: 'Laufschuhe kaufen', url: 'https://shop.example.de/laufschuhe', description: null },
              { type: 'some_new_feature', rank_group: 1, rank_absolute: 8 },
              { type: 'related_searches', rank_group: 1, rank_absolute: 9, items: ['laufschuhe damen', 'laufschuhe herren'] },
            ],
          },
        ],
      },
    ],
  };
}

/** The keywords a Keywords Data answer is about: the ones sent, or a seed's ideas (keywords_for_keywords: the seed and two ideas). */
function keywordsAsked(path: string, sent: string[]): string[] {
  return path.endsWith('/keywords_for_keywords/live') ? [sent[0], `${sent[0]} review`, `${sent[0]} pro`, 'zzunrelated idea'] : sent;
}

/**
 * A DataForSEO Keywords Data search-volume answer
 * (https://docs.dataforseo.com/v3/keywords_data/google_ads/search_volume/live/): the fake
 * knows keywords starting with "zz" and leaves others out, as Google Ads does for keywords
 * without data.
 */
function searchVolumeAnswer(keywords: string[]) {
  const months = Array.from({ length: 12 }, (_, i) => {
    const m = new Date(Date.UTC(2025, 10 + i, 1));
    return { year: m.getUTCFullYear(), month: m.getUTCMonth() + 1, search_volume: 1000 + 100 * i };
  });
  return {
    status_code: 20000,
    status_message: 'Ok.',
    cost: 0.05,
    tasks: [
      {
        status_code: 20000,
        status_message: 'Ok.',
        result: keywords
          .filter((k) => k.startsWith('zz'))
          .map((keyword) => ({
            keyword,
            location_code: 2840,
            language_code: 'en',
            competition: 'MEDIUM',
            competition_index: 40,
            search_volume: 1550,
            low_top_of_page_bid: 1.2,
            high_top_of_page_bid: 3.8,
            cpc: 2.5,
            monthly_searches: months.slice().reverse(),
          })),
      },
    ],
  };
}

describe('DataForSEO as the SERP and keyword source', () => {
  const dfsSerp = (kw: string, locationId: number, platform: 1 | 2 = 1) => dfs.serp.serp({ kw, locationId, platform, page: 0 });

  test('sends a task with Basic authentication and maps elements in page order', async () => {
    const serp = await dfsSerp('laufschuhe', 2276, 2);
    const sent = fakeD.requests.at(-1)!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.url.pathname, '/v3/serp/google/organic/live/advanced');
    assert.equal(sent.headers.authorization, `Basic ${Buffer.from('login@example.test:secret').toString('base64')}`);
    assert.deepEqual(JSON.parse(sent.body), [{ keyword: 'laufschuhe', location_code: 2276, language_code: 'de', device: 'mobile', depth: 100 }]);
    assert.deepEqual(
      serp.items.map((i) => i.type),
      ['ADV_TOP', 'LOCAL_PACK', 'ORGANIC', 'SIMILAR_QUESTIONS', 'ORGANIC', 'SIMILAR_QUERIES'],
    );
    assert.equal(serp.items[0].items.length, 2);
    assert.deepEqual(
      serp.items[1].items.map((m) => [m.type, m.title]),
      [
        ['PLACE', 'Laufladen Berlin'],
        ['PLACE', 'Sport Shop'],
      ],
    );
    assert.equal(serp.serp_source_url, 'https://www.google.de/search?q=laufschuhe&hl=de&gl=DE');
    assert.equal(serp.results, 5_000);
    assert.equal(serp.platform_id, 2);
    // The spend is settled at the answer's cost, not the reservation.
    const spend = await t.ctx.state.db.selectFrom('provider_spend').selectAll().where('provider', '=', 'dataforseo').executeTakeFirstOrThrow();
    assert.equal(Math.round(spend.spent * 1e6) / 1e6, 0.002);
    assert.equal(spend.calls, 1);
  });

  test('its rate-limit status inside a 200 is retried; "no results" is an empty SERP', async () => {
    const before = fakeD.requests.length;
    fakeD.script({ json: { version: '0.1', status_code: 40202, status_message: 'Rate limit per minute exceeded.', cost: 0, tasks: [] } });
    await dfsSerp('rate limited', 2276);
    assert.equal(fakeD.requests.length - before, 2);
    fakeD.script({
      json: { status_code: 20000, status_message: 'Ok.', cost: 0.002, tasks: [{ status_code: 40102, status_message: 'No Search Results.', result: null }] },
    });
    assert.equal((await dfsSerp('qwxzv nothing', 2276)).serp_results, 0);
  });

  test('its error bodies fail the lookup, are not retried and spend nothing', async () => {
    const before = fakeD.requests.length;
    fakeD.script({ status: 401, json: { status_code: 40100, status_message: 'You are not authorized to access this resource.' } });
    await assert.rejects(dfsSerp('unauthorised', 2276), (e: unknown) => e instanceof SourceError && /not authorized/.test(e.message));
    fakeD.script({
      json: { status_code: 20000, status_message: 'Ok.', cost: 0, tasks: [{ status_code: 40501, status_message: 'Invalid Field: location_code.' }] },
    });
    await assert.rejects(dfs.serp.keywordDetail({ kw: 'bad task', locationId: 2276 }), SourceError);
    assert.equal(fakeD.requests.length - before, 2);
    const spend = await t.ctx.state.db.selectFrom('provider_spend').selectAll().where('provider', '=', 'dataforseo').executeTakeFirstOrThrow();
    assert.equal(spend.calls, 3, 'failed calls are refunded from the budget');
  });

  test("keywords the sandbox lacks get the provider's volume, CPC, competition and months, once", async () => {
    const imports = (keywords: string[]) =>
      t.app.inject({
        method: 'POST',
        url: '/v3/keyword-tool/keyword-imports',
        headers: { 'x-access-token': c.key },
        payload: { keywords, location_id: 2840, language_id: 1000 },
      });
    t.clock.advance(31_000);
    const before = fakeD.requests.length;
    const res = await imports(['zzq quarry widget', 'qqz no data keyword']);
    assert.equal(res.statusCode, 200, res.body);
    const sent = fakeD.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].url.pathname, '/v3/keywords_data/google_ads/search_volume/live');
    // One task with both keywords, in whatever order the shared purchase (leases per keyword) lists them.
    const [task] = JSON.parse(sent[0].body) as [{ keywords: string[] }];
    assert.deepEqual(
      { ...task, keywords: [...task.keywords].sort() },
      { keywords: ['qqz no data keyword', 'zzq quarry widget'], location_code: 2840, language_code: 'en' },
    );
    const item = res.json().keywords.find((k: { kw: string }) => k.kw === 'zzq quarry widget');
    assert.equal(item.cpc, 2.5);
    assert.equal(item.ppc, 40);
    assert.equal(item.sv, 1550);
    assert.deepEqual(item.msv.at(-1), [2026, 10, 2100]);
    // Both are known now: the one with data in the catalogue, the other as "none" for the day.
    t.clock.advance(31_000);
    assert.equal((await imports(['zzq quarry widget', 'qqz no data keyword'])).statusCode, 200);
    pace(t);
    const related = await c.get(`/keyword-tool/related-keywords?${qs({ kw: 'zzq quarry widget', location_id: 2840, language_id: 1000 })}`);
    assert.equal(related.statusCode, 200, related.body);
    assert.equal(related.json().keywords[0].sv, 1550);
    assert.equal(related.json().source, 'dataforseo');
    // The seed's neighbours are the provider's ideas, asked once and stored.
    assert.equal(fakeD.requests.length, before + 2);
    const ideas = fakeD.requests.at(-1)!;
    assert.equal(ideas.url.pathname, '/v3/keywords_data/google_ads/keywords_for_keywords/live');
    assert.deepEqual(JSON.parse(ideas.body), [{ keywords: ['zzq quarry widget'], location_code: 2840, language_code: 'en' }]);
    const related_ = related.json().keywords.map((k: { kw: string }) => k.kw);
    assert.ok(related_.includes('zzq quarry widget review') && related_.includes('zzq quarry widget pro'), JSON.stringify(related_.slice(0, 20)));
    pace(t);
    assert.equal((await c.get(`/keyword-tool/related-keywords?${qs({ kw: 'zzq quarry widget', location_id: 2840, language_id: 1000 })}`)).statusCode, 200);
    assert.equal(fakeD.requests.length, before + 2);
    // Settled at the answers' cost (0.05 each): these two calls and the ideas of the seed an earlier
    // test looked up (in real mode related keywords are the provider's ideas, whatever the seed).
    const spend = await t.ctx.state.db.selectFrom('provider_spend').selectAll().where('provider', '=', 'dataforseo-keywords').executeTakeFirstOrThrow();
    assert.equal(spend.calls, 3);
    assert.equal(Math.round(spend.spent * 1e6) / 1e6, 0.15);
  });

  test('a keyword provider failure answers 424 and charges nothing', async () => {
    t.clock.advance(31_000);
    const charged = (await c.pool('related-keywords')).remaining;
    fakeD.script({ status: 402, json: { status_code: 40200, status_message: 'Payment Required.' } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v3/keyword-tool/keyword-imports',
      headers: { 'x-access-token': c.key },
      payload: { keywords: ['zzz another'], location_id: 2840, language_id: 1000 },
    });
    assert.equal(res.statusCode, 424, res.body);
    assert.equal((await c.pool('related-keywords')).remaining, charged);
  });
});
