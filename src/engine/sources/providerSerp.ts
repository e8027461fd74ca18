/**
 * A SERP source backed by a provider API (SerpApi, DataForSEO): the provider fetches the
 * page, everything else is ours. Each SERP is bought at most once per (query, UTC day) for
 * everyone — the ledger keeps it for the day, and concurrent lookups of one SERP, in this
 * process or in any other on the state store, share one call: the buyer holds a lease on the
 * query's `serp` row of provider_answers (providerAnswers.ts) while it buys, and another asker
 * waits for the SERP instead (at most a lease, then it buys if the buyer failed or died) —
 * and only while the provider's daily budget has room. Past days are answered from what was
 * bought that day; a provider cannot fetch yesterday's page.
 *
 * A failure rejects with a SourceError: the route's handler throws, so the access policy
 * releases the reservation and the user is charged nothing (accessPolicy.ts, execute's
 * catch → store.release).
 */
import type { Clock } from '../../lib/clock.js';
import type { LocationRegistry } from '../../locations/registry.js';
import { keywordId } from '../search/keywordIds.js';
import type { KeywordDetail, SearchEngine, SerpQuery } from '../search/searchEngine.js';
import { DEFAULT_SERP_LOCATION } from '../search/searchEngine.js';
import { intentSignals } from '../search/searchIntent.js';
import type { Platform } from '../search/serpFeatures.js';
import { serpSourceUrl } from '../search/serpIdentity.js';
import type { Serp } from '../search/serpTypes.js';
import { contentTokens, normaliseKeyword, tokenize } from '../search/text.js';
import { assembleSerp, fetchedUrls, type FetchedSerp, type ResultMetrics } from './fetchedSerp.js';
import type { DifficultyBook } from './difficultyBook.js';
import type { ProviderAnswers } from './providerAnswers.js';
import type { ProviderLedger } from './providerLedger.js';
import { SourceError, type SerpSource, type SerpSourceName } from './types.js';

/** What an adapter is asked for: the query with the location and language spelled as providers take them. */
export interface ProviderSerpQuery {
  keyword: string;
  /** Google Ads geotarget id (providers use the same criteria ids). */
  locationId: number;
  /** Canonical name of a city, region or state ("Austin,Texas,United States"); null for a country. */
  canonicalLocation: string | null;
  countryCode: string;
  engineDomain: string;
  languageCode: string | null;
  platform: Platform;
  page: number;
}

/** A provider adapter: fetches one page and says what it cost. */
export interface SerpFetcher {
  name: Exclude<SerpSourceName, 'sandbox'>;
  /** Dollars reserved from the daily budget before a call. */
  estimate(query: ProviderSerpQuery): number;
  fetch(query: ProviderSerpQuery): Promise<{ serp: FetchedSerp; cost: number }>;
}

export interface ProviderSerpSourceOptions {
  fetcher: SerpFetcher;
  ledger: ProviderLedger;
  /** The claims that make one process the buyer of a query's SERP of the day. */
  answers: ProviderAnswers;
  /** Daily budget in US dollars. */
  dailyBudget: number;
  search: SearchEngine;
  locations: LocationRegistry;
  metrics: ResultMetrics;
  /** The day's one difficulty of each keyword: a fetched SERP sets it when none is set (difficultyBook.ts). */
  difficulty: DifficultyBook;
  clock: Clock;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Results per page we ask providers for, like the sandbox's pages. */
const RESULTS_PER_PAGE = 100;
const OUTDATED_AFTER_MONTHS = 6;

export class ProviderSerpSource implements SerpSource {
  readonly name: SerpSourceName;
  readonly pastDays = false;

  constructor(private readonly options: ProviderSerpSourceOptions) {
    this.name = options.fetcher.name;
  }

  async serp(query: SerpQuery): Promise<Serp> {
    return (await this.lookup(query)).serp;
  }

  async keywordDetail(query: SerpQuery): Promise<KeywordDetail> {
    const { serp, fetched } = await this.lookup(query);
    const organic = serp.items.filter((i) => i.type === 'ORGANIC');
    const dates = new Map(fetched.blocks.flatMap((b) => (b.kind === 'organic' ? [[b.url, b.date] as const] : [])));
    const features = [...new Set(serp.items.map((i) => i.type).filter((t) => t !== 'ORGANIC'))];
    const k = this.options.search.keyword(serp.kw, this.options.search.languageFor(serp.location_id, query.languageId ?? 0)._id);
    // A knowledge panel on the page says the query names an entity.
    const signals = intentSignals(serp.kw, { isEntity: () => features.includes('KNO_GRAPH'), cpc: k.cpc, hints: k.intentHints });
    return {
      serp,
      kwOpps: opportunities(
        serp.kw,
        organic.slice(0, 5).map((i) => ({ title: i.title ?? '', date: i.url === null ? null : (dates.get(i.url) ?? null) })),
        query.date ?? day(this.options.clock.now()),
      ),
      searchIntent: { [serp.mId]: signals.labels.length > 0 ? signals.labels : null },
      contentTypes: contentTypesOf(organic.slice(0, 10).map((i) => ({ url: i.url ?? '', title: i.title ?? '' }))),
      serpFeatures: features,
    };
  }

  private async lookup(query: SerpQuery): Promise<{ serp: Serp; fetched: FetchedSerp }> {
    const { search, locations, clock, ledger, fetcher } = this.options;
    const locationId = query.locationId ? query.locationId : DEFAULT_SERP_LOCATION;
    const location = locations.get(locationId);
    const country = locations.countryOf(locationId);
    const languageId = query.languageId ?? 0;
    const lang = search.languageFor(locationId, languageId);
    const keyword = normaliseKeyword(query.kw);
    const platform = query.platform ?? 1;
    const page = query.page ?? 0;
    const nowMs = clock.now();
    const today = day(nowMs);
    const date = query.date ?? today;
    const engineDomain = location?.engineDomain ?? 'google.com';
    const providerQuery: ProviderSerpQuery = {
      keyword,
      locationId,
      canonicalLocation: location && location.type > 1 ? location.canonicalName : null,
      countryCode: country?.code ?? location?.code ?? 'us',
      engineDomain,
      languageCode: lang.code,
      platform,
      page,
    };
    const key = `${keyword}|${locationId}|${lang._id}|${platform}|${page}`;
    let fetched = await ledger.serp(fetcher.name, key, date);
    if (!fetched) {
      if (date !== today) throw new SourceError(fetcher.name, 'unavailable', `${fetcher.name} holds no SERP of "${keyword}" for ${date}`);
      fetched = await this.buyOnce(key, today, providerQuery);
    }
    const mId = keywordId(keyword, locationId, languageId);
    // With link and authority providers, the page's metrics in a few batched calls (each datum bought once).
    const metrics = this.options.metrics.prepare ? await this.options.metrics.prepare(fetchedUrls(fetched)) : this.options.metrics;
    const assembled = assembleSerp(
      fetched,
      {
        keyword,
        keywordId: mId,
        location: search.shortLocation(locationId),
        platform,
        page,
        date,
        createdAt: Math.floor(nowMs / 1000),
        fallbackSourceUrl: serpSourceUrl(keyword, engineDomain, providerQuery.countryCode, lang.code, page, platform),
        queryId: (t) => keywordId(normaliseKeyword(t), locationId, languageId),
        firstPosition: page * RESULTS_PER_PAGE,
      },
      metrics,
    );
    // Its difficulty from the fetched results, unless the day has one already (one truth per keyword and day).
    const serp = await this.options.difficulty.settleSerp(assembled, date, { accept: true });
    // Issued keyword ids resolve later (lists, favourites), as the sandbox's SERPs record theirs.
    search.keywordItem(keyword, locationId, languageId);
    for (const item of serp.items) for (const m of item.items) if (m.mId !== undefined) search.keywordItem(m.title, locationId, languageId);
    return { serp, fetched };
  }

  /**
   * One provider call per (query, day), whichever process asks: the buyer claims the query's
   * marker row, buys and saves the SERP; the others (here or in other processes) wait for the
   * marker and read the SERP from the ledger.
   */
  private async buyOnce(key: string, today: string, query: ProviderSerpQuery): Promise<FetchedSerp> {
    const { answers, ledger, fetcher } = this.options;
    let bought: FetchedSerp | null = null;
    await answers.get<true>(fetcher.name, 'serp', [`${key}|${today}`], 1, async () => {
      bought = await this.buy(key, today, query);
      return [true];
    });
    const fetched = bought ?? (await ledger.serp(fetcher.name, key, today));
    if (!fetched) throw new SourceError(fetcher.name, 'unavailable', `${fetcher.name}: the SERP of "${query.keyword}" bought today could not be read`);
    return fetched;
  }

  private async buy(key: string, today: string, query: ProviderSerpQuery): Promise<FetchedSerp> {
    const { ledger, fetcher, dailyBudget, clock } = this.options;
    // Another process may have bought it while this one waited.
    const held = await ledger.serp(fetcher.name, key, today);
    if (held) return held;
    const estimate = fetcher.estimate(query);
    if (!(await ledger.reserve(fetcher.name, today, estimate, dailyBudget))) {
      throw new SourceError(fetcher.name, 'budget', `${fetcher.name}: the daily budget of $${dailyBudget} is spent`);
    }
    let result: { serp: FetchedSerp; cost: number };
    try {
      result = await fetcher.fetch(query);
    } catch (err) {
      await ledger.refund(fetcher.name, today, estimate);
      throw err instanceof SourceError ? err : new SourceError(fetcher.name, 'failed', `${fetcher.name}: ${(err as Error).message}`);
    }
    await ledger.settle(fetcher.name, today, estimate, result.cost);
    await ledger.saveSerp(fetcher.name, key, today, result.serp, clock.now());
    return result.serp;
  }
}

/**
 * `kwOpps` of a provider SERP, by the contract's rule (see search/contentTypes.ts): outdated
 * when one of the top five shows a date over six months old (results without a date count
 * as current: the provider did not say), and the keyword words missing from their titles.
 */
function opportunities(keyword: string, topFive: readonly { title: string; date: string | null }[], date: string) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - OUTDATED_AFTER_MONTHS);
  const cutoff = d.toISOString().slice(0, 10);
  const missing = new Set<string>();
  for (const r of topFive) {
    const words = new Set(tokenize(r.title));
    for (const w of contentTokens(keyword)) if (!words.has(w)) missing.add(w);
  }
  return { isOutdatedPage: topFive.some((r) => r.date !== null && r.date < cutoff), missingWordsInTitle: [...missing] };
}

/**
 * Content types of real results, from what a result shows: the site's home page, a known
 * kind of site (video platform, forum, encyclopedia) by host, else the title's format by
 * the same cues the sandbox reads (listicle, how-to, review); 'web page' otherwise.
 */
export function contentTypesOf(results: readonly { url: string; title: string }[]): string[] {
  const count = new Map<string, number>();
  for (const r of results) {
    const t = contentTypeOfResult(r.url, r.title);
    count.set(t, (count.get(t) ?? 0) + 1);
  }
  return [...count.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
}

function contentTypeOfResult(url: string, title: string): string {
  let host = '';
  let path = '/';
  try {
    const u = new URL(url);
    host = u.hostname.toLowerCase().replace(/^www\./, '');
    path = u.pathname;
  } catch {
    // classified by title alone
  }
  if (path === '/' || path === '') return 'homepage';
  if (/(^|\.)(youtube\.com|vimeo\.com|tiktok\.com)$/.test(host)) return 'video';
  if (/(^|\.)(reddit\.com|quora\.com|stackexchange\.com|stackoverflow\.com)$/.test(host) || /^forums?\./.test(host)) return 'forum thread';
  if (/(^|\.)wikipedia\.org$/.test(host)) return 'encyclopedia article';
  const t = ` ${tokenize(title).join(' ')} `;
  if (/ (best|top \d+) /.test(t)) return 'listicle';
  if (/ how to | guide | tips /.test(t)) return 'how-to guide';
  if (/ (review|reviews|vs|comparison) /.test(t)) return 'review';
  return 'web page';
}
