/**
 * Languages and country markets of the sandbox web: the language ids the keywords carry
 * and each language's countries with their usual share of its searches.
 */
export const LANGUAGE_IDS = { en: 1000, de: 1001, fr: 1002 } as const;
export type WorldLanguage = keyof typeof LANGUAGE_IDS;

/**
 * Country markets per language: Google Ads geotarget id and the typical share of the
 * language's searches (noised per keyword, then normalised).
 */
export const MARKETS: Record<WorldLanguage, readonly { locationId: number; share: number }[]> = {
  en: [
    { locationId: 2840, share: 0.5 },
    { locationId: 2826, share: 0.13 },
    { locationId: 2124, share: 0.07 },
    { locationId: 2036, share: 0.06 },
    { locationId: 2356, share: 0.1 },
    { locationId: 2372, share: 0.02 },
    { locationId: 2554, share: 0.015 },
    { locationId: 2710, share: 0.025 },
    { locationId: 2702, share: 0.015 },
    { locationId: 2608, share: 0.03 },
  ],
  de: [
    { locationId: 2276, share: 0.8 },
    { locationId: 2040, share: 0.1 },
    { locationId: 2756, share: 0.1 },
  ],
  fr: [
    { locationId: 2250, share: 0.75 },
    { locationId: 2056, share: 0.08 },
    { locationId: 2756, share: 0.05 },
    { locationId: 2124, share: 0.1 },
    { locationId: 2504, share: 0.02 },
  ],
};
