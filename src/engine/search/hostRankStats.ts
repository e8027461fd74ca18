/**
 * Organic ranking statistics of a host in one market, from that market's rank index (the
 * site tool's `rankDist`): how many keywords the host ranks for per position band, and the
 * traffic those rankings bring.
 *
 * Per keyword only the host's best position counts. With `sv` the keyword's average monthly
 * searches in the market and `ctr(p)` the organic click-through curve without features
 * (clickThroughCurve.ts):
 * - `etv` (estimated traffic) = Σ sv · ctr(position);
 * - `impressions_etv` = Σ sv over first-page rankings (positions 1–10): the searches that
 *   show the host on the page a searcher sees first;
 * - `estimated_paid_traffic_cost` = Σ sv · ctr(position) · cpc: what that traffic would
 *   cost as ads.
 * The index keeps positions 1–RANK_DEPTH, so bands past it count 0, and it is one build
 * (no earlier one to compare with), so `is_new`, `is_up`, `is_down` and `is_lost` are 0.
 */
import { baseClickThroughRate } from './clickThroughCurve.js';
import type { RankIndex } from './rankIndex.js';

/** Position bands: `pos_1`, `pos_2_3`, `pos_4_10`, then tens up to `pos_91_100`. */
export const POSITION_BANDS: readonly { name: string; from: number; to: number }[] = [
  { name: 'pos_1', from: 1, to: 1 },
  { name: 'pos_2_3', from: 2, to: 3 },
  { name: 'pos_4_10', from: 4, to: 10 },
  ...Array.from({ length: 9 }, (_, i) => ({ name: `pos_${11 + i * 10}_${20 + i * 10}`, from: 11 + i * 10, to: 20 + i * 10 })),
];

export interface HostRankStats {
  locationId: number;
  host: string;
  /** Date of the rank index (`YYYY-MM-DD`). */
  date: string;
  /** Band counts, `count`, `etv`, `impressions_etv`, `estimated_paid_traffic_cost`, `is_new`, `is_up`, `is_down`, `is_lost`. */
  organic: Record<string, number>;
}

const cents = (x: number): number => Math.round(x * 100) / 100;

/** Statistics of the rank-index rows of one host; `volume` gives a keyword's monthly searches and cpc in the index's market. */
export function hostRankStats(
  index: RankIndex,
  host: string,
  rows: readonly number[],
  volume: (keyword: number) => { sv: number; cpc: number },
): HostRankStats {
  const organic: Record<string, number> = {};
  for (const band of POSITION_BANDS) organic[band.name] = 0;
  let etv = 0;
  let impressions = 0;
  let cost = 0;
  const best = index.bestPerKeyword(rows);
  for (const row of best.values()) {
    const { keyword, position } = index.entry(row);
    const band = POSITION_BANDS.find((b) => position >= b.from && position <= b.to);
    if (band) organic[band.name]++;
    const { sv, cpc } = volume(keyword);
    const traffic = sv * baseClickThroughRate(position);
    etv += traffic;
    cost += traffic * cpc;
    if (position <= 10) impressions += sv;
  }
  Object.assign(organic, {
    count: best.size,
    etv: cents(etv),
    impressions_etv: impressions,
    estimated_paid_traffic_cost: cents(cost),
    is_new: 0,
    is_up: 0,
    is_down: 0,
    is_lost: 0,
  });
  return { locationId: index.locationId, host, date: index.date, organic };
}
