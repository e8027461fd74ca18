/** Building a Bm25Index: from a page count and its fields at once, or one page at a time. */
import { tokenize } from './text.js';
import { Bm25Index, PAGE_FIELD_WEIGHTS, type Bm25Options } from './bm25Index.js';
import { GrowableFloat32, GrowableInt32 } from './growableArrays.js';

/**
 * Builds the index. `fieldsOf(i)` returns the texts of document i's fields, weighted by
 * `weights` (same order).
 *
 * @example buildBm25Index(pages.length, (i) => [pages[i].title, pages[i].description, pages[i].body])
 */
export function buildBm25Index(
  docCount: number,
  fieldsOf: (doc: number) => readonly string[],
  weights: readonly number[] = PAGE_FIELD_WEIGHTS,
  options: Bm25Options = {},
): Bm25Index {
  const builder = new Bm25Builder(weights, options);
  for (let doc = 0; doc < docCount; doc++) builder.add(fieldsOf(doc));
  return builder.finish();
}

/**
 * Builds a Bm25Index one document at a time, so that a loader can stream page rows and
 * drop their text once indexed. Fields marked pre-tokenised (page bodies: lower-case
 * terms separated by single spaces) are scanned in place: a term is looked up in an
 * open-addressing table by hashing its characters, so the ~25M body tokens of a small
 * world create no garbage strings.
 */
export class Bm25Builder {
  readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  private table = new Int32Array(1 << 16);
  private readonly pairDoc = new GrowableInt32();
  private readonly pairTerm = new GrowableInt32();
  private readonly pairTf = new GrowableFloat32();
  private readonly docLengths = new GrowableFloat32();
  private seenIn = new Int32Array(4096).fill(-1);
  private slotOf = new Int32Array(4096);
  private readonly docTerms = new GrowableInt32();
  private readonly docTf = new GrowableFloat32();
  private totalLength = 0;
  private docs = 0;

  constructor(
    private readonly weights: readonly number[] = PAGE_FIELD_WEIGHTS,
    private readonly options: Bm25Options = {},
  ) {}

  /** Adds the next document (documents are numbered 0, 1, ... in order of addition). */
  add(fields: readonly string[]): number {
    const doc = this.docs++;
    this.docTerms.length = 0;
    this.docTf.length = 0;
    let length = 0;
    const pre = this.options.preTokenized ?? [];
    for (let f = 0; f < fields.length; f++) {
      const w = this.weights[f] ?? 1;
      const text = fields[f];
      if (pre[f]) {
        let start = 0;
        for (let i = 0; i <= text.length; i++) {
          if (i === text.length || text.charCodeAt(i) === 32) {
            if (i > start) {
              this.count(this.termInPlace(text, start, i), w, doc);
              length += w;
            }
            start = i + 1;
          }
        }
      } else {
        for (const token of tokenize(text)) {
          this.count(this.termOf(token), w, doc);
          length += w;
        }
      }
    }
    this.docLengths.push(length);
    this.totalLength += length;
    for (let i = 0; i < this.docTerms.length; i++) {
      this.pairDoc.push(doc);
      this.pairTerm.push(this.docTerms.data[i]);
      this.pairTf.push(this.docTf.data[i]);
    }
    return doc;
  }

  private count(term: number, w: number, doc: number): void {
    if (term >= this.seenIn.length) {
      const seen = new Int32Array(this.seenIn.length * 2).fill(-1);
      seen.set(this.seenIn);
      this.seenIn = seen;
      const slot = new Int32Array(this.slotOf.length * 2);
      slot.set(this.slotOf);
      this.slotOf = slot;
    }
    if (this.seenIn[term] === doc) this.docTf.data[this.slotOf[term]] += w;
    else {
      this.seenIn[term] = doc;
      this.slotOf[term] = this.docTerms.length;
      this.docTerms.push(term);
      this.docTf.push(w);
    }
  }

  private termOf(token: string): number {
    const known = this.termIds.get(token);
    return known !== undefined ? known : this.termInPlace(token, 0, token.length);
  }

  /** Term id of text[start, end), found by FNV-1a over its characters without slicing. */
  private termInPlace(text: string, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const mask = this.table.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot];
      if (entry === 0) {
        const token = text.slice(start, end);
        const existing = this.termIds.get(token);
        const term = existing ?? this.terms.length;
        if (existing === undefined) {
          this.terms.push(token);
          this.termIds.set(token, term);
        }
        this.table[slot] = term + 1;
        if (this.terms.length * 2 > this.table.length) this.grow();
        return term;
      }
      const candidate = this.terms[entry - 1];
      if (candidate.length === end - start) {
        let same = true;
        for (let i = 0; i < candidate.length; i++) {
          if (candidate.charCodeAt(i) !== text.charCodeAt(start + i)) {
            same = false;
            break;
          }
        }
        if (same) return entry - 1;
      }
    }
  }

  private grow(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let term = 0; term < this.terms.length; term++) {
      const token = this.terms[term];
      let h = 0x811c9dc5;
      for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
      let slot = h & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = term + 1;
    }
    this.table = table;
  }

  /** The finished index: postings sorted into compressed sparse rows. */
  finish(): Bm25Index {
    return Bm25Index.fromPostings(
      this.options,
      this.termIds,
      this.docs,
      this.docLengths.data.slice(0, this.docs),
      this.totalLength,
      this.pairDoc,
      this.pairTerm,
      this.pairTf,
    );
  }
}
