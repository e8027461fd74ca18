/**
 * Related keywords of a seed: keywords sharing its words and its niche, ranked by how
 * many of their top-10 results they share with the seed's top 10 — SERP-overlap
 * similarity, the signal keyword-clustering tools use (two queries whose first pages
 * share URLs are served by the same content; see Beeferman & Berger, "Agglomerative
 * clustering of a search engine query log", KDD 2000, for clicked-URL co-occurrence as
 * query similarity) — and word overlap, weighed by the candidate's searches (see `demand`).
 */
import type { KeywordCatalog } from './keywordCatalog.js';
import { keywordId } from './keywordIds.js';
import type { CorpusKeyword } from './searchCorpus.js';
import type { QueryRef } from './serpBuilder.js';
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

/**
 * Question and query keywords about the keyword, for "people also ask" and related
 * searches: keywords of its head term first, then others containing all its words, each
 * group most searched first ("how much do running shoes cost" for "running shoes", not
 * "how much do trail running shoes cost" before it).
 */
export function similarSearches(
  catalog: KeywordCatalog,
  k: CorpusKeyword,
  locationId: number,
  languageId: number,
): { questions: QueryRef[]; queries: QueryRef[] } {
  const tokens = contentTokens(k.kw);
  const candidates: { kw: string; question: boolean; sameHead: boolean; volume: number }[] = [];
  const seen = new Set<string>([k.kw]);
  for (const t of tokens) {
    for (const i of catalog.withToken(t)) {
      const other = catalog.at(i);
      if (other.languageId !== k.languageId || seen.has(other.kw)) continue;
      seen.add(other.kw);
      const sameHead = other.head === k.head;
      if (!sameHead) {
        const words = new Set(contentTokens(other.kw));
        if (!tokens.every((w) => words.has(w))) continue;
      }
      candidates.push({ kw: other.kw, question: other.kind === 'question', sameHead, volume: other.volume });
    }
  }
  candidates.sort((a, b) => Number(b.sameHead) - Number(a.sameHead) || b.volume - a.volume || (a.kw < b.kw ? -1 : a.kw > b.kw ? 1 : 0));
  const ref = (kw: string): QueryRef => ({ kw, id: keywordId(kw, locationId, languageId) });
  const questions = candidates
    .filter((c) => c.question)
    .slice(0, 4)
    .map((c) => ref(c.kw));
  const queries = candidates
    .filter((c) => !c.question)
    .slice(0, 8)
    .map((c) => ref(c.kw));
  return { questions, queries };
}
