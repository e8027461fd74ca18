/**
 * Monthly site history of every root domain since 2016-01: referring domains, IPs and
 * subnets alive at each month end, CitationFlow/TrustFlow and TopRank at each month,
 * social shares.
 *
 * A referring domain (IP, subnet) counts at month m when one of its links was alive at
 * the month end: alive over [first seen of its first link, end of its last link]
 * (gaps between links of one pair are ignored — the usual "first seen / last seen"
 * approximation of link indexes). Flows at month m scale today's flow by the log of the
 * referring domains then and now (flows are log-scaled in referring mass, flows.ts);
 * TopRank at m ranks domains by pda scaled the same way.
 */
import type { LinkGraphInput } from '../links/linkGraphInput.js';
import { lastDayOfMonthIndex, monthIndexSince2016, monthLabel } from '../world/dates.js';
import { pageSharesAt } from '../world/social.js';

export interface RootHistory {
  start: string;
  topRank: number[];
  refDomains: number[];
  refIps: number[];
  refSubnets: number[];
  citationFlow: number[];
  trustFlow: number[];
  social: number[];
}

function aliveCounts(g: LinkGraphInput, months: number, value: (i: number) => number, valueRange: number, external: (i: number) => boolean): Int32Array {
  // Pair (target root, value) → [first day, last day], then a difference array per root.
  const spans = new Map<number, number>();
  const firsts: number[] = [];
  const lasts: number[] = [];
  for (let i = 0; i < g.linkCount; i++) {
    if (!external(i)) continue;
    const key = g.pageRoot[g.linkTarget[i]] * valueRange + value(i);
    const slot = spans.get(key);
    if (slot === undefined) {
      spans.set(key, firsts.length);
      firsts.push(g.linkFirstDay[i]);
      lasts.push(g.linkEndDay[i]);
    } else {
      if (g.linkFirstDay[i] < firsts[slot]) firsts[slot] = g.linkFirstDay[i];
      if (g.linkEndDay[i] > lasts[slot]) lasts[slot] = g.linkEndDay[i];
    }
  }
  const diff = new Int32Array(g.rootCount * (months + 1));
  for (const [key, slot] of spans) {
    const root = Math.floor(key / valueRange);
    // Alive at month m iff first ≤ end(m) ≤ last, end(m) = month end (build day for the build month).
    const endDay = (m: number): number => (m === months - 1 ? g.asOfDay : lastDayOfMonthIndex(m));
    const from = Math.max(0, monthIndexSince2016(firsts[slot]));
    let to = Math.min(months - 1, monthIndexSince2016(lasts[slot]));
    if (to >= 0 && endDay(to) > lasts[slot]) to--;
    if (from > to) continue;
    diff[root * (months + 1) + from]++;
    diff[root * (months + 1) + to + 1]--;
  }
  const out = new Int32Array(g.rootCount * months);
  for (let r = 0; r < g.rootCount; r++) {
    let running = 0;
    for (let m = 0; m < months; m++) {
      running += diff[r * (months + 1) + m];
      out[r * months + m] = running;
    }
  }
  return out;
}

/**
 * Histories of all root domains. The last month is the build month, counted at the
 * build day (so its values equal today's counters).
 */
export function computeRootHistories(
  g: LinkGraphInput,
  rootCf: Uint8Array,
  rootTf: Uint8Array,
  rootPda: Uint8Array,
): RootHistory[] {
  const months = monthIndexSince2016(g.asOfDay) + 1;
  const external = (i: number): boolean => g.pageRoot[g.linkSource[i]] !== g.pageRoot[g.linkTarget[i]];
  const srcRoot = (i: number): number => g.pageRoot[g.linkSource[i]];
  const domains = aliveCounts(g, months, srcRoot, g.rootCount, external);
  const ips = aliveCounts(g, months, (i) => g.hostIp[g.pageHost[g.linkSource[i]]], g.hostCount + 1, external);
  const subnets = aliveCounts(g, months, (i) => g.hostSubnet[g.pageHost[g.linkSource[i]]], g.hostCount + 1, external);

  const social = new Float64Array(g.rootCount * months);
  for (let p = 0; p < g.pageCount; p++) {
    if (g.pageShares[p] <= 0) continue;
    const base = g.pageRoot[p] * months;
    const firstMonth = Math.max(0, monthIndexSince2016(g.pagePublished[p]));
    for (let m = firstMonth; m < months; m++) {
      const day = m === months - 1 ? g.asOfDay : lastDayOfMonthIndex(m);
      social[base + m] += pageSharesAt(g.pageShares[p], g.pagePublished[p], g.asOfDay, day);
    }
  }

  const scale = (r: number, m: number): number => {
    const now = domains[r * months + months - 1];
    return now > 0 ? Math.log1p(domains[r * months + m]) / Math.log1p(now) : domains[r * months + m] > 0 ? 1 : 0;
  };
  const topRank = new Int32Array(g.rootCount * months);
  const order = Array.from({ length: g.rootCount }, (_, i) => i);
  const strength = new Float64Array(g.rootCount);
  for (let m = 0; m < months; m++) {
    for (let r = 0; r < g.rootCount; r++) strength[r] = rootPda[r] * scale(r, m) + domains[r * months + m] * 1e-9;
    order.sort((a, b) => strength[b] - strength[a] || a - b);
    order.forEach((r, position) => (topRank[r * months + m] = position + 1));
  }

  const histories: RootHistory[] = [];
  for (let r = 0; r < g.rootCount; r++) {
    const h: RootHistory = { start: monthLabel(0), topRank: [], refDomains: [], refIps: [], refSubnets: [], citationFlow: [], trustFlow: [], social: [] };
    for (let m = 0; m < months; m++) {
      const k = r * months + m;
      h.topRank.push(topRank[k]);
      h.refDomains.push(domains[k]);
      h.refIps.push(ips[k]);
      h.refSubnets.push(subnets[k]);
      h.citationFlow.push(Math.round(rootCf[r] * scale(r, m)));
      h.trustFlow.push(Math.round(rootTf[r] * scale(r, m)));
      h.social.push(Math.round(social[k]));
    }
    histories.push(h);
  }
  return histories;
}
