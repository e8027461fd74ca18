/**
 * Related keywords of a seed: keywords sharing its words and its niche, ranked by how
 * many of their top-10 results they share with the seed's top 10 — SERP-overlap
 * similarity, the signal keyword-clustering tools use (two queries whose first pages
 * share URLs are served by the same content; see Beeferman & Berger, "Agglomerative
 * clustering of a search engine query log", KDD 2000, for clicked-URL co-occurrence as
 * query similarity) — and word overlap, weighed by the candidate's searches (see `demand`).
 */
import type { KeywordCatalog } from './keywordCatalog.js';
import type { CorpusKeyword } from './searchCorpus.js';
import { contentTokens } from './text.js';

export interface RelatedInput {
  catalog: KeywordCatalog;
  seed: CorpusKeyword;
  /** The seed's catalogue index, when the seed is a known keyword (it is then skipped). */
  seedIndex: number | undefined;
  /** Corpus pages of the seed's top 10. */
  seedTop: readonly number[];
  /** Corpus pages of a keyword's top 10, when known. */
  topOf: (keyword: number) => readonly number[] | undefined;
  /** Whether a keyword has a market in the lookup's location. */
  inMarket: (keyword: number) => boolean;
}

/**
 * A candidate's searches against the seed's, on a log scale (0–1): ranked by relatedness
 * alone, a seed's long tail ("running shoes in los angeles", 151 searches, with no page of
 * its own and so its head's SERP) came before its big variants ("best running shoes",
 * 7,026); research tools lead with what people search.
 */
function demand(volume: number, seedVolume: number): number {
  return Math.min(1, Math.log10(1 + volume) / Math.log10(2 + seedVolume));
}

/** Minimum relatedness a candidate needs: at least half the seed's words, or its niche and some overlap. */
const MIN_SCORE = 0.5;

/** Catalogue indexes of the seed's related keywords, most related first (seed excluded). */
export function relatedCandidates(input: RelatedInput): number[] {
  const { catalog, seed } = input;
  const seedTokens = contentTokens(seed.kw);
  if (seedTokens.length === 0) return [];
  const shared = new Map<number, number>();
  for (const t of seedTokens) {
    for (const k of catalog.withToken(t)) {
      if (k === input.seedIndex) continue;
      if (catalog.at(k).languageId !== seed.languageId) continue;
      shared.set(k, (shared.get(k) ?? 0) + 1);
    }
  }
  const seedTop = new Set(input.seedTop);
  const scored: { k: number; score: number; volume: number }[] = [];
  for (const [k, n] of shared) {
    const keyword = catalog.at(k);
    const sameNiche = seed.nicheId !== null && keyword.nicheId === seed.nicheId;
    const wordShare = n / seedTokens.length;
    // A keyword of another niche is related only when it contains every word of the seed.
    if (!sameNiche && wordShare < 1) continue;
    if (!input.inMarket(k)) continue;
    let overlap = 0;
    const top = input.topOf(k);
    if (top) for (const p of top) if (seedTop.has(p)) overlap++;
    const score = wordShare + (sameNiche ? 0.25 : 0) + (1.5 * overlap) / 10;
    if (score < MIN_SCORE) continue;
    scored.push({ k, score: score * demand(keyword.volume, seed.volume) ** 2, volume: keyword.volume });
  }
  scored.sort((a, b) => b.score - a.score || b.volume - a.volume || a.k - b.k);
  return scored.map((s) => s.k);
}
