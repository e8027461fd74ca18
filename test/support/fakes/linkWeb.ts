/**
 * The small real-looking web the link and authority fakes answer about (index.ts): a few
 * domains with their link-index figures, authority, backlinks, anchors, top pages and
 * competitors. Each fake renders the same facts in its provider's own format, so a test can
 * trace a value from here to the answer whichever provider is configured.
 *
 * Figures are given per item (a root domain, a host or a URL, as Majestic takes items);
 * an item not listed is unknown to every provider.
 */

/** Link-index figures of an item, under Majestic's GetIndexItemInfo names. */
export interface FakeItem {
  ExtBackLinks: number;
  RefDomains: number;
  RefIPs: number;
  RefSubNets: number;
  CitationFlow: number;
  TrustFlow: number;
  IndexedURLs: number;
  RefDomainsEDU: number;
  ExtBackLinksEDU: number;
  RefDomainsGOV: number;
  ExtBackLinksGOV: number;
  TotalNonUniqueLinks: number;
  NonUniqueLinkTypeNoFollow: number;
  NonUniqueLinkTypeImageLink: number;
  NonUniqueLinkTypeRedirect: number;
  NonUniqueLinkTypeTextLink: number;
  OutLinksInternal: number;
  OutLinksExternal: number;
  OutDomainsExternal: number;
}

/** A backlink of the fake web. */
export interface FakeLink {
  source: string;
  target: string;
  anchor: string;
  sourceTitle: string;
  nofollow: boolean;
  image: boolean;
  /** YYYY-MM-DD */
  firstSeen: string;
  lastSeen: string;
  /** YYYY-MM-DD when lost, else null. */
  lostOn: string | null;
  sourceCitationFlow: number;
  sourceTrustFlow: number;
  targetCitationFlow: number;
  targetTrustFlow: number;
}

export interface FakeAuthority {
  /** Moz domain authority of the root domain, page authority of the URL, spam score. */
  da: number;
  pa: number;
  spam: number;
}

export interface FakeLinkWeb {
  /** By item name: `starbucks.com`, `www.starbucks.com`, `https://www.starbucks.com/`. */
  items: Record<string, FakeItem>;
  /** By URL or domain as a SERP shows it; a domain's entry holds its DA (pa = the home page's). */
  authority: Record<string, FakeAuthority>;
  links: FakeLink[];
  /** Daily new and lost links of a target (YYYY-MM-DD → counts). */
  calendar: Record<string, Record<string, { new: number; lost: number }>>;
  /** Organic competitors of a domain: competitor → keywords shared; the domain's own count under its own name. */
  competitors: Record<string, Record<string, number>>;
  /** A domain's organic ranking statistics in the US (DataForSEO Labs domain_rank_overview's `metrics.organic`). */
  rankOverview: Record<string, Record<string, number>>;
}

function item(ext: number, ref: number, cf: number, tf: number): FakeItem {
  return {
    ExtBackLinks: ext,
    RefDomains: ref,
    RefIPs: Math.round(ref * 0.8),
    RefSubNets: Math.round(ref * 0.6),
    CitationFlow: cf,
    TrustFlow: tf,
    IndexedURLs: ext * 3,
    RefDomainsEDU: Math.round(ref / 100),
    ExtBackLinksEDU: Math.round(ext / 90),
    RefDomainsGOV: Math.round(ref / 300),
    ExtBackLinksGOV: Math.round(ext / 250),
    TotalNonUniqueLinks: ext + Math.round(ext / 10),
    NonUniqueLinkTypeNoFollow: Math.round(ext / 7),
    NonUniqueLinkTypeImageLink: Math.round(ext / 5),
    NonUniqueLinkTypeRedirect: Math.round(ext / 40),
    NonUniqueLinkTypeTextLink: Math.round(ext * 0.75),
    OutLinksInternal: 412,
    OutLinksExternal: 37,
    OutDomainsExternal: 21,
  };
}

/** The coffee web of issue 24's example: wikipedia.org, starbucks.com and peets.com on the SERP for "coffee". */
export function coffeeWeb(): FakeLinkWeb {
  const links: FakeLink[] = [
    {
      source: 'https://www.seriouseats.com/best-coffee-chains',
      target: 'https://www.starbucks.com/',
      anchor: 'Starbucks',
      sourceTitle: 'The Best Coffee Chains, Ranked',
      nofollow: false,
      image: false,
      firstSeen: '2019-04-02',
      lastSeen: '2026-11-20',
      lostOn: null,
      sourceCitationFlow: 48,
      sourceTrustFlow: 41,
      targetCitationFlow: 71,
      targetTrustFlow: 66,
    },
    {
      source: 'https://en.wikipedia.org/wiki/Starbucks',
      target: 'https://www.starbucks.com/',
      anchor: 'Official website',
      sourceTitle: 'Starbucks - Wikipedia',
      nofollow: true,
      image: false,
      firstSeen: '2012-08-15',
      lastSeen: '2026-11-21',
      lostOn: null,
      sourceCitationFlow: 61,
      sourceTrustFlow: 58,
      targetCitationFlow: 71,
      targetTrustFlow: 66,
    },
    {
      source: 'https://www.eater.com/coffee-news',
      target: 'https://www.starbucks.com/menu',
      anchor: 'seasonal menu',
      sourceTitle: 'Coffee News - Eater',
      nofollow: false,
      image: false,
      firstSeen: '2026-11-10',
      lastSeen: '2026-11-19',
      lostOn: null,
      sourceCitationFlow: 39,
      sourceTrustFlow: 33,
      targetCitationFlow: 35,
      targetTrustFlow: 30,
    },
    {
      source: 'https://coffeeblog.example.net/reviews',
      target: 'https://www.starbucks.com/',
      anchor: 'starbucks.com',
      sourceTitle: 'Coffee reviews',
      nofollow: false,
      image: true,
      firstSeen: '2024-01-05',
      lastSeen: '2026-10-02',
      lostOn: '2026-10-02',
      sourceCitationFlow: 12,
      sourceTrustFlow: 9,
      targetCitationFlow: 71,
      targetTrustFlow: 66,
    },
    {
      source: 'https://www.seriouseats.com/best-coffee-chains',
      target: 'https://www.peets.com/',
      anchor: "Peet's Coffee",
      sourceTitle: 'The Best Coffee Chains, Ranked',
      nofollow: false,
      image: false,
      firstSeen: '2019-04-02',
      lastSeen: '2026-11-20',
      lostOn: null,
      sourceCitationFlow: 48,
      sourceTrustFlow: 41,
      targetCitationFlow: 52,
      targetTrustFlow: 47,
    },
  ];
  return {
    items: {
      'wikipedia.org': item(1_894_226_112, 1_245_883, 97, 98),
      'en.wikipedia.org': item(1_402_553_901, 1_102_337, 95, 97),
      'https://en.wikipedia.org/wiki/Coffee': item(18_442, 3_120, 62, 64),
      'starbucks.com': item(8_112_334, 61_298, 71, 66),
      'www.starbucks.com': item(7_990_120, 60_001, 70, 66),
      'https://www.starbucks.com/': item(2_334_901, 29_877, 68, 63),
      'https://www.starbucks.com/menu': item(41_223, 2_208, 35, 30),
      'peets.com': item(412_908, 9_874, 52, 47),
      'https://www.peets.com/': item(201_334, 6_112, 50, 45),
    },
    authority: {
      'wikipedia.org': { da: 100, pa: 95, spam: 1 },
      'https://en.wikipedia.org/wiki/Coffee': { da: 100, pa: 78, spam: 1 },
      'starbucks.com': { da: 91, pa: 77, spam: 1 },
      'https://www.starbucks.com/': { da: 91, pa: 77, spam: 1 },
      'https://www.starbucks.com/menu': { da: 91, pa: 52, spam: 1 },
      'peets.com': { da: 72, pa: 61, spam: 2 },
      'https://www.peets.com/': { da: 72, pa: 61, spam: 2 },
    },
    links,
    calendar: {
      'starbucks.com': { '2026-11-10': { new: 1, lost: 0 }, '2026-10-02': { new: 0, lost: 1 }, '2026-11-21': { new: 4, lost: 2 } },
    },
    competitors: {
      'starbucks.com': { 'starbucks.com': 12_400, 'dunkindonuts.com': 4_960, 'peets.com': 3_100, 'wikipedia.org': 1_860 },
    },
    rankOverview: {
      // The fields of DataforseoLabsMetricsInfo (dataforseo/TypeScriptClient docs), a large brand's magnitudes.
      'starbucks.com': {
        pos_1: 2_841,
        pos_2_3: 3_120,
        pos_4_10: 9_876,
        pos_11_20: 14_502,
        pos_21_30: 11_230,
        pos_31_40: 9_004,
        pos_41_50: 7_311,
        pos_51_60: 6_120,
        pos_61_70: 5_230,
        pos_71_80: 4_410,
        pos_81_90: 3_902,
        pos_91_100: 3_118,
        etv: 4_120_339.5,
        count: 80_664,
        estimated_paid_traffic_cost: 2_874_310.27,
        is_new: 1_204,
        is_up: 3_311,
        is_down: 2_987,
        is_lost: 1_102,
      },
    },
  };
}

/** The root domain of a host or URL in the fake web (enough for its few names). */
export function fakeRoot(name: string): string {
  const host = name.replace(/^https?:\/\//, '').split('/')[0];
  const parts = host.split('.');
  return parts.slice(-2).join('.');
}

/** The links pointing at an item: a root domain takes every host's, a host its own, a URL exactly it. */
export function linksTo(web: FakeLinkWeb, itemName: string): FakeLink[] {
  const isUrl = /^https?:\/\//.test(itemName);
  const hostOf = (u: string) => u.replace(/^https?:\/\//, '').split('/')[0];
  return web.links.filter((l) => {
    if (isUrl) return l.target === itemName;
    if (itemName.includes('.') && hostOf(l.target) === itemName) return true;
    return fakeRoot(l.target) === itemName;
  });
}

/** A URL as a SERP lists it, as the fake web keys authority: the URL, else its root domain. */
export function authorityOf(web: FakeLinkWeb, target: string): FakeAuthority | null {
  return web.authority[target] ?? web.authority[target.replace(/\/$/, '')] ?? null;
}
