/**
 * Social share counts over time. A page collects shares fast after publication and
 * then saturates (the usual "half-life" pattern of social attention, e.g. Bitly's
 * 2011 study of link half-lives); we model cumulative shares as
 *   shares(t) = final · (1 − e^(−age(t)/τ)) / (1 − e^(−age(now)/τ)),  τ = 120 days,
 * so the count at the build date equals the stored `pages.shares`.
 */
const TAU_DAYS = 120;

export function pageSharesAt(finalShares: number, publishedDay: number, asOfDay: number, day: number): number {
  if (day < publishedDay || finalShares <= 0) return 0;
  const now = 1 - Math.exp(-Math.max(1, asOfDay - publishedDay) / TAU_DAYS);
  const then = 1 - Math.exp(-Math.max(0, Math.min(day, asOfDay) - publishedDay) / TAU_DAYS);
  return Math.round((finalShares * then) / now);
}
