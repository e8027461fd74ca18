/**
 * `authority` scores: pda (domain) and upa (page), 0–100, and TopRank.
 *
 * Commercial "domain/page authority" scores are learned combinations of link counts and
 * link-graph metrics on a 100-point logarithmic scale (Moz, "What is Domain Authority?");
 * their weights are not published. Ours is a fixed, documented blend of the same
 * ingredients, monotonic in each:
 *
 *   authority = round(0.45 · CitationFlow + 0.35 · TrustFlow + 20 · ln(1 + RefDomains) / ln(1 + RefDomains_max))
 *
 * TopRank orders root domains by pda (ties: CitationFlow, RefDomains, then id), 1 best.
 */
import { hash32 } from '../world/random.js';

/** The authority before rounding. */
export function authorityValue(citationFlow: number, trustFlow: number, refDomains: number, maxRefDomains: number): number {
  const links = maxRefDomains > 0 ? Math.log1p(refDomains) / Math.log1p(maxRefDomains) : 0;
  return 0.45 * citationFlow + 0.35 * trustFlow + 20 * links;
}

export function authorityScore(citationFlow: number, trustFlow: number, refDomains: number, maxRefDomains: number): number {
  return Math.max(0, Math.min(100, Math.round(authorityValue(citationFlow, trustFlow, refDomains, maxRefDomains))));
}

export function authorityScores(cf: Uint8Array, tf: Uint8Array, refDomains: Int32Array): Uint8Array {
  let max = 0;
  for (let i = 0; i < refDomains.length; i++) if (refDomains[i] > max) max = refDomains[i];
  const out = new Uint8Array(cf.length);
  for (let i = 0; i < cf.length; i++) out[i] = authorityScore(cf[i], tf[i], refDomains[i], max);
  return out;
}

/** TopRank of every root domain (1 = best). */
export function topRanks(pda: Uint8Array, cf: Uint8Array, refDomains: Int32Array): Int32Array {
  const order = Array.from({ length: pda.length }, (_, i) => i);
  order.sort((a, b) => pda[b] - pda[a] || cf[b] - cf[a] || refDomains[b] - refDomains[a] || a - b);
  const ranks = new Int32Array(pda.length);
  order.forEach((root, position) => (ranks[root] = position + 1));
  return ranks;
}

/**
 * URL authority score (`lps`, used by keyword difficulty). Moz's keyword difficulty reads
 * the page authority of the first-page results, modified by their domain authority, and
 * lets a new page on a strong domain count through its domain alone (Moz Help, Keyword
 * Explorer "Difficulty"). Likewise, with our weights (Moz publishes none): a known page is
 * 0.6 · upa + 0.4 · pda, page first; a page the index does not know counts as upa = 0,
 * i.e. 40 % of its domain's pda; an unknown domain gets a deterministic low value (1–8)
 * from a hash of its name.
 */
export function urlAuthorityScore(upa: number | null, pda: number | null, domain: string): number {
  if (upa !== null && pda !== null) return Math.round(0.6 * upa + 0.4 * pda);
  if (pda !== null) return Math.round(0.4 * pda);
  return unknownDomainAuthority(domain);
}

/** Deterministic low authority of a domain the index has never seen (1–8). */
export function unknownDomainAuthority(domain: string): number {
  return 1 + (hash32(domain.toLowerCase()) % 8);
}

/**
 * pda prior (0–100) from a position in a list of domains (1 best): 100 − 9 · log10(rank).
 * Our calibration, no vendor publishes one: a top-10 domain scores 91, a top-1,000 one 73,
 * a top-million one 46, the hundred-millionth (the tail of Common Crawl's domain graph) 28,
 * in the range link-based authority gives such domains.
 */
export function priorAuthority(rank: number): number {
  return Math.max(1, Math.min(100, Math.round(100 - 9 * Math.log10(Math.max(1, rank)))));
}
