/**
 * The organic ranking of a keyword in a market, as the rank index builds, the difficulty
 * of a keyword no index covers, related keywords and imports rank it: the first page's
 * organic results of the market's default engine (desktop, the clock's day).
 *
 * @example
 * const ranking = new MarketRanking({ builder, locations, clock, corpus, catalog, marketOf, shortLocation });
 * ranking.organicPages(keyword, 2840, 10); // corpus page indexes, best first
 */
import type { Clock } from '../../lib/clock.js';
import type { LocationRegistry } from '../../locations/registry.js';
import type { KeywordCatalog } from './keywordCatalog.js';
import type { Retrieval } from './organicRanking.js';
import type { CorpusKeyword, SearchCorpus } from './searchCorpus.js';
import type { SerpBuilder } from './serpBuilder.js';
import type { ShortLocation } from './serpTypes.js';
import { contentTokens } from './text.js';

/** Default SERP location: location 0 or none means the United States (spec). */
export const DEFAULT_SERP_LOCATION = 2840;

/** Candidates re-ranked for short rankings (imports' top 10, the rank index's top 50). */
export const SHORT_RANKING_CANDIDATES = 200;

export interface MarketRankingOptions {
  builder: SerpBuilder;
  locations: LocationRegistry;
  clock: Clock;
  /** The corpus as it stands (an import swaps its keywords in). */
  corpus: () => SearchCorpus;
  /** The keyword catalogue as it stands. */
  catalog: () => KeywordCatalog;
  marketOf: (locationId: number) => number;
  shortLocation: (locationId: number) => ShortLocation;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class MarketRanking {
  private readonly options: MarketRankingOptions;

  constructor(options: MarketRankingOptions) {
    this.options = options;
  }

  corpus(): SearchCorpus {
    return this.options.corpus();
  }

  catalog(): KeywordCatalog {
    return this.options.catalog();
  }

  /** The market whose rank index serves a location (location 0 uses the default engine, 2840). */
  indexMarket(locationId: number): number {
    return this.options.marketOf(locationId) || DEFAULT_SERP_LOCATION;
  }

  /** The best `limit` pages for a keyword in a market, from its remembered retrieval when given. */
  organicPages(k: CorpusKeyword, market: number, limit: number, retrieval?: Retrieval): number[] {
    const locationId = market === 0 ? DEFAULT_SERP_LOCATION : market;
    const location = this.options.locations.get(locationId);
    const engineDomain = location?.engineDomain ?? 'google.com';
    return this.options.builder
      .organic(
        {
          keyword: k.kw,
          languageId: k.languageId,
          location: this.options.shortLocation(locationId),
          tld: engineDomain.replace(/^google\./, ''),
          platform: 1,
          date: day(this.options.clock.now()),
          cpc: k.cpc,
          intentHints: k.intentHints,
          head: k.head,
          fallbackTokens: this.fallbackTokens(k),
        },
        limit,
        SHORT_RANKING_CANDIDATES,
        retrieval,
      )
      .map((r) => r.page);
  }

  fallbackTokens(k: CorpusKeyword): string[] {
    const tokens = contentTokens(k.head);
    const niche = k.nicheId === null ? undefined : this.options.corpus().niches.find((n) => n.id === k.nicheId);
    if (niche) tokens.push(...contentTokens(niche.name));
    return tokens;
  }
}
