/**
 * Organic click-through rate by position.
 *
 * Positions 1–10 use the curve published by SISTRIX, "Why (almost) everything you knew
 * about Google CTR is no longer valid" (July 2020; 80 million keywords, desktop and
 * mobile combined): 28.5, 15.7, 11.0, 8.0, 7.2, 5.1, 4.0, 3.2, 2.8, 2.5 %. Beyond the
 * first page the curve decays geometrically by 0.7 per position, so the whole curve
 * sums to under 1 (about 0.94).
 *
 * SERP features above a result take part of its clicks. The factor for a featured
 * snippet follows Ahrefs, "Featured snippets study" (Tim Soulo, 2017: the first organic
 * result's CTR fell from 26 % to 19.6 % under a snippet → ×0.75); the other factors are
 * the model's own estimates of the same effect, milder for small features.
 */

const SISTRIX_2020 = [0.285, 0.157, 0.11, 0.08, 0.072, 0.051, 0.04, 0.032, 0.028, 0.025];
const DECAY_AFTER_FIRST_PAGE = 0.7;

/** Share of an organic result's clicks kept under one feature of this type above it. */
export const FEATURE_CLICK_RETENTION: Readonly<Record<string, number>> = {
  FEATURED_SNIPPET: 0.75,
  ADV_TOP: 0.85,
  LOCAL_PACK: 0.7,
  SHOP_RESULTS: 0.85,
  TOP_STORIES: 0.88,
  VIDEO_PACK: 0.9,
  KNO_GRAPH: 0.9,
  IMG_PACK: 0.93,
  SIMILAR_QUESTIONS: 0.95,
  NEWS_PACK: 0.9,
  TOP_CAROUSEL: 0.85,
};

/** CTR (0–1) of organic position `position` (1-based) on a SERP without features. */
export function baseClickThroughRate(position: number): number {
  if (position < 1) return 0;
  if (position <= SISTRIX_2020.length) return SISTRIX_2020[position - 1];
  return SISTRIX_2020[SISTRIX_2020.length - 1] * DECAY_AFTER_FIRST_PAGE ** (position - SISTRIX_2020.length);
}

/**
 * CTR of an organic result with the given SERP features laid out above it. Features
 * listed later in the page are above more results, so the curve stays non-increasing.
 */
export function clickThroughRate(position: number, featuresAbove: readonly string[]): number {
  let ctr = baseClickThroughRate(position);
  for (const type of featuresAbove) ctr *= FEATURE_CLICK_RETENTION[type] ?? 0.97;
  return Math.round(ctr * 10000) / 10000;
}
