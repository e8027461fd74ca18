/**
 * Day numbers (days since 1970-01-01, UTC) for the link timeline: integer arithmetic in
 * typed arrays while generating, `YYYY-MM-DD` text when stored.
 */
const MS_PER_DAY = 86_400_000;

export function dayNumber(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

export function dayFromIso(date: string): number {
  return Math.floor(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / MS_PER_DAY);
}

const isoCache = new Map<number, string>();

/** `YYYY-MM-DD` of a day number (memoised: the timeline has a few thousand days). */
export function isoDay(day: number): string {
  let text = isoCache.get(day);
  if (text === undefined) {
    text = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    isoCache.set(day, text);
  }
  return text;
}

/** Months since 2016-01 (0 = January 2016) of a day number. */
export function monthIndexSince2016(day: number): number {
  const d = new Date(day * MS_PER_DAY);
  return (d.getUTCFullYear() - 2016) * 12 + d.getUTCMonth();
}

/** `YYYY-MM` of a month index since 2016-01. */
export function monthLabel(index: number): string {
  const year = 2016 + Math.floor(index / 12);
  const month = (index % 12) + 1;
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** Day number of the last day of a month index since 2016-01. */
export function lastDayOfMonthIndex(index: number): number {
  const year = 2016 + Math.floor(index / 12);
  const month = index % 12; // 0-based
  return dayNumber(Date.UTC(year, month + 1, 1)) - 1;
}

export const TIMELINE_START_DAY = dayFromIso('2016-01-01');
