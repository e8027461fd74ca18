/**
 * Builds the configured sources over an opened engine (sourceConfig.ts picks them).
 *
 * @example
 * const sources = createSources(config.sources, { engine, search, state: state.db, locations, clock });
 * const serp = await sources.serp.serp({ kw: 'laufschuhe', locationId: 2276 });
 * await sources.fillKeywords(['a keyword the sandbox lacks'], 2840, 1000);
 */
import type { Kysely } from 'kysely';
import { parse as parseDomain } from 'tldts';
import type { Clock } from '../../lib/clock.js';
import type { LocationRegistry } from '../../locations/registry.js';
import type { StateDatabase } from '../../store/schema.js';
import type { AuthorityService } from '../authority/authorityService.js';
import type { LinksService } from '../links/linksService.js';
import type { ResearchStore } from '../researchStore.js';
import type { SearchEngine } from '../search/searchEngine.js';
import type { SerpItemMetrics } from '../search/serpTypes.js';
import { DataForSeoKeywordSource, dataForSeoSerpFetcher } from './dataForSeo.js';
import { DifficultyBook } from './difficultyBook.js';
import type { ResultMetrics } from './fetchedSerp.js';
import { budgetedSpend, KeywordFill } from './keywordFill.js';
import type { ProviderHttpOptions } from './providerHttp.js';
import { ProviderLedger } from './providerLedger.js';
import { createLabsCompetitors, createLinkData, type LinkData } from './links/linkData.js';
import { providerResultMetrics } from './links/serpLinkMetrics.js';
import { ProviderSerpSource } from './providerSerp.js';
import { ProviderKeywords } from './providerKeywords.js';
import { leaseFor, ProviderAnswers } from './providerAnswers.js';
import { SandboxKeywordSource, SandboxLinkSource, SandboxSerpSource } from './sandbox.js';
import { serpApiFetcher } from './serpApi.js';
import type { SourcesConfig } from './sourceConfig.js';
import type { KeywordSource, Sources } from './types.js';

export type { SerpSource, KeywordSource, LinkSource, Sources, KeywordData, SourceLink, MonthSearches } from './types.js';
export { SourceError } from './types.js';
export type { SourcesConfig } from './sourceConfig.js';
export { DifficultyBook } from './difficultyBook.js';
export type { LinkData } from './links/linkData.js';

/** The configured sources, and the keyword fill that puts a keyword provider's data into the catalogue. */
export interface EngineSources extends Sources {
  /**
   * The SERPs and keyword data bought from providers, each once for everyone (a process's
   * `waiting` says how many it is waiting on another process's purchase for).
   */
  answers: ProviderAnswers;
  /**
   * The real web's link index and authority (Majestic or DataForSEO, Moz or DataForSEO),
   * each answer bought once for everyone; null while both are the sandbox, whose figures
   * come from the local link index.
   */
  linkData: LinkData | null;
  /**
   * Asks the keyword provider for the given keywords the sandbox lacks and stores what it
   * knows, so keyword lookups serve real volumes; nothing to do with the sandbox alone.
   */
  fillKeywords(texts: readonly string[], locationId: number, languageId: number): Promise<number>;
  /**
   * Real mode (a keyword provider): related keywords and competitor keywords from the
   * provider alone (providerKeywords.ts); null with the sandbox as the keyword source.
   */
  providerKeywords: ProviderKeywords | null;
  /**
   * Gives keyword items the day's one difficulty of their keyword (`seo`, `seo_ts`): every
   * tool answering keyword items passes them through it (difficultyBook.ts). With the sandbox
   * as the SERP source the engine's difficulty is stored as the day's when none is; with a
   * provider, only SERPs fetched from it set one.
   */
  settleDifficulty<T extends { kw: string; lid: number; seo: number | null; seo_ts: number | null }>(items: T[]): Promise<T[]>;
}

export interface SourceDependencies {
  search: SearchEngine;
  links: LinksService;
  authority: AuthorityService;
  research: ResearchStore;
  /** Makes keywords written to the research store visible to `search`. */
  reloadKeywords: () => void;
  state: Kysely<StateDatabase>;
  locations: LocationRegistry;
  clock: Clock;
  /** When the link index's metrics were computed (Unix seconds): the `ts` of result metrics. */
  metricsTs: number;
  /** Waits between retries (tests pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>;
}

export function createSources(config: SourcesConfig, deps: SourceDependencies): EngineSources {
  const http: ProviderHttpOptions = { ...config.limits, sleep: deps.sleep };
  const ledger = new ProviderLedger(deps.state);
  const difficulty = new DifficultyBook(deps.state, deps.clock, (id) => deps.search.marketOf(id));
  const sandboxKeywords = new SandboxKeywordSource(deps.search);
  const linkData = createLinkData(config, { state: deps.state, clock: deps.clock, ledger, sleep: deps.sleep });
  const serpFetcher =
    config.serp === 'serpapi'
      ? serpApiFetcher({ apiKey: config.serpapi!.apiKey, baseUrl: config.serpapi!.baseUrl, http, costPerSearch: config.serpCost })
      : config.serp === 'dataforseo'
        ? dataForSeoSerpFetcher({ ...config.dataforseo!, http, estimate: config.serpCost })
        : null;
  // SERPs and keyword data bought once for everyone: claims on shared rows, a lease outlasting a call with its retries.
  const answers = new ProviderAnswers(deps.state, deps.clock, { leaseMs: leaseFor(config.limits) });
  const serp = serpFetcher
    ? new ProviderSerpSource({
        fetcher: serpFetcher,
        ledger,
        answers,
        dailyBudget: config.serpDailyBudget,
        search: deps.search,
        locations: deps.locations,
        // Real SERPs carry the real web's figures when link providers are configured, never the sandbox's.
        metrics: linkData ? providerResultMetrics(linkData, deps.authority, deps.clock) : resultMetrics(deps.links, deps.authority, deps.metricsTs),
        difficulty,
        clock: deps.clock,
      })
    : new SandboxSerpSource(deps.search, difficulty, deps.clock);
  let keywords: KeywordSource = sandboxKeywords;
  let fill: KeywordFill | null = null;
  let providerKeywords: ProviderKeywords | null = null;
  if (config.keywords === 'dataforseo') {
    // Real keywords: what the provider does not know has no figures, never derived ones.
    deps.search.useKeywordProvider();
    const provider = new DataForSeoKeywordSource(
      { ...config.dataforseo!, http, estimate: config.keywordCost },
      // Keyword calls have a budget of their own, apart from SERP calls to the same account.
      budgetedSpend(ledger, 'dataforseo-keywords', config.keywordDailyBudget, deps.clock),
      (locationId, languageId) => deps.search.languageFor(locationId, languageId).code,
    );
    keywords = provider;
    fill = new KeywordFill({ sandbox: sandboxKeywords, provider, answers, store: deps.research, search: deps.search, reload: deps.reloadKeywords });
    providerKeywords = new ProviderKeywords({
      provider,
      fill,
      search: deps.search,
      answers,
      // The keyword provider is DataForSEO: its Labs give organic competitors (the link data's when it has them).
      competitors: linkData
        ? (d, l, lang, n) => linkData.competitors(d, l, lang, n).then((rows) => rows ?? [])
        : createLabsCompetitors(config, { state: deps.state, clock: deps.clock, ledger, sleep: deps.sleep }),
    });
  }
  return {
    serp,
    answers,
    linkData,
    keywords,
    links: new SandboxLinkSource(deps.links),
    fillKeywords: (texts, locationId, languageId) => (fill ? fill.fill(texts, locationId, languageId) : Promise.resolve(0)),
    providerKeywords,
    // The sandbox's ranking is the truth of the sandbox web only: with a SERP provider, the
    // difficulty of a keyword comes from its fetched SERP.
    settleDifficulty: (items) => difficulty.settleItems(items, { accept: serp.name === 'sandbox' }),
  };
}

/** Link metrics, authority and TopRank of real result URLs from the local link index. */
export function resultMetrics(links: LinksService, authority: AuthorityService, metricsTs: number): ResultMetrics {
  return {
    domainOf: (url) => {
      try {
        return parseDomain(new URL(url).hostname).domain;
      } catch {
        return null;
      }
    },
    metricsOf: (url): SerpItemMetrics | null => {
      const a = authority.forUrl(url);
      if (!a?.known) return null;
      const found = links.urlMetrics(url);
      if (!found) return null;
      const ts = metricsTs;
      return {
        linkindex: {
          v: { CitationFlow: found.v.CitationFlow, TrustFlow: found.v.TrustFlow, RefDomains: found.v.RefDomains, ExtBackLinks: found.v.ExtBackLinks },
          ts,
        },
        authority: { v: { pda: a.pda, upa: a.upa }, ts },
        social: { v: { l: found.social ?? 0 }, ts },
      };
    },
    topRankOf: (url) => authority.forUrl(url)?.topRank ?? null,
    authorityOf: (url) => {
      const a = authority.forUrl(url);
      return { upa: a?.upa ?? 0, pda: a?.pda ?? 0 };
    },
  };
}
