/**
 * Bought once across real processes (issue 24): two `quarry serve --roles api` processes in
 * real mode (QUARRY_WORLD_SIZE=none, each with its own data directory: two hosts) on one
 * PostgreSQL database and one Redis, pointed at local provider fakes: SerpApi
 * (fakes/serpApiCoffee.ts, SerpApi's documented Google Search format), Majestic and Moz
 * (fakes/majestic.ts, fakes/moz.ts: their documented formats, genuine sample answers cited
 * there) and DataForSEO Keywords Data (fakes/dataForSeoKeywords.ts). Two accounts ask for the
 * same datum at the same moment, one through each process: a domain's url-metrics, a keyword's
 * figures (keyword import), a SERP. Each fake is called once for each datum, and both answers
 * carry the provider's figures.
 *
 * The overlap is made certain, not left to timing: the fake holds its answer to the first
 * purchase until the other process has looked at the row the buyer holds a lease on (its poll
 * in ProviderAnswers.waitFor, seen in PostgreSQL's pg_stat_activity: a process of its own has
 * no other window) or has called the fake itself (which the counts then show).
 *
 * Under `npm run test:scale` only (it is listed there by directory): skipped otherwise.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { unixSeconds } from '../../src/lib/clock.js';
import { closeStateContext, openStateContext, type StateContext } from '../../src/service.js';
import {
  coffeeKeywords,
  coffeeSerpApiPage,
  coffeeWeb,
  COFFEE_TOP,
  FAKE_DFS_LOGIN,
  FAKE_DFS_PASSWORD,
  keywordProviderEnv,
  linkProviderEnv,
  startFakeDataForSeo,
  startFakeMajestic,
  startFakeMoz,
  startFakeUpstream,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  type FakeMajestic,
  type FakeUpstream,
  type Recorded,
} from '../support/fakes/index.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { STARTUP_TIMEOUT_MS, until } from '../support/processes.js';
import { TEST_REDIS_URL, testRedis, testRedisPrefix } from '../support/redis.js';
import { startServe, type ServeProcess } from '../support/serveProcess.js';

type Database = Awaited<ReturnType<typeof createTestDatabase>>;

interface Answer {
  status: number;
  text: string;
  json(): any;
}

describe(
  'scale mode: a provider datum asked by two accounts through two API processes at once is bought once',
  { skip: !scaleMode && 'scale mode only (npm run test:scale)', timeout: 6 * STARTUP_TIMEOUT_MS },
  () => {
    const web = coffeeWeb();
    let majestic: FakeMajestic;
    let moz: FakeUpstream;
    let dataforseo: FakeUpstream;
    let serpapi: FakeUpstream;
    let database: Database;
    let prefix: string;
    let ctx: StateContext | undefined;
    const api: ServeProcess[] = [];
    const keys: string[] = [];

    before(async () => {
      majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY);
      moz = await startFakeMoz(web, FAKE_MOZ_TOKEN);
      dataforseo = await startFakeDataForSeo({ keywords: coffeeKeywords(), links: web }, FAKE_DFS_LOGIN, FAKE_DFS_PASSWORD);
      serpapi = await startFakeUpstream();
      serpapi.setDefault((req) => ({ json: coffeeSerpApiPage(req.url.searchParams.get('q') ?? '', 10) }));
      database = await createTestDatabase();
      prefix = testRedisPrefix();
      const env = {
        ...linkProviderEnv({ majestic, moz }),
        ...keywordProviderEnv(dataforseo),
        QUARRY_SERP_SOURCE: 'serpapi',
        QUARRY_SERPAPI_KEY: 'test-key',
        QUARRY_SERPAPI_URL: serpapi.url,
        QUARRY_DATABASE_URL: database.url,
        QUARRY_REDIS_URL: TEST_REDIS_URL,
        QUARRY_REDIS_PREFIX: prefix,
        QUARRY_GATEWAY_RPS: '100',
      };
      // One after the other: the first migrates the database, the second starts on it.
      api.push(await startServe(env, { args: ['--roles', 'api'], world: 'none' }));
      api.push(await startServe(env, { args: ['--roles', 'api'], world: 'none' }));
      ctx = await openStateContext(loadConfig(env));
      const now = unixSeconds(Date.now());
      for (const name of ['first', 'second']) {
        const account = await ctx.accounts.create(`${name}@example.test`, 'premium', now);
        keys.push((await ctx.accounts.createKey(account.id, now)).key);
      }
    });
    after(async () => {
      for (const p of api) await p.stop().catch(() => p.process.kill());
      if (ctx) await closeStateContext(ctx);
      const redis = await testRedis(prefix);
      await redis.dropKeys();
      await redis.close();
      await database?.drop();
      for (const fake of [majestic, moz, dataforseo, serpapi]) await fake?.close();
    });

    const call = async (i: 0 | 1, method: string, url: string, body?: unknown): Promise<Answer> => {
      const res = await fetch(`${api[i]!.origin}/v3${url}`, {
        method,
        headers: { 'x-access-token': keys[i]!, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, text, json: () => JSON.parse(text) };
    };

    /** Backends that have polled a provider_answers row held by another's lease since `sinceMs` (ProviderAnswers.waitFor). */
    const waitersSince = async (sinceMs: number): Promise<number> => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database()
          AND query LIKE 'select "key", "body", "fetched_ms", "claimed_ms" from "provider_answers"%'
          AND query_start >= to_timestamp(${sinceMs / 1000})`.execute(ctx!.state.db);
      return rows[0]!.n;
    };

    /**
     * Both accounts' requests at once, one through each process, with `fake` holding its
     * answers until the first purchase of the datum (`ofDatum`) has reached it and the other
     * process waits for it (or has bought it too).
     */
    async function atOnce(fake: FakeUpstream, ofDatum: (r: Recorded) => boolean, method: string, url: string, body?: unknown): Promise<[Answer, Answer]> {
      const calls = () => fake.requests.filter(ofDatum).length;
      const before = calls();
      const release = fake.hold();
      try {
        // PostgreSQL's clock and ours are the same machine's; a second's slack for its rounding.
        const sentAt = Date.now() - 1_000;
        const both = Promise.all([call(0, method, url, body), call(1, method, url, body)]);
        both.catch(() => undefined);
        await until('the first purchase of the datum', () => (calls() > before ? true : undefined), STARTUP_TIMEOUT_MS);
        await until(
          'the other process waiting for that purchase',
          async () => ((await waitersSince(sentAt)) > 0 || calls() > before + 1 ? true : undefined),
          STARTUP_TIMEOUT_MS,
        );
        release();
        const answers = await both;
        assert.equal(calls() - before, 1, `${url}: the fake called once for both processes`);
        return answers;
      } finally {
        release();
      }
    }

    test('url-metrics of starbucks.com: Majestic called once, both answers its figures', async () => {
      const asksStarbucks = (r: Recorded) =>
        r.url.searchParams.get('cmd') === 'GetIndexItemInfo' && [...r.url.searchParams].some(([k, v]) => /^item\d+$/.test(k) && v === 'starbucks.com');
      const [one, two] = await atOnce(majestic, asksStarbucks, 'GET', '/link-tool/url-metrics?url=starbucks.com');
      assert.equal(one.status, 200, one.text);
      assert.equal(two.status, 200, two.text);
      const v = one.json()[0].m.linkindex.v;
      const item = web.items['starbucks.com']!;
      assert.equal(v.Status, 'Found');
      assert.equal(v.CitationFlow, item.CitationFlow);
      assert.equal(v.TrustFlow, item.TrustFlow);
      assert.equal(v.ExtBackLinks, item.ExtBackLinks);
      assert.deepEqual(two.json()[0].m.linkindex.v, v);
    });

    test('a keyword import of "iced coffee": DataForSEO called once, both answers its search_volume', async () => {
      const asksIcedCoffee = (r: Recorded) => r.url.pathname.includes('search_volume') && r.body.includes('iced coffee');
      const body = { keywords: ['iced coffee'], location_id: 2840, language_id: 1000 };
      const [one, two] = await atOnce(dataforseo, asksIcedCoffee, 'POST', '/keyword-tool/keyword-imports', body);
      assert.equal(one.status, 200, one.text);
      assert.equal(two.status, 200, two.text);
      const figures = (a: Answer) => a.json().keywords.map((k: { kw: string; sv: number | null; cpc: number | null }) => [k.kw, k.sv, k.cpc]);
      // keywordWeb.ts: "iced coffee" 135,000 searches, CPC 0.85.
      assert.deepEqual(figures(one), [['iced coffee', 135_000, 0.85]]);
      assert.deepEqual(figures(two), figures(one));
    });

    test('the SERP of "cold brew": SerpApi called once, both answers its results', async () => {
      const asksColdBrew = (r: Recorded) => r.url.searchParams.get('q') === 'cold brew';
      const [one, two] = await atOnce(serpapi, asksColdBrew, 'GET', '/serp-tool/serps?kw=cold%20brew&location_id=2840');
      assert.equal(one.status, 200, one.text);
      assert.equal(two.status, 200, two.text);
      const organic = (a: Answer) => (a.json() as { items: { type: string; url: string }[] }).items.filter((i) => i.type === 'ORGANIC');
      assert.deepEqual(
        organic(one)
          .slice(0, 3)
          .map((i) => i.url),
        [...COFFEE_TOP],
      );
      assert.deepEqual(organic(two), organic(one));
    });
  },
);
