/**
 * bench:realmode (issue 24): the metrics of a SERP of 100 results from the link and authority
 * providers' fakes (Majestic and Moz, test/support/fakes, each answering after `LATENCY_MS`):
 * how many provider calls and how long, against the goal of at most 3 calls and the fake's
 * latency plus 50 ms. Measured on the metrics layer a provider SERP uses (serpLinkMetrics.ts)
 * over an in-memory state store; prints goal, figure and ratio.
 */
import { FakeClock } from '../src/lib/clock.js';
import { openStateStore } from '../src/store/database.js';
import { ProviderLedger } from '../src/engine/sources/providerLedger.js';
import { loadSourcesConfig } from '../src/engine/sources/sourceConfig.js';
import { createLinkData } from '../src/engine/sources/links/linkData.js';
import { linkTarget } from '../src/engine/sources/links/linkTypes.js';
import {
  coffeeSerpApiPage,
  coffeeWeb,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  linkProviderEnv,
  startFakeMajestic,
  startFakeMoz,
} from '../test/support/fakes/index.js';

const LATENCY_MS = 100;
const web = coffeeWeb();
const majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY, { latencyMs: LATENCY_MS });
const moz = await startFakeMoz(web, FAKE_MOZ_TOKEN, { latencyMs: LATENCY_MS });
const store = await openStateStore(':memory:');
const clock = new FakeClock();
const data = createLinkData(loadSourcesConfig(linkProviderEnv({ majestic, moz })), { state: store.db, clock, ledger: new ProviderLedger(store.db) })!;
const urls = coffeeSerpApiPage('coffee', 100).organic_results.map((r) => linkTarget(r.link, 'URL')!);
const started = performance.now();
await Promise.all([data.itemInfo(urls), data.authority(urls)]);
const ms = performance.now() - started;
const calls = majestic.requests.length + moz.requests.length;
const goalMs = LATENCY_MS + 50;
console.log(`provider calls for a SERP of 100 results: goal <= 3, figure ${calls}, ratio ${(calls / 3).toFixed(2)}`);
console.log(`time: goal <= ${goalMs} ms (fake latency ${LATENCY_MS} + 50), figure ${ms.toFixed(0)} ms, ratio ${(ms / goalMs).toFixed(2)}`);
await majestic.close();
await moz.close();
await store.close();
