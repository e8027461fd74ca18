/**
 * Recomputes every link metric of a research store from its tables: loads the graph into
 * typed arrays (graphLoader.ts), runs the same computation as the world generator
 * (linkMetrics.ts), rewrites `entity_metrics` and `root_history`, and updates the score,
 * strength and best-per-domain flags of the links whose values changed. Imports use the
 * incremental path (incrementalMetrics.ts) and fall back to this one when it cannot apply.
 */
import type SqliteDatabase from 'better-sqlite3';
import { computeLinkMetrics, type MetricsStage } from './linkMetrics.js';
import { writeEntityMetrics } from './metricsWriter.js';
import { graphInput, loadAllLinks, loadEntities } from './graphLoader.js';
import { dayNumber } from '../world/dates.js';

/** world_meta key of the time (ms) the stored metrics were computed as of. */
export const METRICS_AS_OF_KEY = 'metrics_as_of_ms';

/** The as-of time of the stored link metrics: the last recompute's, else the world build's; null when unknown. */
export function metricsAsOf(raw: SqliteDatabase.Database): number | null {
  const row = raw
    .prepare(`SELECT value FROM world_meta WHERE key IN ('${METRICS_AS_OF_KEY}', 'as_of_ms') ORDER BY key = '${METRICS_AS_OF_KEY}' DESC LIMIT 1`)
    .pluck()
    .get() as string | undefined;
  return row === undefined ? null : Number(row);
}

/** Recomputes and stores all link metrics; returns how many links changed score or flags. */
export function recomputeLinkMetrics(
  raw: SqliteDatabase.Database,
  asOf: number,
  onStage: (stage: MetricsStage | 'load' | 'write') => void = () => {},
): { links: number; changedLinks: number } {
  onStage('load');
  const asOfDay = dayNumber(asOf);
  const links = loadAllLinks(raw, asOfDay);
  const input = graphInput(loadEntities(raw, asOfDay), links);
  const metrics = computeLinkMetrics(input, onStage);
  onStage('write');
  const update = raw.prepare('UPDATE links SET score = ?, strength = ?, best_root = ?, best_host = ?, best_url = ? WHERE id = ?');
  let changed = 0;
  raw.transaction(() => {
    writeEntityMetrics(raw, metrics);
    for (let i = 0; i < input.linkCount; i++) {
      const best = metrics.bestRoot[i] | (metrics.bestHost[i] << 1) | (metrics.bestUrl[i] << 2);
      if (metrics.linkScore[i] === links.score[i] && metrics.linkStrength[i] === links.strength[i] && best === links.best[i]) continue;
      update.run(metrics.linkScore[i], metrics.linkStrength[i], metrics.bestRoot[i], metrics.bestHost[i], metrics.bestUrl[i], links.ids[i]);
      changed++;
    }
    // Every logged link change is covered (incrementalMetrics.ts).
    raw.prepare('DELETE FROM link_changes').run();
    raw.prepare("DELETE FROM world_meta WHERE key = 'content_hash'").run();
    raw.prepare('INSERT OR REPLACE INTO world_meta (key, value) VALUES (?, ?)').run(METRICS_AS_OF_KEY, String(asOf));
  })();
  return { links: input.linkCount, changedLinks: changed };
}
