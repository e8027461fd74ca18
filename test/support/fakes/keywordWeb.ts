/**
 * The keywords the keyword-provider fakes answer about (dataForSeoKeywords.ts): Google Ads
 * figures of a few coffee keywords (the coffee web of linkWeb.ts: the SERP for "coffee"
 * lists wikipedia.org, starbucks.com, peets.com), each seed's keyword ideas, and the
 * keywords each domain ranks for. Edit the object a test got to add keywords.
 *
 * The SERP fake (dataForSeoKeywords.ts) lists a keyword's rankings in rank order: "coffee" is
 * wikipedia.org, starbucks.com, peets.com, as in issue 24.
 *
 * Google Ads reports volumes in buckets (…, 1,300, 1,600, 1,900, 2,400, 2,900, …), the
 * average (`search_volume`) and each month alike, so the average it gives is not the mean of
 * the months: "cold brew coffee maker" has search_volume 1,900 and months averaging 1,983
 * (issue 24's example). A keyword not listed is one Google Ads has no data for.
 */

/** One month of searches as DataForSEO sends it. */
export interface FakeMonth {
  year: number;
  month: number;
  search_volume: number;
}

/** Google Ads' figures of a keyword, under DataForSEO's Keywords Data names. */
export interface FakeKeyword {
  search_volume: number;
  /** USD, null when Google Ads has no bids. */
  cpc: number | null;
  competition: 'LOW' | 'MEDIUM' | 'HIGH' | null;
  /** 0–100 */
  competition_index: number | null;
  /** Newest first, as DataForSEO sends them. */
  monthly_searches: FakeMonth[];
}

/** A ranking of a domain in the fake's Labs database. */
export interface FakeRanking {
  kw: string;
  /** Organic position among organic results (rank_group). */
  rank: number;
  url: string;
  title: string;
}

export interface FakeKeywordWeb {
  keywords: Record<string, FakeKeyword>;
  /** Seed → its keyword ideas (keywords_for_keywords), in the provider's order. */
  ideas: Record<string, string[]>;
  /** Domain → the keywords it ranks for (Labs ranked_keywords). */
  rankings: Record<string, FakeRanking[]>;
}

/** Twelve months ending October 2026 (newest first), from the oldest month's figure onwards. */
export function months(values: readonly number[]): FakeMonth[] {
  return values
    .map((search_volume, i) => {
      const d = new Date(Date.UTC(2025, 10 + i, 1));
      return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, search_volume };
    })
    .reverse();
}

const flat = (v: number) => months(Array.from({ length: 12 }, () => v));

/** The coffee keywords (figures shaped like Google Ads' for the US, bucketed). */
export function coffeeKeywords(): FakeKeywordWeb {
  return {
    keywords: {
      coffee: { search_volume: 1_220_000, cpc: 2.87, competition: 'LOW', competition_index: 12, monthly_searches: flat(1_220_000) },
      'coffee near me': { search_volume: 6_120_000, cpc: 1.46, competition: 'LOW', competition_index: 9, monthly_searches: flat(6_120_000) },
      'coffee beans': { search_volume: 90_500, cpc: 1.12, competition: 'HIGH', competition_index: 100, monthly_searches: flat(90_500) },
      'iced coffee': { search_volume: 135_000, cpc: 0.85, competition: 'MEDIUM', competition_index: 38, monthly_searches: flat(135_000) },
      // 1,300 + 3 × 1,600 + 4 × 1,900 + 3 × 2,400 + 2,900 = 23,800: a mean of 1,983.
      'cold brew coffee maker': {
        search_volume: 1_900,
        cpc: 0.98,
        competition: 'HIGH',
        competition_index: 94,
        monthly_searches: months([1_300, 1_600, 1_600, 1_600, 1_900, 1_900, 1_900, 1_900, 2_400, 2_400, 2_400, 2_900]),
      },
      // A keyword with searches but no bids: Google Ads sends cpc and competition as null.
      'coffee history': { search_volume: 2_400, cpc: null, competition: null, competition_index: null, monthly_searches: flat(2_400) },
    },
    ideas: {
      coffee: ['coffee near me', 'iced coffee', 'coffee beans', 'coffee history', 'cold brew coffee maker'],
    },
    rankings: {
      'wikipedia.org': [{ kw: 'coffee', rank: 1, url: 'https://en.wikipedia.org/wiki/Coffee', title: 'Coffee - Wikipedia' }],
      'starbucks.com': [
        { kw: 'coffee near me', rank: 1, url: 'https://www.starbucks.com/store-locator', title: 'Store Locator: Starbucks Coffee Company' },
        { kw: 'coffee', rank: 2, url: 'https://www.starbucks.com/', title: 'Starbucks Coffee Company' },
        { kw: 'iced coffee', rank: 5, url: 'https://www.starbucks.com/menu', title: 'Menu: Starbucks Coffee Company' },
      ],
      'peets.com': [
        { kw: 'coffee', rank: 3, url: 'https://www.peets.com/', title: "Peet's Coffee" },
        { kw: 'coffee beans', rank: 4, url: 'https://www.peets.com/collections/coffee', title: "Coffee Beans | Peet's Coffee" },
      ],
    },
  };
}
