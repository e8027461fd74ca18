/**
 * The stored link metrics an incremental update starts from (incrementalMetrics.ts): the
 * ranks, scores and counters of every entity, the root histories, and the tolerance a
 * stored score or TopRank keeps within.
 */
import type SqliteDatabase from 'better-sqlite3';
import { COUNTER_NAMES, type Counters } from './counters.js';
import type { EntityArrays } from './graphLoader.js';
import { roundScore } from './flows.js';
import type { HistoryCounts, RootHistory } from '../sites/siteHistory.js';
import { COUNTER_COLUMNS } from '../researchSchema.js';

export interface StoredLevel {
  present: Uint8Array;
  pagerank: Float64Array;
  trustrank: Float64Array;
  citationFlow: Uint8Array;
  trustFlow: Uint8Array;
  authority: Uint8Array;
  topRank: Int32Array;
  refDomains: Int32Array;
}

function storedLevel(n: number): StoredLevel {
  return {
    present: new Uint8Array(n),
    pagerank: new Float64Array(n),
    trustrank: new Float64Array(n),
    citationFlow: new Uint8Array(n),
    trustFlow: new Uint8Array(n),
    authority: new Uint8Array(n),
    topRank: new Int32Array(n),
    refDomains: new Int32Array(n),
  };
}

export function loadStoredMetrics(raw: SqliteDatabase.Database, e: EntityArrays): StoredLevel[] {
  const levels = [storedLevel(e.pageCount), storedLevel(e.hostCount), storedLevel(e.rootCount)];
  for (const [level, id, pr, tr, cf, tf, authority, topRank, refDomains] of raw
    .prepare('SELECT level, entity_id, pagerank, trustrank, citation_flow, trust_flow, authority, top_rank, ref_domains FROM entity_metrics')
    .raw()
    .iterate() as IterableIterator<number[]>) {
    const s = levels[level];
    if (!s || id < 1 || id > s.present.length) continue;
    const i = id - 1;
    s.present[i] = 1;
    s.pagerank[i] = pr;
    s.trustrank[i] = tr;
    s.citationFlow[i] = cf;
    s.trustFlow[i] = tf;
    s.authority[i] = authority;
    s.topRank[i] = topRank;
    s.refDomains[i] = refDomains;
  }
  return levels;
}

/** A vector that sums to 1 (a warm start must be a distribution); null when it is all zeros. */
export function normalised(values: Float64Array): Float64Array | null {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  if (!(sum > 0)) return null;
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] / sum;
  return out;
}

/**
 * Whether a stored TopRank (a position, 1 best) may stay for the exact one: within 1 % of it
 * (positions are ratios, as the history smoother treats them), so the first hundred are exact.
 */
export function nearRank(stored: number, exact: number): boolean {
  return Math.abs(stored - exact) <= Math.floor(exact / 100);
}

/** A score after the update: the stored one while the exact value stays within a point of it. */
export function settle(present: number, stored: number, exact: number): number {
  return present && Math.abs(exact - stored) < 1 ? stored : roundScore(exact);
}

/** Scores of one level after the update (see `settle`). */
export function settleAll(s: StoredLevel, storedScores: (s: StoredLevel) => Uint8Array, exact: Float64Array): Uint8Array {
  const previous = storedScores(s);
  const out = new Uint8Array(exact.length);
  for (let i = 0; i < exact.length; i++) out[i] = settle(s.present[i], previous[i], exact[i]);
  return out;
}

/** The stored counters of the affected entities that have stored metrics, into `counters`. */
export function loadStoredCounters(raw: SqliteDatabase.Database, affected: Uint8Array[], stored: StoredLevel[], counters: Counters[]): void {
  const select = raw.prepare(`SELECT ${COUNTER_COLUMNS.join(', ')} FROM entity_metrics WHERE level = ? AND entity_id = ?`).raw();
  for (let l = 0; l < 3; l++) {
    for (let i = 0; i < affected[l].length; i++) {
      if (!affected[l][i] || !stored[l].present[i]) continue;
      const values = select.get(l, i + 1) as number[];
      for (let c = 0; c < COUNTER_NAMES.length; c++) counters[l][COUNTER_NAMES[c]][i] = values[c];
    }
  }
}

/** Every stored root history document by root index (undefined where none). */
export function loadHistories(raw: SqliteDatabase.Database, rootCount: number): (string | undefined)[] {
  const out = new Array<string | undefined>(rootCount);
  for (const [id, text] of raw.prepare('SELECT root_domain_id, history FROM root_history').raw().iterate() as IterableIterator<[number, string]>) {
    if (id >= 1 && id <= rootCount) out[id - 1] = text;
  }
  return out;
}

/**
 * The monthly counts and TopRanks of the stored histories (zeros for new domains); null when
 * one covers other months.
 */
export function storedHistories(texts: (string | undefined)[], rootCount: number, months: number): { counts: HistoryCounts; storedTopRank: Int32Array } | null {
  const storedTopRank = new Int32Array(rootCount * months);
  const counts: HistoryCounts = {
    months,
    domains: new Int32Array(rootCount * months),
    ips: new Int32Array(rootCount * months),
    subnets: new Int32Array(rootCount * months),
    social: new Float64Array(rootCount * months),
  };
  for (let r = 0; r < rootCount; r++) {
    const text = texts[r];
    if (text === undefined) continue;
    const h = JSON.parse(text) as RootHistory;
    if (h.refDomains.length !== months) return null;
    const base = r * months;
    for (let m = 0; m < months; m++) {
      counts.domains[base + m] = h.refDomains[m];
      counts.ips[base + m] = h.refIps[m];
      counts.subnets[base + m] = h.refSubnets[m];
      counts.social[base + m] = h.social[m];
      storedTopRank[base + m] = h.topRank[m];
    }
  }
  return { counts, storedTopRank };
}
