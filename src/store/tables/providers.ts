/**
 * What the research engine bought from upstream providers, and what it cost (src/engine/sources).
 */

/** A SERP bought from an upstream provider, kept for its day (engine/sources). */
export interface ProviderSerpsTable {
  provider: string;
  query_key: string;
  /** YYYY-MM-DD (UTC) the SERP was fetched on. */
  day: string;
  /** The provider's answer mapped to our neutral form (JSON). */
  body: string;
  created_ms: number;
}

/** A provider's spend on one UTC day, in US dollars (engine/sources). */
export interface ProviderSpendTable {
  provider: string;
  day: string;
  spent: number;
  calls: number;
}

/** A link-index or authority provider's answer and when it was bought (engine/sources/providerAnswers.ts). */
export interface ProviderAnswersTable {
  provider: string;
  /** What the answer is (item info, authority, a backlinks page…): each kind has its freshness. */
  kind: string;
  key: string;
  /** JSON; null while only claimed. */
  body: string | null;
  /** When it was bought (the service's clock, ms); 0 while never. */
  fetched_ms: number;
  /** Lease of the process buying it now (wall-clock ms); 0 when none. */
  claimed_ms: number;
  claim: string | null;
}

/** The first difficulty computed for a keyword in a market on a UTC day (engine/sources/difficultyBook.ts). */
export interface KeywordDifficultyTable {
  kw: string;
  /** The market (country, or 2840 for anywhere). */
  location_id: number;
  /** YYYY-MM-DD */
  day: string;
  seo: number;
  /** When the difficulty was computed (Unix seconds): a rank index's build, a SERP's fetch. */
  seo_ts: number;
}
