/**
 * SerpApi Google Search answers (https://serpapi.com/search-api: `search_metadata`,
 * `search_information.total_results`, `organic_results[]` with `position`, `title`, `link`,
 * `snippet`) for the coffee web of linkWeb.ts: the page of issue 24's example, "coffee" →
 * wikipedia.org, starbucks.com, peets.com in that order, then as many pages of those sites as
 * asked (up to 100 results, as `num=100` gives), so a SERP can be traced to the link fakes.
 *
 * @example
 * const serpapi = await startFakeUpstream();
 * serpapi.setDefault((req) => ({ json: coffeeSerpApiPage(req.url.searchParams.get('q') ?? '', 100) }));
 */

/** The first three results, in order: what the link fakes know. */
export const COFFEE_TOP = ['https://en.wikipedia.org/wiki/Coffee', 'https://www.starbucks.com/', 'https://www.peets.com/'] as const;

export function coffeeSerpApiPage(q: string, results = 3) {
  const links = [
    ...COFFEE_TOP,
    ...Array.from({ length: Math.max(0, results - COFFEE_TOP.length) }, (_, i) => `https://www.starbucks.com/coffee/page-${i + 1}`),
  ];
  return {
    search_metadata: { id: 'fake', status: 'Success', google_url: `https://www.google.com/search?q=${encodeURIComponent(q)}&num=100` },
    search_information: { total_results: 2_450_000_000 },
    organic_results: links.slice(0, results).map((link, i) => ({ position: i + 1, title: `${q} result ${i + 1}`, link, snippet: `About ${q}.` })),
  };
}
