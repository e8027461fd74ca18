/**
 * The real-mode fixture the route tests share (issue 24): the coffee link web (fakes/linkWeb.ts)
 * served by the fakes of the configured link and authority providers, and a test app pointed
 * at them. `links: 'majestic'` starts the Majestic and Moz fakes; `links: 'dataforseo'` one
 * DataForSEO fake answering Backlinks (link index and authority), Labs and Keywords Data as one
 * account; no `links`, no link provider. `dataforseo: true` beside Majestic starts that fake too and gives Quarry its
 * credentials (Labs' organic competitors) without making it the link source; `keywordSource:
 * true` makes it the keyword provider too.
 *
 * @example
 * const real = await startRealMode({ links: 'dataforseo' });
 * const c = await newClient(real.t);
 * // … GET /site-tool/overview?url=starbucks.com → RefIPs from the fake's referring_ips
 * await real.close();
 */
import { testApp, type SharedTestState, type TestApp } from './app.js';
import {
  coffeeKeywords,
  coffeeWeb,
  FAKE_DFS_LOGIN,
  FAKE_DFS_PASSWORD,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  keywordProviderEnv,
  linkProviderEnv,
  startFakeDataForSeo,
  startFakeMajestic,
  startFakeMoz,
  type FakeKeywordWeb,
  type FakeLinkWeb,
  type FakeMajestic,
  type FakeUpstream,
} from './fakes/index.js';

export interface RealModeOptions {
  /**
   * The link-index provider (its partner for authority: Moz beside Majestic, DataForSEO beside
   * itself); none: the sandbox's own links (a test of the keyword provider alone).
   */
  links?: 'majestic' | 'dataforseo';
  /** Beside Majestic: a DataForSEO account too (Labs competitors), not as the link source. */
  dataforseo?: boolean;
  /** Keyword figures, ideas and rankings from the DataForSEO fake too (QUARRY_KEYWORD_SOURCE=dataforseo). */
  keywordSource?: boolean;
  /** More environment (a SERP or keyword provider); wins over the fixture's. */
  env?: Record<string, string>;
  /** The sandbox world beside the providers (default `tiny`, so a leak of it can show). */
  world?: 'tiny' | 'none';
  /** A state store that outlives the app (sharedTestState), so that `restart()` finds what the app stored. */
  state?: SharedTestState;
}

export interface RealMode {
  /** The facts every fake answers from: edit it to add domains before asking. */
  web: FakeLinkWeb;
  keywords: FakeKeywordWeb;
  majestic: FakeMajestic | null;
  moz: FakeUpstream | null;
  dataforseo: FakeUpstream | null;
  t: TestApp;
  /** Closes the app and opens it again on the same state store (give `state`), clock and fakes; `t` is the new app. */
  restart(): Promise<TestApp>;
  /** Another process beside `t`: a second app on the same state store (give `state`), clock and fakes; closed by `close`. */
  another(): Promise<TestApp>;
  close(): Promise<void>;
}

export async function startRealMode(options: RealModeOptions): Promise<RealMode> {
  const web = coffeeWeb();
  const keywords = coffeeKeywords();
  const majestic = options.links === 'majestic' ? await startFakeMajestic(web, FAKE_MAJESTIC_KEY) : null;
  const moz = options.links === 'majestic' ? await startFakeMoz(web, FAKE_MOZ_TOKEN) : null;
  const dataforseo =
    options.links === 'dataforseo' || options.dataforseo || options.keywordSource
      ? await startFakeDataForSeo({ keywords, links: web }, FAKE_DFS_LOGIN, FAKE_DFS_PASSWORD)
      : null;
  const env = {
    ...(options.links ? linkProviderEnv({ majestic: majestic ?? undefined, moz: moz ?? undefined, dataforseo: dataforseo ?? undefined }) : {}),
    ...(options.keywordSource ? keywordProviderEnv(dataforseo!) : {}),
    ...options.env,
  };
  const open = (clock?: TestApp['clock']) => testApp({ env, world: options.world ?? 'tiny', state: options.state, clock });
  const others: TestApp[] = [];
  const real: RealMode = {
    web,
    keywords,
    majestic,
    moz,
    dataforseo,
    t: await open(),
    async restart() {
      const clock = real.t.clock;
      await real.t.close();
      real.t = await open(clock);
      return real.t;
    },
    async another() {
      const other = await open(real.t.clock);
      others.push(other);
      return other;
    },
    async close() {
      await real.t.close();
      for (const other of others) await other.close();
      for (const fake of [majestic, moz, dataforseo]) await fake?.close();
    },
  };
  return real;
}
