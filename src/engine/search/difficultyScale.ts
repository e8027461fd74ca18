/**
 * The research engine's keyword difficulty (issue 27): how strong a keyword's first page is
 * against the market's first pages, and how contested the keyword is.
 *
 * The authority of a first page (keywordDifficulty.ts `firstPageStrength`: PA and DA, weighted
 * toward the top) is on the scale of the web it was measured on: the sandbox's small world has
 * weaker pages than its tiny one (median first page 21 against 37), so a fixed curve read
 * "running shoes" 12 and nothing above 48 there. Here a first page is read against the
 * market's median first page, as Moz's DA is a scale relative to its own index: at the median
 * a keyword is "possible" (36), each point of strength above or below moves it 1.6.
 *
 * Semrush's published method weighs the keyword's own figures beside the first page's; so
 * does this one, a little: demand (8 points a decade of monthly searches from 1,000, −15 for a
 * long tail searched ten times a month, at most +5: every head is fought over, and heads'
 * volumes must not outweigh their first pages) and what a click is worth (its CPC, 1 point a
 * decade from $1). Keywords of one intent share volume and CPC (keywordGenerator.ts), so
 * synonyms stay as close as their first pages are; for a given keyword, difficulty rises with
 * its first page's strength, and across heads it follows their first pages' authority
 * (searchEngine.test.ts: Spearman ≥ 0.8). The demand terms are kept small for that rule: once
 * rankings penalised untrusted and foreign sites (generator v14), +8 for volume and 2 a decade
 * of CPC brought the tiny world's Spearman to 0.77; at +5 and 1 it is 0.82, and the steeper
 * 1.6 per point keeps the spread. The constants are this model's calibration (generator v15,
 * seed 1): tiny heads' median 53 (the hardest 77, money heads' 58), a tenth of all keywords
 * 22 or less; small heads' median 58.5 (the hardest 77, money heads' 65), 4+ word keywords'
 * median 26, a tenth 14 or less; synonyms (first pages up to ~8 points apart) stay within 15.
 */
import { firstPageStrength, type RankedAuthority } from './keywordDifficulty.js';

/** Difficulty of a first page of the market's median strength. */
const AT_MEDIAN = 36;
/** Points per point of first-page strength. */
const PER_STRENGTH = 1.6;
/** Points per decade of monthly searches above 1,000, and their bounds. */
const PER_VOLUME_DECADE = 8;
const VOLUME_POINTS: readonly [number, number] = [-15, 5];
/** Points per decade of CPC above $1. */
const PER_CPC_DECADE = 1;

/** What a keyword brings to its difficulty beside its first page. */
export interface KeywordDemand {
  /** Monthly searches (worldwide). */
  volume: number;
  /** Cost per click, USD; 0 or less when unknown or nobody bids. */
  cpc: number;
}

export class DifficultyScale {
  /** The median first-page strength of the market's ranked keywords. */
  readonly median: number;

  /** From the first-page strengths of a market's ranked keywords. */
  constructor(strengths: Iterable<number>) {
    const sorted = Float64Array.from(strengths).sort();
    const n = sorted.length;
    this.median = n === 0 ? 0 : n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** Difficulty 0–100 (integer) of a keyword with this first page (best first). An empty page is 0. */
  difficulty(topResults: readonly RankedAuthority[], demand: KeywordDemand): number {
    if (topResults.length === 0) return 0;
    const authority = AT_MEDIAN + PER_STRENGTH * (firstPageStrength(topResults) - this.median);
    const searched = PER_VOLUME_DECADE * Math.log10(Math.max(1, demand.volume) / 1000);
    const value = demand.cpc > 0 ? PER_CPC_DECADE * Math.log10(Math.max(0.1, demand.cpc)) : 0;
    const total = authority + Math.max(VOLUME_POINTS[0], Math.min(VOLUME_POINTS[1], searched)) + value;
    return Math.max(0, Math.min(100, Math.round(total)));
  }
}
