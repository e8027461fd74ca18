/**
 * The BM25 candidates of each keyword for the rank index, remembered across markets.
 *
 * Ranking a keyword is a BM25 retrieval (most of the cost: it walks the postings of the
 * keyword's terms over all pages) followed by scoring the candidates for a market and a
 * date (ccTLD boost, noise, freshness). The retrieval depends on the keyword's text and
 * topic only, so a market's rank index re-scores the candidates another market's build
 * retrieved instead of searching again: OrganicRanker.rescore recomputes their exact
 * BM25 scores from the postings, so only their page numbers are kept (4 bytes each, ~45 MB
 * for a small world's 55k keywords). The research store keeps them too (searchStore.ts)
 * for the builds of later processes.
 */
import type { OrganicRanker, RankQuery, Retrieval, RetrievedDocs } from './organicRanking.js';

/** A keyword's remembered candidates: its documents, then those of its fallback search. */
export interface StoredCandidates {
  keywordId: number;
  /** How many of `docs` the keyword's own search found; the rest come from its fallback search. */
  mainCount: number;
  /** Whether a fallback search was made (it may have found nothing). */
  hasFallback: boolean;
  docs: Int32Array;
}

export class RankCandidates {
  private readonly byKeyword = new Map<number, RetrievedDocs>();
  private unsaved: number[] = [];

  /** Candidates of rankings of `limit` pages over `candidates` BM25 matches (OrganicRanker.retrieve). */
  constructor(
    private readonly ranker: OrganicRanker,
    private readonly limit: number,
    private readonly candidates: number,
  ) {}

  /** The keyword's retrieval: its remembered candidates re-scored, else a fresh retrieval, remembered. */
  retrieval(keywordId: number, query: Pick<RankQuery, 'keyword' | 'fallbackTokens' | 'head'>): Retrieval {
    const known = this.byKeyword.get(keywordId);
    if (known) return this.ranker.rescore(query, known);
    const retrieval = this.ranker.retrieve(query, this.limit, this.candidates);
    this.byKeyword.set(keywordId, { docs: retrieval.found.docs, fallbackDocs: retrieval.fallback?.docs });
    this.unsaved.push(keywordId);
    return retrieval;
  }

  /** Adds stored candidates (keywords already known keep theirs). */
  addStored(rows: Iterable<StoredCandidates>): void {
    for (const row of rows) {
      if (this.byKeyword.has(row.keywordId)) continue;
      const docs = row.docs.subarray(0, row.mainCount);
      const fallbackDocs = row.hasFallback ? row.docs.subarray(row.mainCount) : undefined;
      this.byKeyword.set(row.keywordId, { docs, fallbackDocs });
    }
  }

  /** Candidates retrieved since the last call, to store. */
  takeUnsaved(): StoredCandidates[] {
    const rows: StoredCandidates[] = [];
    for (const keywordId of this.unsaved) {
      const { docs, fallbackDocs } = this.byKeyword.get(keywordId)!;
      const all = new Int32Array(docs.length + (fallbackDocs?.length ?? 0));
      all.set(docs);
      if (fallbackDocs) all.set(fallbackDocs, docs.length);
      rows.push({ keywordId, mainCount: docs.length, hasFallback: fallbackDocs !== undefined, docs: all });
    }
    this.unsaved = [];
    return rows;
  }
}
