/**
 * What the search engine reads from the research store, held in memory: pages with
 * their text and authority metrics, keywords with their market data, niches and brands.
 * Loaded once at engine open (see loadSearchCorpus.ts); tests may build one directly.
 */

export interface CorpusPage {
  /** pages.id in the research store. */
  id: number;
  url: string;
  host: string;
  /** Registrable (root) domain. */
  domain: string;
  rootId: number;
  title: string;
  description: string;
  /** Space-separated body terms ('' once indexed by the loader, which drops them). */
  body: string;
  nicheId: number | null;
  languageId: number;
  /**
   * The keyword the page was written for (the sandbox generator's, '' for homepages and
   * pages of imported data): its topic, which ranking reads as the page's main subject.
   */
  keyword?: string;
  /** Page kind from the generator (article, product, category, homepage, ...). */
  kind: string;
  /** Kind of the page's site: blog, shop, brand, news, forum, wiki, edu, gov, directory, farm, imported. */
  siteKind: string;
  isHomepage: boolean;
  /** Publish date, YYYY-MM-DD. */
  published: string;
  shares: number;
  /** Page authority 0–100. */
  upa: number;
  /** Authority of the page's root domain 0–100. */
  pda: number;
  citationFlow: number;
  trustFlow: number;
  /** TrustFlow of the page's root domain (0: no trusted site links to it anywhere). */
  rootTrustFlow: number;
  refDomains: number;
  extBackLinks: number;
  /** TopRank of the root domain (1 best; 0 unknown). */
  topRank: number;
}

export interface CorpusKeyword {
  /** keywords.id in the research store. */
  id: number;
  /** Normalised keyword text. */
  kw: string;
  languageId: number;
  nicheId: number | null;
  head: string;
  kind: string;
  /** Intent hints from the generator or importer. */
  intentHints: readonly string[];
  /** Global average monthly searches of the last 12 months at the build date. */
  volume: number;
  trend: number;
  noiseSeed: number;
  cpc: number;
  ppc: number;
  origin: string;
}

export interface CorpusNiche {
  id: number;
  name: string;
  vocabulary: readonly string[];
  seasonPeak: number;
  seasonAmplitude: number;
  trend: number;
}

export interface SearchCorpus {
  pages: readonly CorpusPage[];
  keywords: readonly CorpusKeyword[];
  niches: readonly CorpusNiche[];
  /** Lower-case brand tokens → root domain id (names of brand sites). */
  brands: ReadonlyMap<string, number>;
  /** Share of a keyword's global volume in a country (keyword id → location id → share). */
  marketShare(keywordId: number, locationId: number): number | undefined;
  /** Whether any market share is stored for the keyword (global imports have none). */
  hasMarkets(keywordId: number): boolean;
  /**
   * Stored (imported) monthly searches [year, month, searches] of a keyword in a location
   * (0 = global), oldest first; empty when none are stored (the history is then derived).
   */
  storedHistory(keywordId: number, locationId: number): [number, number, number][];
  /** When the authority metrics were computed (Unix seconds): the `ts` of metric values. */
  metricsTs: number;
}
