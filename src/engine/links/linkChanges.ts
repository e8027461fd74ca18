/**
 * The links an import changed, as its log (`link_changes`, import/linkWriter.ts) records
 * them before and the `links` table holds them after, in the shapes the incremental
 * update (incrementalMetrics.ts) needs.
 */
import type SqliteDatabase from 'better-sqlite3';
import { LINK_TYPES } from '../world/linkGenerator.js';
import { dayFromIso } from '../world/dates.js';

/** What the metrics need of a link's state (0-based indexes, LINK_TYPES codes, day numbers). */
export interface LinkState {
  type: number;
  nofollow: number;
  deleted: number;
  firstDay: number;
  /** Its last-seen day when lost, else the as-of day (graphLoader.ts). */
  endDay: number;
}

export interface ChangedLink {
  id: number;
  sourcePage: number;
  targetPage: number;
  sourceHost: number;
  targetHost: number;
  sourceRoot: number;
  targetRoot: number;
  https: number;
  /** Null when the import created the link. */
  before: LinkState | null;
  after: LinkState;
  score: number;
  strength: number;
}

/** A link of a (source root, target root) pair, as the distinct counts and histories need it. */
export interface PairRow extends LinkState {
  id: number;
  sourcePage: number;
  sourceHost: number;
  sourceRoot: number;
  targetPage: number;
  targetHost: number;
}

export const TYPE_CODES = new Map<string, number>(LINK_TYPES.map((t, i) => [t, i]));
export const MENTION = LINK_TYPES.indexOf('mention');

export function linkState(asOfDay: number, type: string, nofollow: number, deleted: number, firstSeen: string, lastSeen: string): LinkState {
  return { type: TYPE_CODES.get(type) ?? 0, nofollow, deleted, firstDay: dayFromIso(firstSeen), endDay: deleted ? dayFromIso(lastSeen) : asOfDay };
}

/** The logged changes with the links' current state; null when a logged link is gone. */
export function loadChanges(raw: SqliteDatabase.Database, asOfDay: number): ChangedLink[] | null {
  const rows = raw
    .prepare(
      `SELECT c.link_id, c.existed, c.type, c.nofollow, c.deleted, c.first_seen, c.last_seen,
         l.id, l.source_page_id, l.target_page_id, l.source_host_id, l.target_host_id, l.source_root_id, l.target_root_id, l.https,
         l.type, l.nofollow, l.deleted, l.first_seen, l.last_seen, l.score, l.strength
       FROM link_changes c LEFT JOIN links l ON l.id = c.link_id ORDER BY c.link_id`,
    )
    .raw()
    .all() as [number, number, string, number, number, string, string, ...(number | string | null)[]][];
  const out: ChangedLink[] = [];
  for (const r of rows) {
    if (r[7] === null) return null;
    const [sp, tp, sh, th, sr, tr, https, type, nofollow, deleted, first, last, score, strength] = r.slice(8) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      string,
      number,
      number,
      string,
      string,
      number,
      number,
    ];
    out.push({
      id: r[0],
      sourcePage: sp - 1,
      targetPage: tp - 1,
      sourceHost: sh - 1,
      targetHost: th - 1,
      sourceRoot: sr - 1,
      targetRoot: tr - 1,
      https,
      before: r[1] ? linkState(asOfDay, r[2], r[3], r[4], r[5], r[6]) : null,
      after: linkState(asOfDay, type, nofollow, deleted, first, last),
      score,
      strength,
    });
  }
  return out;
}
