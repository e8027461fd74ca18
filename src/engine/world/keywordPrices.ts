/**
 * What a click costs in the sandbox web (issue 27): the price of a head's keywords and each
 * market's price level.
 *
 * Advertisers pay for a click what a customer is worth to them, so a head's price follows
 * the money behind it: insurance, loans, mortgages, credit and degrees cost ten to thirty
 * times a hobby's click (a hobby head is about a dollar in the US, "car insurance" some
 * $30). Heads not listed here take their niche's median (niches.ts `cpc`).
 *
 * A keyword's stored CPC is its price at the US level, in USD. Each country has its own
 * auction and price level: a market's CPC is the stored one times the country's level
 * (the UK about two thirds of the US in USD, India a tenth). The levels are this model's
 * calibration, in the order of published country CPC indices, not any provider's figures.
 */
import { MARKETS, type WorldLanguage } from './markets.js';

/** Price (USD, US level) of a head's commercial keywords, where it is far from its niche's median. */
export const HEAD_CPC: Readonly<Record<WorldLanguage, Readonly<Record<string, number>>>> = {
  en: {
    'car insurance': 30,
    'life insurance': 24,
    'personal loan': 16,
    'student loans': 12,
    mortgage: 12,
    'credit card': 11,
    'stock broker': 7,
    'savings account': 6,
    'retirement plan': 6,
    'tax software': 6,
    'credit score': 3.5,
    'index funds': 3,
    'budget app': 3,
    'pet insurance': 9,
    'travel insurance': 6,
    'mba programs': 14,
    'online degree': 14,
    'coding bootcamp': 9,
    'online courses': 4,
    'sat prep': 4,
    vpn: 4.5,
    mattress: 3.5,
    'ev charger': 3,
  },
  // German and French money heads: priced so that the click in their own market (times its level) reads right.
  de: {
    'kfz versicherung': 14,
    kredit: 14,
    baufinanzierung: 11,
    kreditkarte: 9,
    tagesgeld: 4,
    'etf sparplan': 3,
    reiseversicherung: 5,
    fernstudium: 8,
  },
  fr: {
    'assurance auto': 14,
    'prêt personnel': 11,
    'crédit immobilier': 10,
    'assurance vie': 9,
    'carte de crédit': 6,
    'livret épargne': 3,
    'assurance voyage': 5,
    'formation à distance': 6,
  },
};

/** Price level of a country's clicks relative to the US, in USD (Google Ads geotarget id → level). */
const PRICE_LEVELS: ReadonlyMap<number, number> = new Map([
  [2840, 1], // United States
  [2826, 0.65], // United Kingdom
  [2124, 0.75], // Canada
  [2036, 0.8], // Australia
  [2356, 0.1], // India
  [2372, 0.6], // Ireland
  [2554, 0.6], // New Zealand
  [2710, 0.25], // South Africa
  [2702, 0.55], // Singapore
  [2608, 0.12], // Philippines
  [2276, 0.7], // Germany
  [2040, 0.65], // Austria
  [2756, 1], // Switzerland
  [2250, 0.55], // France
  [2056, 0.55], // Belgium
  [2504, 0.12], // Morocco
]);

/** The level of a country none of the sandbox's languages has as a market. */
const OTHER_LEVEL = 0.35;

/**
 * The price level of a country (its Google Ads geotarget id), or of the whole world (0) for
 * keywords of a language: there, the mean of the language's markets weighted by their usual
 * share of its searches (MARKETS: ~92 %), the rest at the level of other countries.
 */
export function priceLevel(countryId: number, language: WorldLanguage | undefined): number {
  if (countryId !== 0) return PRICE_LEVELS.get(countryId) ?? OTHER_LEVEL;
  const markets = language === undefined ? [] : MARKETS[language];
  const total = markets.reduce((sum, m) => sum + m.share, 0);
  if (total === 0) return OTHER_LEVEL;
  const weighted = markets.reduce((sum, m) => sum + (m.share / total) * (PRICE_LEVELS.get(m.locationId) ?? OTHER_LEVEL), 0);
  return 0.92 * weighted + 0.08 * OTHER_LEVEL;
}

/** A keyword's CPC in a market from its US-level price: cents, and never 0 for a keyword that has a price. */
export function marketCpc(usLevelCpc: number, level: number): number {
  if (usLevelCpc <= 0) return usLevelCpc;
  return Math.max(0.01, Math.round(usLevelCpc * level * 100) / 100);
}
