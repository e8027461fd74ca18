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
import { groupByKey, type Groups } from '../links/grouping.js';
import { linkFacts } from '../links/counters.js';
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

/**
 * The months [from, to] (indexes since 2016-01) at whose month end a value alive over
 * [first day, last day] counts; from > to when none. The last month ends on the as-of day.
 */
export function aliveMonths(firstDay: number, lastDay: number, months: number, asOfDay: number): [number, number] {
  const from = Math.max(0, monthIndexSince2016(firstDay));
  let to = Math.min(months - 1, monthIndexSince2016(lastDay));
  if (to >= 0 && (to === months - 1 ? asOfDay : lastDayOfMonthIndex(to)) > lastDay) to--;
  return [from, to];
}

function aliveCounts(g: LinkGraphInput, months: number, groups: Groups, value: Int32Array, valueCount: number): Int32Array {
  // Per root (its external links grouped together), the span of each value
  // [first day of its first link, end of its last link], then a difference array.
  const seen = new Int32Array(valueCount).fill(-1);
  const firsts = new Int32Array(valueCount);
  const lasts = new Int32Array(valueCount);
  const values: number[] = [];
  const diff = new Int32Array(months + 1);
  const out = new Int32Array(g.rootCount * months);
  for (let root = 0; root < g.rootCount; root++) {
    values.length = 0;
    for (let k = groups.offsets[root]; k < groups.offsets[root + 1]; k++) {
      const i = groups.order[k];
      const v = value[i];
      if (seen[v] !== root) {
        seen[v] = root;
        firsts[v] = g.linkFirstDay[i];
        lasts[v] = g.linkEndDay[i];
        values.push(v);
      } else {
        if (g.linkFirstDay[i] < firsts[v]) firsts[v] = g.linkFirstDay[i];
        if (g.linkEndDay[i] > lasts[v]) lasts[v] = g.linkEndDay[i];
      }
    }
    if (values.length === 0) continue;
    diff.fill(0);
    for (const v of values) {
      // Alive at month m iff first ≤ end(m) ≤ last.
      const [from, to] = aliveMonths(firsts[v], lasts[v], months, g.asOfDay);
      if (from > to) continue;
      diff[from]++;
      diff[to + 1]--;
    }
    let running = 0;
    for (let m = 0; m < months; m++) {
      running += diff[m];
      out[root * months + m] = running;
    }
  }
  return out;
}

/**
 * What the history of each root domain counts, month by month (index root · months + m):
 * referring domains, IPs and subnets alive at the month end, social shares. The rest of a
 * history (flows, TopRank) follows from these and today's metrics (historyDocuments).
 */
export interface HistoryCounts {
  months: number;
  domains: Int32Array;
  ips: Int32Array;
  subnets: Int32Array;
  social: Float64Array;
}

/** `onlyRoots` (a mask by root index) limits the social counts to those domains (the others stay 0). */
export function historyCounts(g: LinkGraphInput, onlyRoots?: Uint8Array): HistoryCounts {
  const months = monthIndexSince2016(g.asOfDay) + 1;
  const facts = linkFacts(g);
  const groups = groupByKey(g.rootCount, g.linkCount, facts.targetRoot, facts.external);
  const domains = aliveCounts(g, months, groups, facts.sourceRoot, g.rootCount);
  const ips = aliveCounts(g, months, groups, facts.sourceIp, facts.ipCount);
  const subnets = aliveCounts(g, months, groups, facts.sourceSubnet, facts.subnetCount);

  const social = new Float64Array(g.rootCount * months);
  for (let p = 0; p < g.pageCount; p++) {
    if (g.pageShares[p] <= 0 || (onlyRoots && !onlyRoots[g.pageRoot[p]])) continue;
    const base = g.pageRoot[p] * months;
    const firstMonth = Math.max(0, monthIndexSince2016(g.pagePublished[p]));
    for (let m = firstMonth; m < months; m++) {
      const day = m === months - 1 ? g.asOfDay : lastDayOfMonthIndex(m);
      social[base + m] += pageSharesAt(g.pageShares[p], g.pagePublished[p], g.asOfDay, day);
    }
  }
  return { months, domains, ips, subnets, social };
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
  todayTopRank?: ArrayLike<number>,
): RootHistory[] {
  return historyDocuments(historyCounts(g), g.rootCount, rootCf, rootTf, rootPda, todayTopRank);
}

/**
 * Share of a month's own rank in its smoothed TopRank (the rest comes from the month after).
 * Ranking every month on its own makes a domain jump (100 → 44 → 76 → 34) whenever a few
 * referring domains come or go among thousands of domains of nearly equal strength; link
 * indexes show a rank that moves gradually.
 */
const RANK_SMOOTHING = 0.2;
/**
 * The most a smoothed TopRank moves in a month (a ratio): a domain whose own monthly rank
 * leaps (a new site's first links, 1,000 → 5) climbs over months, as indexes show it.
 */
const MAX_MONTHLY_MOVE = Math.log(1.25);

/**
 * Smooths each root's TopRank series in place: an exponential smoother run from the last
 * month backwards over the ranks' logarithms (ranks are ratios: 10 → 20 is as far as
 * 1,000 → 2,000), so that the last month keeps today's TopRank exactly and each earlier
 * month moves a fifth of the way towards its own month's rank, and never more than 1.25×.
 */
export function smoothRanks(topRank: Int32Array, rootCount: number, months: number): void {
  for (let r = 0; r < rootCount; r++) {
    const base = r * months;
    let level = Math.log(topRank[base + months - 1]);
    for (let m = months - 2; m >= 0; m--) {
      const step = RANK_SMOOTHING * (Math.log(topRank[base + m]) - level);
      level += Math.max(-MAX_MONTHLY_MOVE, Math.min(MAX_MONTHLY_MOVE, step));
      topRank[base + m] = Math.max(1, Math.round(Math.exp(level)));
    }
  }
}

/** Monthly TopRank of every root (index root · months + m, smoothed) and the scales of its flows. */
export interface HistoryRanks {
  months: number;
  /** Each root's referring domains at month m on a log scale relative to now. */
  scales: Float64Array;
  topRank: Int32Array;
}

/**
 * The monthly TopRank of every root domain: at each month, domains ordered by pda scaled by
 * their referring domains then (ties: more referring domains, then id), smoothed towards
 * `todayTopRank` (the metrics' TopRank), which the last month shows.
 */
export function historyRanks(counts: HistoryCounts, rootCount: number, rootPda: Uint8Array, todayTopRank?: ArrayLike<number>): HistoryRanks {
  const { months, domains } = counts;
  // Computed once: the ranks and both flows read it.
  const scales = new Float64Array(rootCount * months);
  for (let r = 0; r < rootCount; r++) {
    const base = r * months;
    const now = domains[base + months - 1];
    for (let m = 0; m < months; m++) scales[base + m] = now > 0 ? Math.log1p(domains[base + m]) / Math.log1p(now) : domains[base + m] > 0 ? 1 : 0;
  }
  const topRank = new Int32Array(rootCount * months);
  const order = Array.from({ length: rootCount }, (_, i) => i);
  const strength = new Float64Array(rootCount);
  // The last month shows today's TopRank when given for every root: no need to rank it.
  let rankedMonths = months;
  if (todayTopRank && Array.prototype.every.call(todayTopRank, (rank: number) => rank >= 1)) rankedMonths = months - 1;
  for (let m = 0; m < rankedMonths; m++) {
    for (let r = 0; r < rootCount; r++) strength[r] = rootPda[r] * scales[r * months + m] + domains[r * months + m] * 1e-9;
    order.sort((a, b) => strength[b] - strength[a] || a - b);
    order.forEach((r, position) => (topRank[r * months + m] = position + 1));
  }
  if (todayTopRank) for (let r = 0; r < rootCount; r++) if (todayTopRank[r] >= 1) topRank[r * months + months - 1] = todayTopRank[r];
  smoothRanks(topRank, rootCount, months);
  return { months, scales, topRank };
}

/** The history document of root `r` from the monthly counts, its monthly ranks and today's flows. */
export function historyDocument(r: number, counts: HistoryCounts, ranks: HistoryRanks, rootCf: Uint8Array, rootTf: Uint8Array): RootHistory {
  const { months, domains, ips, subnets, social } = counts;
  const base = r * months;
  const citationFlow = new Array<number>(months);
  const trustFlow = new Array<number>(months);
  const shares = new Array<number>(months);
  for (let m = 0; m < months; m++) {
    citationFlow[m] = Math.round(rootCf[r] * ranks.scales[base + m]);
    trustFlow[m] = Math.round(rootTf[r] * ranks.scales[base + m]);
    shares[m] = Math.round(social[base + m]);
  }
  const series = (values: Int32Array) => Array.from(values.subarray(base, base + months));
  return {
    start: monthLabel(0),
    topRank: series(ranks.topRank),
    refDomains: series(domains),
    refIps: series(ips),
    refSubnets: series(subnets),
    citationFlow,
    trustFlow,
    social: shares,
  };
}

/** History documents from the monthly counts and today's flows and pda of every root domain. */
/** `todayTopRank`: today's TopRank of each root (the metrics'), which the last month then shows. */
export function historyDocuments(
  counts: HistoryCounts,
  rootCount: number,
  rootCf: Uint8Array,
  rootTf: Uint8Array,
  rootPda: Uint8Array,
  todayTopRank?: ArrayLike<number>,
): RootHistory[] {
  const ranks = historyRanks(counts, rootCount, rootPda, todayTopRank);
  return Array.from({ length: rootCount }, (_, r) => historyDocument(r, counts, ranks, rootCf, rootTf));
}
