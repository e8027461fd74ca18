/**
 * The SQL of a backlink list: the `links` rows of a target matching a filter, strongest
 * first, driven by the `links_target_*` indexes (target, internal, score DESC, id).
 */
import { isoDay, dayNumber } from '../world/dates.js';
import type { ResolvedTarget, TargetType } from './targets.js';
import type { BacklinkFilter } from './backlinkTypes.js';

export const TARGET_COLUMN: Record<TargetType, string> = { RootDomain: 'target_root_id', SubDomain: 'target_host_id', URL: 'target_page_id' };
const BEST_COLUMN: Record<TargetType, string> = { RootDomain: 'best_root', SubDomain: 'best_host', URL: 'best_url' };

export function hasExtraFilters(f: BacklinkFilter): boolean {
  return Object.entries(f).some(([key, value]) => key !== 'linksPerDomain' && key !== 'source' && value !== undefined);
}

export function backlinkQuery(
  target: ResolvedTarget,
  filter: BacklinkFilter,
  at: number,
): { where: string; params: unknown[]; window: boolean; joins: string } {
  const params: unknown[] = [target.entityId];
  const clauses = [`l.${TARGET_COLUMN[target.type]} = ?`, 'l.internal = 0'];
  if (target.type !== 'RootDomain' && (filter.source ?? 0) !== 0) {
    // Lets the planner use the root-level new/lost indexes for hosts and pages too.
    clauses.push('l.target_root_id = ?');
    params.push(target.rootDomainId);
  }
  const today = dayNumber(at);
  if (filter.source === 1) {
    clauses.push('l.first_seen >= ?');
    params.push(isoDay(today - 30));
  } else if (filter.source === 2) {
    // deleted_on ≥ last_seen, so the extra bound selects nothing more and lets the
    // partial lost-links index answer.
    clauses.push('l.deleted = 1 AND l.last_seen >= ? AND l.deleted_on >= ?');
    params.push(isoDay(today - 90), isoDay(today - 90));
  }
  if (filter.targetAnchorText) {
    clauses.push("(lower(l.anchor) LIKE ? ESCAPE '\\' OR lower(l.alt) LIKE ? ESCAPE '\\')");
    const like = `%${filter.targetAnchorText.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    params.push(like, like);
  }
  if (filter.targetHrefText) {
    clauses.push("lower(tp.url) LIKE ? ESCAPE '\\'");
    params.push(`%${filter.targetHrefText.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filter.linkType) {
    clauses.push('l.type = ?');
    params.push(filter.linkType.toLowerCase());
  }
  if (filter.noFollow !== undefined) {
    clauses.push('l.nofollow = ?');
    params.push(filter.noFollow ? 1 : 0);
  }
  if (filter.liveLinks) clauses.push('l.deleted = 0');
  const range = (column: string, min?: number, max?: number): void => {
    if (min !== undefined) {
      clauses.push(`${column} >= ?`);
      params.push(min);
    }
    if (max !== undefined) {
      clauses.push(`${column} <= ?`);
      params.push(max);
    }
  };
  range('sm.citation_flow', filter.minCitationFlow, filter.maxCitationFlow);
  range('sm.trust_flow', filter.minTrustFlow, filter.maxTrustFlow);
  range('l.strength', filter.minLinkStrength, filter.maxLinkStrength);
  if (filter.minTopRank !== undefined || filter.maxTopRank !== undefined) {
    clauses.push(
      'EXISTS (SELECT 1 FROM entity_metrics rm WHERE rm.level = 2 AND rm.entity_id = l.source_root_id' +
        (filter.minTopRank !== undefined ? ' AND rm.top_rank >= ?' : '') +
        (filter.maxTopRank !== undefined ? ' AND rm.top_rank <= ?' : '') +
        ')',
    );
    if (filter.minTopRank !== undefined) params.push(filter.minTopRank);
    if (filter.maxTopRank !== undefined) params.push(filter.maxTopRank);
  }
  const flags: string[] = [];
  if (filter.flagTextLink) flags.push('text');
  if (filter.flagImageLink) flags.push('image');
  if (filter.flagFrameLink) flags.push('frame');
  if (filter.flagRedirectLink) flags.push('redirect');
  if (filter.flagMentionLink) flags.push('mention');
  if (flags.length > 0) {
    clauses.push(`l.type IN (${flags.map(() => '?').join(', ')})`);
    params.push(...flags);
  }
  let window = false;
  if (filter.linksPerDomain === 1) {
    // With only the list selector, the precomputed strongest link per referring domain
    // answers; with more filters, "one per domain" applies among the matching links.
    if (!hasExtraFilters(filter) && (filter.source ?? 0) === 0) clauses.push(`l.${BEST_COLUMN[target.type]} = 1`);
    else window = true;
  }
  // Only the joins the filters need: paging then scans the links index alone.
  const where = clauses.join(' AND ');
  const joins = [
    where.includes('tp.') ? 'JOIN pages tp ON tp.id = l.target_page_id' : '',
    where.includes('sm.') ? 'JOIN entity_metrics sm ON sm.level = 0 AND sm.entity_id = l.source_page_id' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { where, params, window, joins };
}

/**
 * SQL selecting `columns` (of `links l`) of the matching links, strongest first.
 * `l.id` alone is answered from the indexes.
 */
export function matchingSql(target: ResolvedTarget, filter: BacklinkFilter, at: number, columns: string): { sql: string; params: unknown[] } {
  const q = backlinkQuery(target, filter, at);
  // New/lost lists are a small slice of a target's links: the unary plus keeps the
  // planner on the (covering) first-seen / lost index and sorts that slice, instead of
  // walking the whole strongest-first index and checking dates row by row.
  const order = (filter.source ?? 0) !== 0 ? '+l.score DESC, l.id' : 'l.score DESC, l.id';
  if (!q.window) return { sql: `SELECT ${columns} FROM links l ${q.joins} WHERE ${q.where} ORDER BY ${order}`, params: q.params };
  const ranked = `SELECT l.id, l.score, ROW_NUMBER() OVER (PARTITION BY l.source_root_id ORDER BY l.score DESC, l.id) AS rn
      FROM links l ${q.joins} WHERE ${q.where}`;
  if (columns === 'l.id') return { sql: `SELECT id FROM (${ranked}) ranked WHERE rn = 1 ORDER BY score DESC, id`, params: q.params };
  // The ranking keeps one id per referring domain; the other columns are read back by id.
  return {
    sql: `SELECT ${columns} FROM (${ranked}) ranked JOIN links l ON l.id = ranked.id WHERE ranked.rn = 1 ORDER BY ranked.score DESC, ranked.id`,
    params: q.params,
  };
}
