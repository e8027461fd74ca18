/**
 * Locations competitor keywords supports (keyword-tool rule 2): 0 (anywhere) and the
 * countries below; a city or region is looked up as its country; anything else answers
 * 204 with an empty body and charges nothing.
 */
import type { LocationRegistry } from '../../locations/registry.js';

export const COMPETITOR_COUNTRIES: ReadonlySet<number> = new Set([
  2012, 2024, 2032, 2051, 2036, 2040, 2031, 2048, 2050, 2056, 2068, 2076, 2100, 2854, 2116, 2120, 2124, 2152, 2170, 2188, 2384, 2191, 2196, 2203, 2208, 2218,
  2818, 2222, 2233, 2246, 2250, 2276, 2288, 2300, 2320, 2344, 2348, 2356, 2360, 2372, 2376, 2380, 2392, 2400, 2398, 2404, 2428, 2440, 2458, 2470, 2484, 2504,
  2104, 2528, 2554, 2558, 2566, 2807, 2578, 2586, 2591, 2600, 2604, 2608, 2616, 2620, 2642, 2682, 2686, 2688, 2702, 2703, 2705, 2710, 2410, 2724, 2144, 2752,
  2756, 2158, 2764, 2788, 2792, 2804, 2784, 2826, 2840, 2858, 2862, 2704,
]);

/** The location competitor keywords are computed for, or null when it is not supported. */
export function competitorLocation(locationId: number, locations: LocationRegistry): number | null {
  if (locationId === 0) return 0;
  const country = locations.countryOf(locationId);
  if (!country || !COMPETITOR_COUNTRIES.has(country.id)) return null;
  return country.id;
}
