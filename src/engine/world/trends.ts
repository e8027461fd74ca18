/**
 * Seeded trend exceptions to the volume order (issue 17). By construction a longer variant
 * never outsearches a shorter keyword it contains (keywordGenerator.ts); real search has a
 * documented exception: a brand-new trend ("high yield savings account" after rates rose,
 * "ev charger near me" as electric cars spread) that already draws more searches than its
 * head. Each world lets a seeded few of the candidates below break out: their volume is set
 * above their head's, and their yearly trend is a breakout's (BREAKOUT_MIN_TREND or more),
 * so that their history shows the climb, and the exception can be told from the stored
 * keyword alone (`isBreakout`).
 *
 * The world's pages were written before the breakout (sites are generated from the volumes
 * before it, see buildWorld.ts): the web lags a trend, and the rest of the world stays the
 * same whichever candidates the seed picks.
 */
import { VARIANT_CAP, containedPhrases, type GeneratedKeyword } from './keywordGenerator.js';
import type { Rng } from './random.js';

/** English variants that could be brand-new trends; those a world has are its candidates. */
export const BREAKOUT_CANDIDATES: readonly string[] = [
  'high yield savings account',
  'cordless lawn mower',
  'usb c monitor',
  'vegan protein powder',
  'ultralight tent',
  'smart air purifier',
  'keto meal prep',
  'ev charger near me',
  'sourdough bread for beginners',
];

/** Share of a world's candidates that break out (at least one when it has any). */
const BREAKOUT_SHARE = 0.4;

/**
 * A breakout at least doubles its searches in a year; an ordinary keyword follows its
 * niche's few percent (niches.ts), so the two never meet.
 */
export const BREAKOUT_MIN_TREND = 2;

/** Whether a keyword is a seeded trend exception (the one kind of variant allowed to outsearch its head). */
export function isBreakout(keyword: { trend: number }): boolean {
  return keyword.trend >= BREAKOUT_MIN_TREND;
}

/**
 * Lets a seeded few candidates break out, in place: volume 1.1–1.8× its head's (so above it
 * in every market: a head and its variants share market shares) yet below any other shorter
 * keyword it contains, yearly trend 2.5–5×. A candidate in a synonym family (which shares
 * one volume), or one that another keyword it contains keeps from outsearching its head, is
 * left alone. Returns the keywords that broke out.
 */
export function seedBreakouts(keywords: GeneratedKeyword[], rng: Rng): GeneratedKeyword[] {
  const english = new Map(keywords.filter((k) => k.languageId === 1000).map((k) => [k.kw, k]));
  /** The most a candidate may draw: below every shorter keyword but its head (keywordGenerator.ts's cap). */
  const ceiling = (k: GeneratedKeyword) =>
    Math.min(...containedPhrases(k.kw).map((phrase) => (phrase === k.head ? Infinity : (english.get(phrase)?.volume ?? Infinity) * VARIANT_CAP)));
  const present = BREAKOUT_CANDIDATES.map((kw) => english.get(kw)).filter(
    (k): k is GeneratedKeyword => k !== undefined && k.synonyms.length === 0 && english.has(k.head) && ceiling(k) > 1.2 * english.get(k.head)!.volume,
  );
  // Fisher–Yates shuffle (Knuth, TAOCP vol. 2, Algorithm P), then take the share that breaks out.
  for (let i = present.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [present[i], present[j]] = [present[j], present[i]];
  }
  const chosen = present.slice(0, present.length === 0 ? 0 : Math.max(1, Math.round(present.length * BREAKOUT_SHARE)));
  for (const k of chosen) {
    const head = english.get(k.head)!.volume;
    k.volume = Math.round(Math.min(head * (1.1 + 0.7 * rng.next()), ceiling(k)));
    k.trend = Math.round((2.5 + 2.5 * rng.next()) * 1e4) / 1e4;
  }
  return chosen;
}
