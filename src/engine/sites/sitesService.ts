/**
 * The `sites` engine service: overview data with monthly history since 2016 for a domain
 * or URL, and site competitors (domains sharing referring domains and topic).
 *
 * Example:
 * ```ts
 * const overview = engine.sites.overview('example.com');
 * const rivals = engine.sites.competitors('example.com', 10);
 * ```
 */
import type SqliteDatabase from 'better-sqlite3';
import { LEVEL } from '../researchSchema.js';
import type { LinksService } from '../links/linksService.js';
import type { AuthorityService } from '../authority/authorityService.js';
import { hexId, type ResolvedTarget, type TargetType } from '../links/targets.js';
import type { RootHistory } from './siteHistory.js';

export interface SiteOverview {
  urlId: string;
  domainId: string;
  domain: string;
  url: string;
  urlType: TargetType;
  authority: { pda: number; upa: number };
  linkindex: { Status: string; CitationFlow: number; TrustFlow: number; RefIPs: number; RefSubNets: number; ItemType: number };
  /** Share count and Open Graph card; null when the index does not know the target. */
  social: SocialValue | null;
  topRank: number | null;
  /** `YYYY-MM` → TopRank at that month. */
  topRankHistory: Record<string, number>;
  /**
   * `YYYY-MM` → the link index at that month: the domain's rank among root domains (the
   * index ranks them one way, by authority: the month's TopRank), referring IPs, subnets,
   * domains and flows.
   */
  linkindexHistory: Record<string, { rank: number; refIps: number; refSubnets: number; citationFlow: number; trustFlow: number; refDomains: number }>;
  /** `YYYY-MM` → social shares at that month. */
  socialHistory: Record<string, number>;
}

/** A page's social engagement: its share count and its Open Graph card (no page images in the index). */
export interface SocialValue {
  l: number | null;
  og: { title: string | null; description: string | null; image: string | null } | null;
}

export interface SiteCompetitor {
  domainId: string;
  domain: string;
  topRank: number;
  /** Social shares of the domain's pages. */
  social: number;
  refIps: number;
  /** Similarity 0–100 (see `competitors`). */
  score: number;
}

function monthKeys(history: RootHistory): string[] {
  const [year, month] = history.start.split('-').map(Number);
  return history.topRank.map((_, i) => {
    const total = year * 12 + (month - 1) + i;
    return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}`;
  });
}

export class SitesService {
  constructor(
    private readonly raw: SqliteDatabase.Database,
    private readonly links: LinksService,
    private readonly authority: AuthorityService,
  ) {}

  /** Monthly history of the root domain of `url` since 2016-01, or null when unknown. */
  history(url: string): RootHistory | null {
    const target = this.links.resolve(url);
    if (!target || target.rootDomainId === null) return null;
    const text = this.raw.prepare('SELECT history FROM root_history WHERE root_domain_id = ?').pluck().get(target.rootDomainId) as string | undefined;
    return text ? (JSON.parse(text) as RootHistory) : null;
  }

  /** Overview of a domain or URL; null when the input is not a URL or domain. */
  overview(url: string): SiteOverview | null {
    const target = this.links.resolve(url);
    if (!target) return null;
    const authority = this.authority.forTarget(target);
    const metrics = this.links.metricsOf(target.level, target.entityId);
    const rootMetrics = this.links.metricsOf(LEVEL.root, target.rootDomainId);
    const history = this.history(url);
    const topRankHistory: Record<string, number> = {};
    const linkindexHistory: SiteOverview['linkindexHistory'] = {};
    const socialHistory: Record<string, number> = {};
    if (history) {
      monthKeys(history).forEach((key, i) => {
        topRankHistory[key] = history.topRank[i];
        linkindexHistory[key] = {
          rank: history.topRank[i],
          refIps: history.refIps[i],
          refSubnets: history.refSubnets[i],
          citationFlow: history.citationFlow[i],
          trustFlow: history.trustFlow[i],
          refDomains: history.refDomains[i],
        };
        socialHistory[key] = history.social[i];
      });
    }
    return {
      urlId: hexId(target.entityId ?? 0),
      domainId: hexId(target.rootDomainId ?? 0),
      domain: target.parsed.rootDomain,
      url: target.name,
      urlType: target.type,
      authority: { pda: authority.pda, upa: authority.upa },
      linkindex: {
        Status: metrics ? 'Found' : 'NotFound',
        CitationFlow: metrics?.citation_flow ?? 0,
        TrustFlow: metrics?.trust_flow ?? 0,
        RefIPs: metrics?.ref_ips ?? 0,
        RefSubNets: metrics?.ref_subnets ?? 0,
        ItemType: target.type === 'RootDomain' ? 1 : target.type === 'SubDomain' ? 2 : 3,
      },
      social: metrics ? { l: metrics.social, og: this.openGraph(target) } : null,
      topRank: rootMetrics?.top_rank ?? null,
      topRankHistory,
      linkindexHistory,
      socialHistory,
    };
  }

  /**
   * The Open Graph card of a target: a URL's own page, else the home page of the host (of
   * the bare or `www.` host for a root domain); null when the index has no such page.
   */
  private openGraph(target: ResolvedTarget): SocialValue['og'] {
    let page: { title: string; description: string } | undefined;
    if (target.type === 'URL') {
      if (target.pageId !== null) page = this.raw.prepare('SELECT title, description FROM pages WHERE id = ?').get(target.pageId) as typeof page;
    } else {
      const [column, id] = target.type === 'SubDomain' ? ['host_id', target.hostId] : ['root_domain_id', target.rootDomainId];
      if (id !== null) {
        page = this.raw
          .prepare(`SELECT title, description FROM pages WHERE ${column} = ? AND is_homepage = 1 ORDER BY length(url), id LIMIT 1`)
          .get(id) as typeof page;
      }
    }
    return page ? { title: page.title || null, description: page.description || null, image: null } : null;
  }

  /**
   * Competitors of a domain by the keywords both rank for (SearchEngine.organicCompetitors:
   * root id and a 0–100 score, most shared first), as SEO tools define organic competitors:
   * a shop's competitors are the shops ranking for what it sells. A site that ranks for no
   * keyword gets the competitors its backlinks give (`competitors`).
   */
  competitorsByKeywords(url: string, byKeywords: readonly { rootId: number; score: number }[], limit = 20): SiteCompetitor[] | null {
    const target = this.links.resolve(url);
    if (!target) return null;
    if (byKeywords.length === 0) return this.competitors(url, limit);
    const info = this.raw.prepare(`SELECT r.domain, m.top_rank, m.ref_ips, m.social FROM root_domains r
      JOIN entity_metrics m ON m.level = ${LEVEL.root} AND m.entity_id = r.id WHERE r.id = ?`);
    const out: SiteCompetitor[] = [];
    for (const c of byKeywords) {
      if (c.rootId === target.rootDomainId) continue;
      const row = info.get(c.rootId) as { domain: string; top_rank: number; ref_ips: number; social: number } | undefined;
      if (!row) continue;
      out.push({
        domainId: hexId(c.rootId),
        domain: row.domain,
        topRank: row.top_rank,
        social: row.social,
        refIps: row.ref_ips,
        score: Math.min(100, c.score),
      });
      if (out.length === limit) break;
    }
    return out;
  }

  /**
   * Competitors of a domain: root domains whose referring domains overlap its own,
   * scored by the cosine (Salton) similarity of the referring-domain sets,
   * |A ∩ B| / √(|A| · |B|) (Salton & McGill 1983), ×100, plus 10 points for the same
   * niche. The referring domains considered are the target's 2,000 strongest ones and,
   * per referring domain, up to 500 of the domains it links to (bounded work on giants).
   */
  competitors(url: string, limit = 20): SiteCompetitor[] | null {
    const target = this.links.resolve(url);
    if (!target) return null;
    const rootId = target.rootDomainId;
    if (rootId === null) return [];
    const referring = this.raw
      .prepare(
        `
      SELECT DISTINCT source_root_id FROM (SELECT source_root_id FROM links WHERE target_root_id = ? AND internal = 0 ORDER BY score DESC, id LIMIT 20000) LIMIT 2000`,
      )
      .pluck()
      .all(rootId) as number[];
    if (referring.length === 0) return [];
    const outTargets = this.raw.prepare('SELECT DISTINCT target_root_id FROM links WHERE source_root_id = ? AND internal = 0 LIMIT 500').pluck();
    const shared = new Map<number, number>();
    for (const source of referring) {
      for (const other of outTargets.all(source) as number[]) {
        if (other !== rootId) shared.set(other, (shared.get(other) ?? 0) + 1);
      }
    }
    const info = this.raw.prepare(`SELECT r.domain, r.niche_id, m.top_rank, m.ref_ips, m.ref_domains, m.social FROM root_domains r
      JOIN entity_metrics m ON m.level = 2 AND m.entity_id = r.id WHERE r.id = ?`);
    const own = info.get(rootId) as { niche_id: number | null; ref_domains: number };
    const ownSize = Math.max(referring.length, 1);
    const scored: SiteCompetitor[] = [];
    for (const [other, common] of shared) {
      if (common < 2) continue;
      const row = info.get(other) as { domain: string; niche_id: number | null; top_rank: number; ref_ips: number; ref_domains: number; social: number };
      const cosine = common / Math.sqrt(ownSize * Math.max(row.ref_domains, common));
      const topical = own.niche_id !== null && own.niche_id === row.niche_id ? 10 : 0;
      scored.push({
        domainId: hexId(other),
        domain: row.domain,
        topRank: row.top_rank,
        social: row.social,
        refIps: row.ref_ips,
        score: Math.min(100, Math.round(cosine * 100) + topical),
      });
    }
    scored.sort((a, b) => b.score - a.score || a.topRank - b.topRank || a.domain.localeCompare(b.domain));
    return scored.slice(0, limit);
  }
}
