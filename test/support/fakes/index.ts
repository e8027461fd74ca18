/**
 * Local fakes of the upstream providers, for tests and benchmarks (never the internet).
 *
 * - `startFakeUpstream(options?)` (upstream.ts): a bare HTTP stand-in: `script(...answers)`
 *   answers the next requests in order, `setDefault(answer | (req) => answer)` after that,
 *   `requests` records each request (method, URL, headers, body); an answer may `hang` (a
 *   timeout), carry `headers` (Retry-After) or a `raw` body; `latencyMs` delays every answer.
 * - `coffeeWeb()` (linkWeb.ts): the facts the link fakes share — item figures under
 *   Majestic's names, Moz-style authority per URL/domain, backlinks, a new/lost calendar and
 *   organic competitors of a few coffee domains (wikipedia.org, starbucks.com, peets.com).
 *   Edit the object a test got to add domains.
 * - `startFakeMajestic(web, apiKey)`, `startFakeMoz(web, token)`,
 *   `startFakeDataForSeoBacklinks(web, login, password)`: each answers about `web` in its
 *   provider's documented format (see each file for its sources) and rejects wrong
 *   credentials as the provider does. Each is a FakeUpstream: `script()` an error body, a
 *   429 or a hang before the default answers; `requests` counts the calls.
 * - `coffeeKeywords()` (keywordWeb.ts): Google Ads figures of the coffee web's keywords (bucketed
 *   volumes: "cold brew coffee maker" 1,900 with months averaging 1,983), each seed's ideas and
 *   each domain's ranking keywords; `startFakeDataForSeo({ keywords, links }, login, password)`
 *   (dataForSeoKeywords.ts) answers DataForSEO's Keywords Data and Labs ranked_keywords about
 *   them, and its Backlinks API about the link web, as one DataForSEO account.
 * - `linkProviderEnv(...)`, `keywordProviderEnv(...)`: the environment that points Quarry at running fakes.
 *
 * @example
 * const web = coffeeWeb();
 * const majestic = await startFakeMajestic(web, 'mj-key');
 * const moz = await startFakeMoz(web, 'bW96LWlkOm1vei1zZWNyZXQ=');
 * const t = await testApp({ env: linkProviderEnv({ majestic, moz }) });
 * // … GET /link-tool/url-metrics?url=starbucks.com → CitationFlow 71, from majestic
 * majestic.script(majesticError('InvalidAPIKey', 'Invalid API key'));
 */
import type { FakeUpstream } from './upstream.js';

export { startFakeUpstream, type FakeUpstream, type Answer, type Recorded, type FakeUpstreamOptions } from './upstream.js';
export { coffeeWeb, linksTo, fakeRoot, type FakeLinkWeb, type FakeItem, type FakeLink, type FakeAuthority } from './linkWeb.js';
export { startFakeMajestic, majesticError, majesticAnswer, type FakeMajestic } from './majestic.js';
export { startFakeMoz, mozAnswer } from './moz.js';
export { startFakeDataForSeoBacklinks, dataForSeoBacklinksAnswer, dfsError, FAKE_DFS_COST } from './dataForSeoBacklinks.js';
export { coffeeKeywords, months, type FakeKeywordWeb, type FakeKeyword, type FakeRanking, type FakeMonth } from './keywordWeb.js';
export { startFakeDataForSeo, dataForSeoKeywordsAnswer, FAKE_KEYWORDS_COST, labsCost } from './dataForSeoKeywords.js';

/** Credentials the fakes are started with by `linkProviderEnv`'s callers. */
export const FAKE_MAJESTIC_KEY = 'mj-test-key';
/** base64 of `mozscape-test:moz-secret`, as Moz issues tokens. */
export const FAKE_MOZ_TOKEN = Buffer.from('mozscape-test:moz-secret').toString('base64');
export const FAKE_DFS_LOGIN = 'login@example.test';
export const FAKE_DFS_PASSWORD = 'secret';

/**
 * Environment variables that make Quarry's link index and authority come from running fakes
 * (retries without waiting, a short deadline). Give the Majestic or DataForSEO fake for links
 * and the Moz or DataForSEO fake for authority.
 */
// A local fake answers in milliseconds, but on a loaded 2-core machine (load 30) a call has taken
// over 1.5 s: a deadline that short made a call time out and be retried (a batch bought twice),
// so these deadlines only catch a hung call. Tests of the timeout itself use a fake that hangs
// and a short deadline of their own.
export function linkProviderEnv(fakes: { majestic?: FakeUpstream; moz?: FakeUpstream; dataforseo?: FakeUpstream }): Record<string, string> {
  const env: Record<string, string> = { QUARRY_SOURCE_BACKOFF_MS: '0', QUARRY_SOURCE_RETRIES: '2', QUARRY_SOURCE_TIMEOUT_MS: '20000' };
  if (fakes.majestic) Object.assign(env, { QUARRY_LINK_SOURCE: 'majestic', QUARRY_MAJESTIC_KEY: FAKE_MAJESTIC_KEY, QUARRY_MAJESTIC_URL: fakes.majestic.url });
  else if (fakes.dataforseo) env.QUARRY_LINK_SOURCE = 'dataforseo';
  if (fakes.moz) Object.assign(env, { QUARRY_AUTHORITY_SOURCE: 'moz', QUARRY_MOZ_TOKEN: FAKE_MOZ_TOKEN, QUARRY_MOZ_URL: fakes.moz.url });
  else if (fakes.dataforseo) env.QUARRY_AUTHORITY_SOURCE = 'dataforseo';
  if (fakes.dataforseo) {
    Object.assign(env, { QUARRY_DATAFORSEO_LOGIN: FAKE_DFS_LOGIN, QUARRY_DATAFORSEO_PASSWORD: FAKE_DFS_PASSWORD, QUARRY_DATAFORSEO_URL: fakes.dataforseo.url });
  }
  return env;
}
export { coffeeSerpApiPage, COFFEE_TOP } from './serpApiCoffee.js';

/** Environment variables that make keyword figures come from a running DataForSEO fake (startFakeDataForSeo). */
export function keywordProviderEnv(dataforseo: FakeUpstream): Record<string, string> {
  return {
    QUARRY_SOURCE_BACKOFF_MS: '0',
    QUARRY_SOURCE_RETRIES: '2',
    QUARRY_SOURCE_TIMEOUT_MS: '20000',
    QUARRY_KEYWORD_SOURCE: 'dataforseo',
    QUARRY_DATAFORSEO_LOGIN: FAKE_DFS_LOGIN,
    QUARRY_DATAFORSEO_PASSWORD: FAKE_DFS_PASSWORD,
    QUARRY_DATAFORSEO_URL: dataforseo.url,
  };
}
