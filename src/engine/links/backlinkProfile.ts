/**
 * A target's backlink profile (calendar of new and lost links, top referring domains, top
 * anchors) and a site's top content: aggregate reads of the research store.
 */
import type SqliteDatabase from 'better-sqlite3';
import { isoDay, dayNumber } from '../world/dates.js';
import { hexId, type ResolvedTarget } from './targets.js';
import type { BacklinkProfile, LinkIndexMetrics, TopContentItem } from './backlinkTypes.js';
import { TARGET_COLUMN } from './backlinkQuery.js';

/** Links aggregated for a backlink profile's referring domains and anchors. */
const PROFILE_SAMPLE = 50_000;

/**
 * Backlink profile of a target: its link index metrics `v`, a daily calendar of new and lost links over
 * the last `days` days, the top referring domains and the top anchors. Referring
 * domains and anchors are aggregated over the target's strongest `PROFILE_SAMPLE`
 * links (all of them below that), which bounds the work on giant targets.
 */
export function backlinkProfileOf(
  raw: SqliteDatabase.Database,
  target: ResolvedTarget,
  v: LinkIndexMetrics,
  options: { days?: number; top?: number },
  at: number,
): BacklinkProfile {
  const days = options.days ?? 90;
  const top = options.top ?? 50;
  const urlId = hexId(target.entityId ?? 0);
  if (target.entityId === null) return { urlId, linkindex: v, backLinkCalendar: [], refDomains: [], anchors: [] };
  const column = TARGET_COLUMN[target.type];
  const today = dayNumber(at);
  const since = isoDay(today - days + 1);
  const rootClause = target.type === 'RootDomain' ? '' : `AND target_root_id = ${Number(target.rootDomainId)}`;
  const newByDay = new Map(
    raw
      .prepare(`SELECT first_seen AS d, COUNT(*) AS n FROM links WHERE ${column} = ? ${rootClause} AND internal = 0 AND first_seen >= ? GROUP BY first_seen`)
      .all(target.entityId, since)
      .map((r) => {
        const row = r as { d: string; n: number };
        return [row.d, row.n] as const;
      }),
  );
  const lostByDay = new Map(
    raw
      .prepare(
        `SELECT deleted_on AS d, COUNT(*) AS n FROM links WHERE ${column} = ? ${rootClause} AND internal = 0 AND deleted = 1 AND deleted_on >= ? GROUP BY deleted_on`,
      )
      .all(target.entityId, since)
      .map((r) => {
        const row = r as { d: string; n: number };
        return [row.d, row.n] as const;
      }),
  );
  const backLinkCalendar = [];
  for (let d = today - days + 1; d <= today; d++) {
    const date = isoDay(d);
    backLinkCalendar.push({ Date: date, NewLinks: newByDay.get(date) ?? 0, LostLinks: lostByDay.get(date) ?? 0 });
  }
  const refDomains = (
    raw
      .prepare(
        `
    SELECT r.domain, m.top_rank, x.n, m.citation_flow, m.trust_flow FROM (
      SELECT source_root_id, COUNT(*) AS n FROM (SELECT source_root_id FROM links WHERE ${column} = ? AND internal = 0 ORDER BY score DESC, id LIMIT ${PROFILE_SAMPLE})
      GROUP BY source_root_id ORDER BY n DESC, source_root_id LIMIT ?
    ) x JOIN root_domains r ON r.id = x.source_root_id JOIN entity_metrics m ON m.level = 2 AND m.entity_id = x.source_root_id
    ORDER BY x.n DESC, r.id`,
      )
      .all(target.entityId, top) as { domain: string; top_rank: number; n: number; citation_flow: number; trust_flow: number }[]
  ).map((r) => ({
    domain: r.domain as string,
    topRank: r.top_rank as number,
    matchedLinks: r.n as number,
    citationFlow: r.citation_flow as number,
    trustFlow: r.trust_flow as number,
  }));
  const anchors = (
    raw
      .prepare(
        `
    SELECT CASE WHEN l.type = 'image' THEN l.alt ELSE l.anchor END AS text, COUNT(DISTINCT l.source_root_id) AS domains, COUNT(*) AS total,
      SUM(l.nofollow) AS nofollow, SUM(l.deleted) AS deleted, MAX(CASE WHEN l.type = 'image' THEN 1 ELSE 0 END) AS image, MAX(m.citation_flow) AS cf
    FROM (SELECT * FROM links WHERE ${column} = ? AND internal = 0 ORDER BY score DESC, id LIMIT ${PROFILE_SAMPLE}) l
    JOIN entity_metrics m ON m.level = 0 AND m.entity_id = l.source_page_id GROUP BY text ORDER BY domains DESC, total DESC, text LIMIT ?`,
      )
      .all(target.entityId, top) as { text: string; domains: number; total: number; nofollow: number; deleted: number; image: number; cf: number }[]
  ).map((r) => ({
    anchorText: r.text as string,
    refDomains: r.domains as number,
    totalLinks: r.total as number,
    noFollowLinks: r.nofollow as number,
    deletedLinks: r.deleted as number,
    class: r.image ? 'image' : 'text',
    citationFlow: r.cf as number,
  }));
  return { urlId, linkindex: v, backLinkCalendar, refDomains, anchors };
}

/** The strongest pages of a domain or host (by CitationFlow), for the site tool's top content. */
export function topContentOf(raw: SqliteDatabase.Database, target: ResolvedTarget, limit: number): { urlId: string; topContent: TopContentItem[] } {
  const urlId = hexId(target.entityId ?? 0);
  if (target.rootDomainId === null) return { urlId, topContent: [] };
  const byHost = target.type === 'SubDomain' && target.hostId !== null;
  const rows = raw
    .prepare(
      `
    SELECT p.url, m.citation_flow, m.trust_flow, m.ref_domains, m.ext_backlinks, p.shares, p.title, p.description FROM pages p
    JOIN entity_metrics m ON m.level = 0 AND m.entity_id = p.id
    WHERE ${byHost ? 'p.host_id' : 'p.root_domain_id'} = ?
    ORDER BY m.citation_flow DESC, m.ref_domains DESC, p.id LIMIT ?`,
    )
    .all(byHost ? target.hostId : target.rootDomainId, limit) as {
    url: string;
    citation_flow: number;
    trust_flow: number;
    ref_domains: number;
    ext_backlinks: number;
    shares: number;
    title: string;
    description: string;
  }[];
  return {
    urlId,
    topContent: rows.map((r) => ({
      url: r.url,
      citationFlow: r.citation_flow,
      trustFlow: r.trust_flow,
      refDomains: r.ref_domains,
      extBackLinks: r.ext_backlinks,
      social: r.shares,
      title: r.title,
      description: r.description,
    })),
  };
}
