/**
 * The `authority` engine service: pda (domain authority), upa (page authority), TopRank
 * and `lps` (URL authority score used by keyword difficulty) for any URL or domain.
 * Unknown domains get a deterministic low value (authorityScores.ts).
 *
 * Example:
 * ```ts
 * const { pda, upa, topRank, lps } = engine.authority.forUrl('https://www.example.com/page');
 * ```
 */
import type SqliteDatabase from 'better-sqlite3';
import { TargetResolver, type ResolvedTarget } from '../links/targets.js';
import { unknownDomainAuthority, urlAuthorityScore } from './authorityScores.js';

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

  constructor(raw: SqliteDatabase.Database) {
    this.resolver = new TargetResolver(raw);
    this.rootMetrics = raw.prepare('SELECT authority, top_rank, citation_flow, trust_flow FROM entity_metrics WHERE level = 2 AND entity_id = ?');
    this.pageMetrics = raw.prepare('SELECT authority, citation_flow, trust_flow FROM entity_metrics WHERE level = 0 AND entity_id = ?');
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
    if (!root) {
      const low = unknownDomainAuthority(domain);
      return { url: target.name, domain, pda: low, upa: Math.max(1, low - 1), topRank: null, lps: low, citationFlow: 0, trustFlow: 0, known: false };
    }
    const pageId = target.type === 'URL' ? target.pageId : ((this.homepage.get(target.rootDomainId) as number | undefined) ?? null);
    const page = pageId === null ? undefined : (this.pageMetrics.get(pageId) as { authority: number; citation_flow: number; trust_flow: number } | undefined);
    const upa = page?.authority ?? Math.round(root.authority * 0.4);
    const lps = target.type === 'URL' ? urlAuthorityScore(page?.authority ?? null, root.authority, domain) : root.authority;
    return {
      url: target.name,
      domain,
      pda: root.authority,
      upa,
      topRank: root.top_rank,
      lps,
      citationFlow: target.type === 'URL' ? (page?.citation_flow ?? 0) : root.citation_flow,
      trustFlow: target.type === 'URL' ? (page?.trust_flow ?? 0) : root.trust_flow,
      known: true,
    };
  }

  /** `lps` of a URL (0 for input that is not a URL). */
  lps(url: string): number {
    return this.forUrl(url)?.lps ?? 0;
  }
}
