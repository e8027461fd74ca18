/**
 * The `authority` engine service: pda (domain authority), upa (page authority), TopRank
 * and `lps` (URL authority score used by keyword difficulty) for any URL or domain.
 * Unknown domains get their prior from the imported rank lists (Common Crawl web graph
 * harmonic-centrality position, else Tranco position; import/priorsImport.ts), or else a
 * deterministic low value (authorityScores.ts). A known domain's pda is raised to its
 * prior when the prior is higher: an imported slice of the web holds only part of a
 * domain's links, and the web-wide list has seen them all.
 *
 * Example:
 * ```ts
 * const { pda, upa, topRank, lps } = engine.authority.forUrl('https://www.example.com/page');
 * ```
 */
import type SqliteDatabase from 'better-sqlite3';
import { TargetResolver, type ResolvedTarget } from '../links/targets.js';
import { priorAuthority, unknownDomainAuthority, urlAuthorityScore } from './authorityScores.js';

export interface AuthorityMetrics {
  url: string;
  domain: string;
  /** Domain authority 0–100 of the root domain. */
  pda: number;
  /** Page authority 0–100 of the exact URL (of the homepage for a domain). */
  upa: number;
  /** Rank of the root domain by authority, 1 best; null when the domain is unknown. */
  topRank: number | null;
  /** URL authority score used by keyword difficulty, 0–100. */
  lps: number;
  citationFlow: number;
  trustFlow: number;
  known: boolean;
}

export class AuthorityService {
  private readonly resolver: TargetResolver;
  private readonly rootMetrics: SqliteDatabase.Statement;
  private readonly pageMetrics: SqliteDatabase.Statement;
  private readonly homepage: SqliteDatabase.Statement;
  private readonly prior: SqliteDatabase.Statement;

  constructor(raw: SqliteDatabase.Database) {
    this.resolver = new TargetResolver(raw);
    this.rootMetrics = raw.prepare('SELECT authority, top_rank, citation_flow, trust_flow FROM entity_metrics WHERE level = 2 AND entity_id = ?');
    this.pageMetrics = raw.prepare('SELECT authority, citation_flow, trust_flow FROM entity_metrics WHERE level = 0 AND entity_id = ?');
    this.prior = raw.prepare('SELECT cc_harmonic_rank, tranco_rank FROM domain_priors WHERE domain = ?');
    this.homepage = raw.prepare('SELECT id FROM pages WHERE root_domain_id = ? AND is_homepage = 1 ORDER BY id LIMIT 1').pluck();
  }

  /** Metrics of a URL, host or domain; null when the input is not a URL or domain. */
  forUrl(input: string): AuthorityMetrics | null {
    const target = this.resolver.resolve(input);
    return target ? this.forTarget(target) : null;
  }

  forTarget(target: ResolvedTarget): AuthorityMetrics {
    const domain = target.parsed.rootDomain;
    const root =
      target.rootDomainId === null
        ? undefined
        : (this.rootMetrics.get(target.rootDomainId) as { authority: number; top_rank: number; citation_flow: number; trust_flow: number } | undefined);
    const prior = this.priorOf(domain);
    if (!root) {
      if (prior) {
        const upa = Math.round(prior.pda * 0.4);
        return {
          url: target.name,
          domain,
          pda: prior.pda,
          upa,
          topRank: prior.rank,
          lps: target.type === 'URL' ? upa : prior.pda,
          citationFlow: 0,
          trustFlow: 0,
          known: false,
        };
      }
      const low = unknownDomainAuthority(domain);
      return { url: target.name, domain, pda: low, upa: Math.max(1, low - 1), topRank: null, lps: low, citationFlow: 0, trustFlow: 0, known: false };
    }
    const pda = Math.max(root.authority, prior?.pda ?? 0);
    const pageId = target.type === 'URL' ? target.pageId : ((this.homepage.get(target.rootDomainId) as number | undefined) ?? null);
    const page = pageId === null ? undefined : (this.pageMetrics.get(pageId) as { authority: number; citation_flow: number; trust_flow: number } | undefined);
    const upa = page?.authority ?? Math.round(pda * 0.4);
    const lps = target.type === 'URL' ? urlAuthorityScore(page?.authority ?? null, pda, domain) : pda;
    return {
      url: target.name,
      domain,
      pda,
      upa,
      topRank: root.top_rank,
      lps,
      citationFlow: target.type === 'URL' ? (page?.citation_flow ?? 0) : root.citation_flow,
      trustFlow: target.type === 'URL' ? (page?.trust_flow ?? 0) : root.trust_flow,
      known: true,
    };
  }

  /**
   * The web-wide position (TopRank) of a URL's root domain in the imported rank lists (Common
   * Crawl, Tranco) alone, null when none holds it: the TopRank of the real web, which real
   * mode shows instead of the sandbox index's own ranking.
   */
  importedRank(input: string): number | null {
    const target = this.resolver.resolve(input);
    return target ? (this.priorOf(target.parsed.rootDomain)?.rank ?? null) : null;
  }

  /** The prior of a domain from the imported rank lists: its pda and its web-wide position (TopRank). */
  private priorOf(domain: string): { pda: number; rank: number } | null {
    const row = this.prior.get(domain) as { cc_harmonic_rank: number | null; tranco_rank: number | null } | undefined;
    // Ranks at 1e18 are the sentinel the priors import writes for a domain "not in this list" (priorsImport.ts).
    const rank = [row?.cc_harmonic_rank, row?.tranco_rank].find((r): r is number => typeof r === 'number' && r >= 1 && r < 1e18);
    return rank === undefined ? null : { pda: priorAuthority(rank), rank };
  }

  /** `lps` of a URL (0 for input that is not a URL). */
  lps(url: string): number {
    return this.forUrl(url)?.lps ?? 0;
  }
}
