/**
 * The upstream seam of the research engine (DESIGN.md §6): where SERPs, keyword metrics and
 * links come from. The sandbox web is one implementation of each; SERP and keyword-volume
 * provider APIs are others. Configuration picks one source per capability (sourceConfig.ts).
 *
 * @example
 * const sources = createSources(config.sources, { search, engine, state: state.db, clock });
 * const serp = await sources.serp.serp({ kw: 'running shoes', locationId: 2840, platform: 1, page: 0 });
 * serp.serp_source_url; // the page the SERP stands for (the provider's own check URL for a provider)
 */
import type { KeywordDetail, SerpQuery } from '../search/searchEngine.js';
import type { Serp } from '../search/serpTypes.js';

export type { SerpQuery } from '../search/searchEngine.js';

/** Names a source answers under (`source` in logs and errors; the README's configuration table). */
export type SerpSourceName = 'sandbox' | 'serpapi' | 'dataforseo';
export type KeywordSourceName = 'sandbox' | 'dataforseo';
export type LinkSourceName = 'sandbox' | 'majestic' | 'dataforseo';
export type AuthoritySourceName = 'sandbox' | 'moz' | 'dataforseo';

/** A SERP for a keyword, location, language, platform, page and date. */
export interface SerpSource {
  readonly name: SerpSourceName;
  /** The SERP of a query; rejects with a SourceError when the source cannot give it. */
  serp(query: SerpQuery): Promise<Serp>;
  /** The keyword tool's SERP lookup: the SERP with keyword opportunities, intent, content types and features. */
  keywordDetail(query: SerpQuery): Promise<KeywordDetail>;
  /**
   * Whether the source can give the SERP of a past day. The sandbox re-ranks any date; a
   * provider answers for today only (and for the days it already holds), so rank checks
   * of missed days are left without a check rather than filled with today's page.
   */
  readonly pastDays: boolean;
}

/** One month of searches. */
export interface MonthSearches {
  year: number;
  month: number;
  searches: number;
}

/** What a keyword source knows of a keyword in a location and language. */
export interface KeywordData {
  /** Normalised keyword text. */
  kw: string;
  /** Average monthly searches over the last twelve months. */
  volume: number;
  /** Cost per click in US dollars, null when unknown. */
  cpc: number | null;
  /** Paid competition 0–100 (Google Ads' competition index), null when unknown. */
  competition: number | null;
  /** Monthly searches, oldest first. */
  history: MonthSearches[];
}

/** A keyword a site ranks for, as a provider's ranking database holds it. */
export interface RankedKeyword {
  kw: string;
  /** Organic position (1 best). */
  position: number;
  /** The ranking page. */
  url: string;
  /** The keyword's metrics, null when the provider has none. */
  data: KeywordData | null;
}

/** Keyword metrics, monthly history and ideas per location and language. */
export interface KeywordSource {
  readonly name: KeywordSourceName;
  /** Metrics of the given keywords; keywords the source has no data for are left out. */
  keywordData(keywords: readonly string[], locationId: number, languageId: number): Promise<KeywordData[]>;
  /** Keyword ideas for a seed with their metrics, best first, at most `limit` (the seed itself left out). */
  ideas(seed: string, locationId: number, languageId: number, limit: number): Promise<KeywordData[]>;
  /**
   * The keywords a domain, subdomain or URL ranks for, best positions first, at most `limit`,
   * with how many it ranks for in all; absent where the source has no ranking database.
   */
  rankedKeywords?(target: string, locationId: number, languageId: number, limit: number): Promise<{ total: number; keywords: RankedKeyword[] }>;
}

/** A link with its crawl dates. */
export interface SourceLink {
  sourceUrl: string;
  targetUrl: string;
  anchor: string;
  nofollow: boolean;
  /** YYYY-MM-DD */
  firstSeen: string;
  /** YYYY-MM-DD */
  lastSeen: string;
  /** YYYY-MM-DD, or null while the link stands. */
  lostOn: string | null;
}

/** Links to a URL, host or domain, with crawl dates. */
export interface LinkSource {
  readonly name: LinkSourceName;
  /** A page of the links pointing at a target (empty when the source does not know the target). */
  links(target: string, page: { offset: number; limit: number }): Promise<SourceLink[]>;
}

/** The sources the engine reads, one per capability. */
export interface Sources {
  serp: SerpSource;
  keywords: KeywordSource;
  links: LinkSource;
}

/**
 * A source could not answer: the provider failed, timed out, kept refusing with its rate
 * limit, or the daily budget is spent. The HTTP layer answers it as 424 (an upstream data
 * source failed) and, because the handler throws, the access policy releases the charge.
 */
export class SourceError extends Error {
  constructor(
    readonly source: string,
    readonly reason: 'failed' | 'timeout' | 'rate-limited' | 'budget' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}
