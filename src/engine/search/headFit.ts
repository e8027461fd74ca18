/**
 * Which kinds of sites lead the results of a head term, by what the head is (issue 27).
 *
 * A bare head term carries no cue words ("running shoes", "car insurance", "cold brew"), so
 * the intent model (searchIntent.ts) reads every head alike. Searchers do not: a product or
 * a place is bought or booked, so shops, brands and review sites lead its results; a
 * service or software is compared and signed up for, so providers and comparison and
 * review sites lead; a topic is learnt, where an encyclopedia, guides and forums lead.
 * Google's Search Quality Rater Guidelines ("Understanding User Intent": Know, Do, Website
 * and Visit-in-Person queries; a Do query is answered by pages where the user can buy or
 * get the thing) describe the same split, as SEO tools' intent labels do (Ahrefs, "Search
 * Intent in SEO": product and category pages lead commercial heads, blog posts lead
 * informational ones).
 *
 * A government site leads only a query of public interest (taxes, public student aid,
 * credit rights, health guidance): the rater guidelines' YMYL topics, where official
 * guidance is what a searcher needs. On a hobby, product or learning head ("learn python",
 * "tent") an official page is off intent wherever it ranks on text and links.
 *
 * The profile of an English head says what it is (world/headProfiles.ts); heads of other
 * languages (and imported keywords) have none here and are ranked by the intent model alone.
 */
import { EN_HEAD_PROFILES, type HeadKind } from '../world/headProfiles.js';
import { LANGUAGE_IDS } from '../world/markets.js';

export type HeadIntent = 'transactional' | 'commercial' | 'informational';

/** English, the only language whose heads have profiles. */
const ENGLISH = LANGUAGE_IDS.en;

const INTENT_OF_KIND: Readonly<Record<HeadKind, HeadIntent>> = {
  product: 'transactional',
  place: 'transactional',
  service: 'commercial',
  software: 'commercial',
  topic: 'informational',
};

/**
 * Factor on the score of a page of each kind of site for a bare head, by the head's intent
 * (the model's own calibration; kinds not listed take `other`). Strong enough that an
 * encyclopedia, whose authority is the web's highest, still leads topics but not products
 * (realismSerps.ts measures it on the test worlds). News sites' buying guides and reviews
 * rank on commercial heads, less on product ones; a directory lists shops near by.
 */
const SITE_FIT: Readonly<Record<HeadIntent, Readonly<Record<string, number>>>> = {
  transactional: { shop: 1, brand: 1, blog: 0.9, forum: 0.6, directory: 0.6, news: 0.5, edu: 0.4, wiki: 0.2, other: 0.6 },
  commercial: { brand: 1, shop: 0.95, blog: 0.95, news: 0.8, forum: 0.6, directory: 0.5, wiki: 0.3, edu: 0.45, other: 0.6 },
  informational: { wiki: 1, blog: 1, edu: 0.9, forum: 0.9, news: 0.85, brand: 0.7, shop: 0.55, directory: 0.5, other: 0.7 },
};

/**
 * On a bare head every page about it answers the words; what decides page one is who is
 * trusted for the term: the score of a page about the head leans further on authority, ×
 * (authority / HEAD_AUTHORITY_MIDDLE) to this power (organicRanking.ts; a page of middling
 * strength keeps its score, one of unknown subject such as a homepage is not lifted). Without
 * it the fit above left a head's first page to weaker shops and brands than the encyclopedia
 * it replaced (tiny world: heads' median first-page strength 45.2 → 37.8, heads' median
 * difficulty 53 → 42, under the realism suite's 50); with it (lifting the wanted kinds only), 44.1 and 51.
 */
export const HEAD_AUTHORITY_EXPONENT = 1.5;
export const HEAD_AUTHORITY_MIDDLE = 0.5;

/** The fit from which a kind of site is one the head's searchers want. */
const WANTED = 0.9;

/** Factor on a government site's pages for every keyword of a head not of public interest. */
const GOV_OFF_INTENT = 0.1;

/** The intent of an English head term, undefined for a head without a profile. */
export function headIntent(head: string, languageId: number): HeadIntent | undefined {
  const profile = languageId === ENGLISH ? EN_HEAD_PROFILES[head] : undefined;
  return profile ? INTENT_OF_KIND[profile.kind] : undefined;
}

/** Whether a head is of public interest (a government site fits it), false for a head without a profile. */
export function isPublicInterest(head: string, languageId: number): boolean {
  return languageId === ENGLISH && EN_HEAD_PROFILES[head]?.publicInterest === true;
}

/**
 * The factor on the score of a page of each site kind (by index into `siteKinds`) for a
 * keyword of a head: the head's own fit on the bare head term (its variants carry cue words
 * the intent model reads), and the government rule on all its keywords. Undefined when no
 * rule applies (a head without a profile).
 */
export function headSiteFactors(
  query: { keyword: string; head?: string; languageId: number },
  siteKinds: readonly string[],
): { kind: Float64Array; wanted: Uint8Array; bare: boolean } | undefined {
  const head = query.head ?? query.keyword;
  const intent = headIntent(head, query.languageId);
  if (intent === undefined) return undefined;
  const bare = query.keyword === head;
  const publicInterest = isPublicInterest(head, query.languageId);
  const kind = Float64Array.from(siteKinds, (k) => {
    if (k === 'gov') return publicInterest ? 1 : GOV_OFF_INTENT;
    return bare ? (SITE_FIT[intent][k] ?? SITE_FIT[intent].other) : 1;
  });
  // The kinds the head's searchers want (those at WANTED or more): authority lifts only them.
  return { kind, wanted: Uint8Array.from(kind, (x) => (x >= WANTED ? 1 : 0)), bare };
}
