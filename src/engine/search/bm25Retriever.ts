/**
 * The BM25 retrieval of organic ranking (OrganicRanker.retrieve): a query's candidate pages
 * before scoring. It reads the text index alone, so a thread holding only the index (a world
 * build's retrieval worker, retrievalWorker.ts) retrieves exactly what the ranker would.
 *
 * @example
 * const retriever = new Bm25Retriever(index);
 * const { found, fallback } = retriever.retrieve({ keyword: 'running shoes', head: 'running shoes' }, 50, 600);
 */
import type { Bm25Index, ScoredDocs } from './bm25Index.js';
import { tokenize } from './text.js';
import { intentForm } from '../world/headProfiles.js';

/** What a retrieval reads of a query (see RankQuery in organicRanking.ts). */
export interface RetrievalQuery {
  /** Normalised keyword. */
  keyword: string;
  /** Extra query tokens used, at low weight, when the keyword alone matches few pages. */
  fallbackTokens?: readonly string[];
  /** The head term the keyword was built from (itself for a head): pages about it are on topic. */
  head?: string;
}

/**
 * The BM25 candidates of a query before scoring. They depend on the keyword's text and
 * topic only, not on location, platform or date: the rank index retrieves them once per
 * keyword and re-scores them in every market (see rankCandidates.ts).
 */
export interface Retrieval {
  found: ScoredDocs;
  /** Pages of the keyword's topic (its fallback tokens), searched when the keyword matches few pages. */
  fallback?: ScoredDocs;
}

/** The documents of a retrieval, to re-score later (OrganicRanker.rescore). */
export interface RetrievedDocs {
  docs: Int32Array;
  fallbackDocs?: Int32Array;
}

/** A keyword's tokens as the ranker searches them. */
export function queryTokens(keyword: string): string[] {
  return tokenize(intentForm(keyword));
}

export class Bm25Retriever {
  private readonly headSearches = new Map<string, Int32Array>();

  constructor(private readonly index: Bm25Index) {}

  /**
   * The BM25 candidates `rank` re-ranks for a query: the `candidates` best matches of
   * the keyword and, when fewer than twice `limit` pages match it, those of its fallback
   * tokens.
   */
  retrieve(query: RetrievalQuery, limit: number, candidates: number): Retrieval {
    const depth = Math.max(candidates, limit);
    const tokens = queryTokens(query.keyword);
    let found = this.index.search(tokens, depth);
    if (query.head && query.head !== query.keyword) {
      // The best matches of a long keyword can all be pages sharing its pattern words ("how
      // much does … cost" about other things): the pages best matching its head term are
      // candidates too, scored for the whole keyword.
      const known = new Set(found.docs);
      const extra = this.headDocs(query.head, depth).filter((d) => !known.has(d));
      if (extra.length > 0) {
        const docs = new Int32Array(found.docs.length + extra.length);
        docs.set(found.docs);
        docs.set(extra, found.docs.length);
        found = this.index.scoreDocs(tokens, docs);
      }
    }
    if (found.docs.length < limit * 2 && query.fallbackTokens && query.fallbackTokens.length > 0) {
      return { found, fallback: this.index.search(query.fallbackTokens, depth) };
    }
    return { found };
  }

  /** The best `depth` matches of a head term (remembered: a head has dozens of keywords). */
  private headDocs(head: string, depth: number): Int32Array {
    const key = `${depth}|${head}`;
    let docs = this.headSearches.get(key);
    if (!docs) this.headSearches.set(key, (docs = this.index.search(tokenize(head), depth).docs));
    return docs;
  }
}
