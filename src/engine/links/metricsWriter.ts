/**
 * Writes computed link metrics into the research store: `entity_metrics` for every
 * page, host and root domain and `root_history` for every root domain (both replaced
 * whole; they are derived data), and the rank-passing links for the next incremental
 * update (rankEdgeCache.ts). Database ids are array index + 1.
 */
import type SqliteDatabase from 'better-sqlite3';
import { ENTITY_METRIC_COLUMNS, LEVEL } from '../researchSchema.js';
import type { LevelMetrics, LinkMetrics, LinkMetricsWithoutHistories } from './linkMetrics.js';
import { acRank } from './linkMetrics.js';
import { COUNTER_NAMES, type Counters } from './counters.js';
import { storeRankEdges } from './rankEdgeCache.js';

/** What an `entity_metrics` row is made of, per entity of one level (index = id − 1). */
export interface EntityMetricValues {
  pagerank: Float64Array;
  trustrank: Float64Array;
  citationFlow: Uint8Array;
  trustFlow: Uint8Array;
  authority: Uint8Array;
  /** Root domains only; 0 for the other levels. */
  topRank: Int32Array | null;
  counters: Counters;
}

/** Fills `row` (ENTITY_METRIC_COLUMNS order) with entity `i` of a level. */
export function entityMetricRow(row: (number | string)[], level: number, i: number, m: EntityMetricValues): (number | string)[] {
  row[0] = level;
  row[1] = i + 1;
  row[2] = m.pagerank[i];
  row[3] = m.trustrank[i];
  row[4] = m.citationFlow[i];
  row[5] = m.trustFlow[i];
  row[6] = m.authority[i];
  row[7] = m.topRank ? m.topRank[i] : 0;
  row[8] = acRank(m.counters.ref_domains[i]);
  for (let c = 0; c < COUNTER_NAMES.length; c++) row[9 + c] = m.counters[COUNTER_NAMES[c]][i];
  return row;
}

export function writeEntityMetrics(raw: SqliteDatabase.Database, metrics: LinkMetrics): void {
  writeLevelMetrics(raw, metrics);
  writeRootHistories(
    raw,
    metrics.histories.map((h) => JSON.stringify(h)),
  );
}

/** `entity_metrics` and the rank-passing links, replaced whole. */
export function writeLevelMetrics(raw: SqliteDatabase.Database, metrics: LinkMetricsWithoutHistories): void {
  const insert = raw.prepare(`INSERT INTO entity_metrics (${ENTITY_METRIC_COLUMNS.join(', ')}) VALUES (${ENTITY_METRIC_COLUMNS.map(() => '?').join(', ')})`);
  const writeLevel = (level: number, m: LevelMetrics, topRank: Int32Array | null): void => {
    const row: (number | string)[] = new Array(ENTITY_METRIC_COLUMNS.length);
    const values = { ...m, topRank };
    for (let i = 0; i < m.citationFlow.length; i++) insert.run(entityMetricRow(row, level, i, values));
  };
  raw.prepare('DELETE FROM entity_metrics').run();
  writeLevel(LEVEL.url, metrics.pages, null);
  writeLevel(LEVEL.subdomain, metrics.hosts, null);
  writeLevel(LEVEL.root, metrics.roots, metrics.roots.topRank);
  storeRankEdges(raw, metrics.rankEdges);
}

/** `root_history`, replaced whole: the JSON text of each root domain's history by index (id − 1). */
export function writeRootHistories(raw: SqliteDatabase.Database, texts: readonly string[]): void {
  raw.prepare('DELETE FROM root_history').run();
  const history = raw.prepare('INSERT INTO root_history (root_domain_id, history) VALUES (?, ?)');
  texts.forEach((text, i) => history.run(i + 1, text));
}
