/**
 * Keyword difficulty 0–100 from the authority of the first page's organic results.
 *
 * The idea follows Moz's Keyword Difficulty (Moz, "Keyword Difficulty", help article,
 * 2021: "based on the Page Authority and Domain Authority of the pages ranking on the
 * first page, weighted toward the top"). Each of the top 10 results contributes its
 * strength 0.6·PA + 0.4·DA; positions are weighted by the logarithmic discount of
 * DCG, 1/log2(1 + position) (Järvelin & Kekäläinen, "Cumulated gain-based evaluation
 * of IR techniques", ACM TOIS 20(4), 2002). Fewer than 10 results make a keyword
 * easier: missing positions count as strength 0.
 */

export interface RankedAuthority {
  /** Page authority 0–100. */
  upa: number;
  /** Domain authority 0–100. */
  pda: number;
}

const TOP = 10;

/** Strength 0–100 of a first page (organic results, best first): its authority weighted toward the top. */
export function firstPageStrength(topResults: readonly RankedAuthority[]): number {
  let weighted = 0;
  let weights = 0;
  for (let i = 0; i < TOP; i++) {
    const w = 1 / Math.log2(2 + i);
    weights += w;
    const r = topResults[i];
    if (r) weighted += w * (0.6 * r.upa + 0.4 * r.pda);
  }
  return weighted / weights;
}

/**
 * Difficulty 0–100 (integer) of a keyword whose organic results, best first, are given, on a
 * fixed curve of their authority: for a SERP fetched from the real web. The research engine
 * reads its own first pages against its market's (difficultyScale.ts).
 */
export function keywordDifficulty(topResults: readonly RankedAuthority[]): number {
  const strength = firstPageStrength(topResults);
  // A mild S-shaped stretch (monotone, so rank order is kept) spreads the middle of the
  // scale where most first pages sit, as difficulty tools' published distributions do.
  const x = strength / 100;
  const stretched = x * x * (3 - 2 * x);
  return Math.max(0, Math.min(100, Math.round(100 * (0.5 * x + 0.5 * stretched))));
}
