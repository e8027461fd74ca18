/**
 * An in-memory inverted index over page text scored with BM25F.
 *
 * Scoring follows Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", Foundations and Trends in IR 3(4), 2009: §3.5 eq. (3.15) for BM25 and §6
 * (BM25F, eq. 6.1–6.3) for weighted fields, simplified to a single length normalisation
 * over the weighted document length (as in Robertson, Zaragoza & Taylor, "Simple BM25
 * extension to multiple weighted fields", CIKM 2004). The idf is the non-negative variant
 * log(1 + (N − n + 0.5)/(n + 0.5)) used by Lucene, so very common terms never score below 0.
 *
 * Postings are stored as compressed sparse rows in typed arrays (term → doc ids and
 * weighted term frequencies), which keeps a ~100k-page world in a few tens of MB and
 * lets a query touch only the postings of its terms.
 */
import type { GrowableFloat32, GrowableInt32 } from './growableArrays.js';
import { selectTop } from './topDocs.js';

export interface Bm25Options {
  /** Term-frequency saturation; 1.2 is the usual default (Robertson & Zaragoza 2009, §3.5). */
  k1?: number;
  /** Length normalisation strength; 0.75 is the usual default. */
  b?: number;
  /** Fields (by position) already lower-case and space-separated (page bodies): split, not tokenised. */
  preTokenized?: readonly boolean[];
}

/** A term in more than this share of documents is "common" (see Bm25Index.search). */
const COMMON_TERM_SHARE = 0.05;

/** Weights of the fields of a page: a title word counts three times a body word. */
export const PAGE_FIELD_WEIGHTS = [3, 2, 1] as const;

/** The arrays of an index (for storage). */
export interface Bm25Parts {
  terms: string[];
  offsets: Int32Array;
  postingDocs: Int32Array;
  postingTf: Float32Array;
  docLength: Float32Array;
  k1: number;
  b: number;
}

export interface ScoredDocs {
  /** Document numbers, best first. */
  docs: Int32Array;
  scores: Float64Array;
  /** Share (0–1) of the query's idf mass whose terms each document contains. */
  coverage: Float64Array;
}

export class Bm25Index {
  private readonly k1: number;
  private readonly b: number;
  private termIds = new Map<string, number>();
  /** CSR: postings of term t are [offsets[t], offsets[t + 1]). */
  private offsets: Int32Array = new Int32Array(1);
  private postingDocs: Int32Array = new Int32Array(0);
  private postingTf: Float32Array = new Float32Array(0);
  private docLength: Float32Array = new Float32Array(0);
  private avgDocLength = 1;
  private docCount = 0;
  /**
   * Scratch reused between queries (the index is used from one thread): a document's score
   * at 2·doc and its matched idf at 2·doc + 1, side by side so a posting touches one cache
   * line, and the documents touched so far.
   */
  private accumulator: Float64Array = new Float64Array(0);
  private touched: Int32Array = new Int32Array(0);
  /** Each document's BM25 length normalisation, k1·(1 − b + b·length/avgLength), computed once. */
  private norm: Float64Array = new Float64Array(0);

  private constructor(options: Bm25Options) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
  }

  /** @internal Used by Bm25Builder. */
  static fromPostings(
    options: Bm25Options,
    termIds: Map<string, number>,
    docCount: number,
    docLength: Float32Array,
    totalLength: number,
    pairDoc: GrowableInt32,
    pairTerm: GrowableInt32,
    pairTf: GrowableFloat32,
  ): Bm25Index {
    const index = new Bm25Index(options);
    index.termIds = termIds;
    index.docCount = docCount;
    index.docLength = docLength;
    index.avgDocLength = docCount > 0 ? Math.max(totalLength / docCount, 1) : 1;
    // Counting sort of the (doc, term) pairs by term: docs stay ascending within a term.
    const termCount = termIds.size;
    const offsets = new Int32Array(termCount + 1);
    for (let i = 0; i < pairTerm.length; i++) offsets[pairTerm.data[i] + 1]++;
    for (let t = 0; t < termCount; t++) offsets[t + 1] += offsets[t];
    const cursor = offsets.slice(0, termCount);
    const postingDocs = new Int32Array(pairTerm.length);
    const postingTf = new Float32Array(pairTerm.length);
    for (let i = 0; i < pairTerm.length; i++) {
      const at = cursor[pairTerm.data[i]]++;
      postingDocs[at] = pairDoc.data[i];
      postingTf[at] = pairTf.data[i];
    }
    index.offsets = offsets;
    index.postingDocs = postingDocs;
    index.postingTf = postingTf;
    index.prepareScratch();
    return index;
  }

  get size(): number {
    return this.docCount;
  }

  /** The index as plain arrays, to store it (see fromParts). */
  toParts(): Bm25Parts {
    const terms = new Array<string>(this.termIds.size);
    for (const [term, id] of this.termIds) terms[id] = term;
    return {
      terms,
      offsets: this.offsets,
      postingDocs: this.postingDocs,
      postingTf: this.postingTf,
      docLength: this.docLength,
      k1: this.k1,
      b: this.b,
    };
  }

  /** An index from stored parts (see toParts). */
  static fromParts(parts: Bm25Parts): Bm25Index {
    const index = new Bm25Index({ k1: parts.k1, b: parts.b });
    parts.terms.forEach((term, id) => index.termIds.set(term, id));
    index.offsets = parts.offsets;
    index.postingDocs = parts.postingDocs;
    index.postingTf = parts.postingTf;
    index.docLength = parts.docLength;
    index.docCount = parts.docLength.length;
    let total = 0;
    for (let i = 0; i < parts.docLength.length; i++) total += parts.docLength[i];
    index.avgDocLength = index.docCount > 0 ? Math.max(total / index.docCount, 1) : 1;
    index.prepareScratch();
    return index;
  }

  /** The per-query scratch and the documents' length normalisations (see `termWeight`). */
  private prepareScratch(): void {
    this.accumulator = new Float64Array(2 * this.docCount);
    this.touched = new Int32Array(this.docCount);
    this.norm = new Float64Array(this.docCount);
    for (let doc = 0; doc < this.docCount; doc++) this.norm[doc] = this.k1 * (1 - this.b + (this.b * this.docLength[doc]) / this.avgDocLength);
  }

  /** Number of documents containing the term (its document frequency). */
  documentFrequency(token: string): number {
    const t = this.termIds.get(token);
    return t === undefined ? 0 : this.offsets[t + 1] - this.offsets[t];
  }

  /** Inverse document frequency of a term (0 for an unknown term). */
  idf(token: string): number {
    const n = this.documentFrequency(token);
    if (n === 0) return 0;
    return Math.log(1 + (this.docCount - n + 0.5) / (n + 0.5));
  }

  /**
   * The query's known terms, rarest first, each with its idf times its query-term
   * frequency (a repeated token counts once per occurrence). `search` and `scoreDocs`
   * add term contributions in this order, so both sum a document's score identically.
   */
  private queryTerms(queryTokens: readonly string[]): { term: number; idf: number }[] {
    const queryTf = new Map<number, number>();
    for (const token of queryTokens) {
      const t = this.termIds.get(token);
      if (t !== undefined) queryTf.set(t, (queryTf.get(t) ?? 0) + 1);
    }
    const terms = [...queryTf.keys()].sort((x, y) => this.offsets[x + 1] - this.offsets[x] - (this.offsets[y + 1] - this.offsets[y]));
    return terms.map((t) => {
      const n = this.offsets[t + 1] - this.offsets[t];
      return { term: t, idf: Math.log(1 + (this.docCount - n + 0.5) / (n + 0.5)) * queryTf.get(t)! };
    });
  }

  /** BM25 weight of a term occurring `tf` (field-weighted) times in a document. */
  private termWeight(idf: number, tf: number, doc: number): number {
    return (idf * (tf * (this.k1 + 1))) / (tf + this.norm[doc]);
  }

  /** Position of a document in a term's postings [start, end), or −1 (postings are sorted by doc). */
  private postingOf(start: number, end: number, doc: number): number {
    let lo = start;
    let hi = end - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = this.postingDocs[mid];
      if (d === doc) return mid;
      if (d < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * The `limit` best documents for a bag of query tokens (a repeated token counts once per
   * occurrence, as query-term frequency). Documents matching no term are not returned.
   */
  search(queryTokens: readonly string[], limit: number): ScoredDocs {
    // The loops below are most of a first start's ranking (issue 26): arrays in locals, the
    // term weight written out (the same arithmetic as termWeight, so the same scores).
    const acc = this.accumulator;
    const touched = this.touched;
    const { postingDocs, postingTf, norm } = this;
    const k1Plus1 = this.k1 + 1;
    let count = 0;
    let totalIdf = 0;
    // Rarer terms first. A very common term ("how", "to", "best") is then scored only on
    // the documents the rarer terms found (when those are already `limit` or more), by
    // binary search in its sorted postings, instead of walking postings that cover a large
    // part of the collection; documents holding only common terms are then not candidates
    // (they would answer little of the query).
    const commonDf = Math.max(1, Math.floor(this.docCount * COMMON_TERM_SHARE));
    for (const { term, idf } of this.queryTerms(queryTokens)) {
      const start = this.offsets[term];
      const end = this.offsets[term + 1];
      const n = end - start;
      totalIdf += idf;
      if (n > commonDf && count >= limit && count * 16 < n) {
        for (let j = 0; j < count; j++) {
          const doc = touched[j];
          const at = this.postingOf(start, end, doc);
          if (at === -1) continue;
          const tf = postingTf[at];
          acc[2 * doc] += (idf * (tf * k1Plus1)) / (tf + norm[doc]);
          acc[2 * doc + 1] += idf;
        }
        continue;
      }
      for (let i = start; i < end; i++) {
        const doc = postingDocs[i];
        const tf = postingTf[i];
        const score = acc[2 * doc];
        if (score === 0) touched[count++] = doc;
        acc[2 * doc] = score + (idf * (tf * k1Plus1)) / (tf + norm[doc]);
        acc[2 * doc + 1] += idf;
      }
    }
    const top = selectTop(touched, count, acc, limit);
    const result: ScoredDocs = { docs: top, scores: new Float64Array(top.length), coverage: new Float64Array(top.length) };
    for (let i = 0; i < top.length; i++) {
      result.scores[i] = acc[2 * top[i]];
      result.coverage[i] = totalIdf > 0 ? acc[2 * top[i] + 1] / totalIdf : 0;
    }
    for (let i = 0; i < count; i++) {
      acc[2 * touched[i]] = 0;
      acc[2 * touched[i] + 1] = 0;
    }
    return result;
  }

  /**
   * Scores and coverage of given documents for a query, in the given order: the same
   * numbers `search` gives them when they are among its results (their scores add the
   * same term weights in the same order). It looks the documents up in the postings of
   * each term, in document order with a galloping search, so re-scoring the few hundred
   * candidates a search once returned costs a small part of searching again (the rank
   * index re-ranks each keyword's remembered candidates in every market).
   */
  scoreDocs(queryTokens: readonly string[], docs: Int32Array): ScoredDocs {
    const n = docs.length;
    const result: ScoredDocs = { docs, scores: new Float64Array(n), coverage: new Float64Array(n) };
    // Positions of the documents in ascending document order (keys doc·n + position sort as numbers).
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = docs[i] * n + i;
    keys.sort();
    const byDoc = new Int32Array(n);
    for (let j = 0; j < n; j++) byDoc[j] = keys[j] % n;
    let totalIdf = 0;
    for (const { term, idf } of this.queryTerms(queryTokens)) {
      const end = this.offsets[term + 1];
      totalIdf += idf;
      let at = this.offsets[term];
      for (let j = 0; j < n && at < end; j++) {
        const i = byDoc[j];
        at = this.firstPostingFrom(at, end, docs[i]);
        if (at < end && this.postingDocs[at] === docs[i]) {
          result.scores[i] += this.termWeight(idf, this.postingTf[at], docs[i]);
          result.coverage[i] += idf;
        }
      }
    }
    for (let i = 0; i < n; i++) result.coverage[i] = totalIdf > 0 ? result.coverage[i] / totalIdf : 0;
    return result;
  }

  /** The first posting in [from, end) whose document is ≥ doc (end if none), by galloping from `from`. */
  private firstPostingFrom(from: number, end: number, doc: number): number {
    if (from >= end || this.postingDocs[from] >= doc) return from;
    // Invariant: postingDocs[lo] < doc; the answer lies in (lo, hi].
    let lo = from;
    let step = 1;
    while (lo + step < end && this.postingDocs[lo + step] < doc) {
      lo += step;
      step *= 2;
    }
    let hi = Math.min(lo + step, end);
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.postingDocs[mid] < doc) lo = mid;
      else hi = mid;
    }
    return hi;
  }
}
