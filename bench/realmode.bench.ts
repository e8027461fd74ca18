/**
 * bench:realmode (issue 24): the metrics of a SERP of 100 results from the link and authority
 * providers' fakes (Majestic and Moz, test/support/fakes, each answering after `LATENCY_MS`):
 * how many provider calls and how long, against the goal of at most 3 calls and the fake's
 * latency plus 50 ms. Measured on the metrics layer a provider SERP uses (serpLinkMetrics.ts)
 * over an in-memory state store; prints goal, figure and ratio.
 *
 * Each round starts from an empty state store (nothing bought yet, so every figure is fetched);
 * one round warms the process up first (module loading, JIT, the fakes' first sockets: a cold
 * process paid 600–760 ms for them at load 26), and the figure is the median of the rest.
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
const ROUNDS = 7;
const web = coffeeWeb();
const majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY, { latencyMs: LATENCY_MS });
const moz = await startFakeMoz(web, FAKE_MOZ_TOKEN, { latencyMs: LATENCY_MS });
const urls = coffeeSerpApiPage('coffee', 100).organic_results.map((r) => linkTarget(r.link, 'URL')!);

/** One SERP's metrics on an empty state store: the milliseconds and the provider calls made. */
async function round(): Promise<{ ms: number; calls: number }> {
  const store = await openStateStore(':memory:');
  const data = createLinkData(loadSourcesConfig(linkProviderEnv({ majestic, moz })), {
    state: store.db,
    clock: new FakeClock(),
    ledger: new ProviderLedger(store.db),
  })!;
  const before = majestic.requests.length + moz.requests.length;
  const started = performance.now();
  await Promise.all([data.itemInfo(urls), data.authority(urls)]);
  const ms = performance.now() - started;
  const calls = majestic.requests.length + moz.requests.length - before;
  await store.close();
  return { ms, calls };
}

const warmUp = await round();
const rounds: { ms: number; calls: number }[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
const times = rounds.map((r) => r.ms).sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const calls = Math.max(...rounds.map((r) => r.calls));
const goalMs = LATENCY_MS + 50;
console.log(`provider calls for a SERP of 100 results: goal <= 3, figure ${calls} (most in any round), ratio ${(calls / 3).toFixed(2)}`);
console.log(
  `time: goal <= ${goalMs} ms (fake latency ${LATENCY_MS} + 50), figure ${median.toFixed(0)} ms (median of ${ROUNDS} rounds, ` +
    `${times[0].toFixed(0)}–${times[times.length - 1].toFixed(0)}; a cold first round ${warmUp.ms.toFixed(0)} ms), ratio ${(median / goalMs).toFixed(2)}`,
);
await majestic.close();
await moz.close();
