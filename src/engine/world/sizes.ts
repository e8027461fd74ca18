import type { WorldSize } from '../../config.js';

/** Targets for each world size (see DESIGN.md §6 and the task brief for the minima). */
export interface WorldSizeSpec {
  /** At most this many keywords: the patterns of keywordGenerator.ts give about 22,000 in all. */
  keywords: number;
  rootDomains: number;
  /** Pages of the giant wiki (the root domain with the most backlinks). */
  giantPages: number;
  /** Share of external links that point at the giant wiki. */
  giantShare: number;
  /** Mean external out-links per page (before kind multipliers). */
  meanExternalLinks: number;
  /** Median pages of an ordinary site. */
  medianPages: number;
}

export const WORLD_SIZE_SPECS: Record<WorldSize, WorldSizeSpec> = {
  tiny: { keywords: 2_500, rootDomains: 420, giantPages: 800, giantShare: 0.12, meanExternalLinks: 5.5, medianPages: 12 },
  small: { keywords: 55_000, rootDomains: 21_000, giantPages: 12_000, giantShare: 0.68, meanExternalLinks: 9.5, medianPages: 4 },
  large: { keywords: 80_000, rootDomains: 220_000, giantPages: 150_000, giantShare: 0.25, meanExternalLinks: 9.5, medianPages: 4 },
};
