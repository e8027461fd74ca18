/**
 * What organic ranking (organicRanking.ts) reads of each page, in arrays indexed by page: a
 * rank index build scores millions of candidates, and reading them from the page objects
 * scattered in the heap cost more than the arithmetic. Made from the corpus on the first
 * ranking, not when the engine opens: a small world's 211,543 pages take ~0.4 CPU-s, which a
 * restart (its default market's rank index stored) spent before answering anything (issue 26).
 */
import { intentForm } from '../world/headProfiles.js';
import type { SearchCorpus } from './searchCorpus.js';

const DAY_MS = 86_400_000;

export class PageFeatures {
  readonly publishedDay: Int32Array;
  readonly authority: Float32Array;
  readonly pageId: Float64Array;
  readonly rootId: Float64Array;
  readonly languageId: Float64Array;
  readonly isHomepage: Uint8Array;
  readonly domain: string[];
  /** Country label ("uk", "de") of each page's ccTLD, '' on a generic TLD. */
  readonly country: string[];
  /** 1 where the page's root domain has TrustFlow 0. */
  readonly untrusted: Uint8Array;
  /** Index into `siteKinds` of each page's site kind. */
  readonly siteKind: Uint16Array;
  readonly siteKinds: string[] = [];
  readonly farmKind: number;
  /** Each page's subject: an id of (language, keyword) and of (language, its head term), −1 when unknown. */
  readonly pageTopic: Int32Array;
  readonly pageHead: Int32Array;
  /** Topic ids by topicKey. */
  readonly topicIds = new Map<string, number>();
  /** Head ids by language, then head term (ids unique across languages). */
  readonly headIds = new Map<number, Map<string, number>>();
  private heads = 0;

  constructor(corpus: SearchCorpus) {
    const n = corpus.pages.length;
    this.publishedDay = new Int32Array(n);
    this.authority = new Float32Array(n);
    this.pageId = new Float64Array(n);
    this.rootId = new Float64Array(n);
    this.languageId = new Float64Array(n);
    this.isHomepage = new Uint8Array(n);
    this.domain = new Array<string>(n);
    this.country = new Array<string>(n);
    this.untrusted = new Uint8Array(n);
    this.siteKind = new Uint16Array(n);
    const kindIndex = new Map<string, number>();
    // Pages share their publication days (a few thousand days for 200,000 pages): each parsed once.
    const dayOf = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const p = corpus.pages[i];
      let published = dayOf.get(p.published);
      if (published === undefined) {
        const t = Date.parse(`${p.published}T00:00:00Z`);
        published = Number.isFinite(t) ? Math.floor(t / DAY_MS) : 0;
        dayOf.set(p.published, published);
      }
      this.publishedDay[i] = published;
      // Page strength 0–1 from its links: page authority and the link index's flows
      // (citation and trust) count more than its domain's authority.
      this.authority[i] = (0.35 * p.upa + 0.25 * p.pda + 0.25 * p.citationFlow + 0.15 * p.trustFlow) / 100;
      this.pageId[i] = p.id;
      this.rootId[i] = p.rootId;
      this.languageId[i] = p.languageId;
      this.isHomepage[i] = p.isHomepage ? 1 : 0;
      this.domain[i] = p.domain;
      this.country[i] = countryOfDomain(p.domain);
      this.untrusted[i] = p.rootTrustFlow === 0 ? 1 : 0;
      let kind = kindIndex.get(p.siteKind);
      if (kind === undefined) {
        kind = this.siteKinds.push(p.siteKind) - 1;
        kindIndex.set(p.siteKind, kind);
      }
      this.siteKind[i] = kind;
    }
    this.farmKind = kindIndex.get('farm') ?? -1;
    // Page subjects: the keyword each page was written for, and that keyword's head term.
    // Maps by language, then text: a key made of both, built for each of 200,000 pages, cost
    // more than the lookups.
    const headOf = new Map<number, Map<string, string>>();
    for (const k of corpus.keywords) inner(headOf, k.languageId).set(k.kw, k.head);
    this.pageTopic = new Int32Array(n).fill(-1);
    this.pageHead = new Int32Array(n).fill(-1);
    // Pages share their keywords (a small world: 170,000 pages, 22,000 keywords): one topic id and head id each.
    const subjectOf = new Map<number, Map<string, { topic: number; head: number }>>();
    for (let i = 0; i < n; i++) {
      const p = corpus.pages[i];
      if (!p.keyword) continue;
      const subjects = inner(subjectOf, p.languageId);
      let subject = subjects.get(p.keyword);
      if (subject === undefined) {
        const head = headOf.get(p.languageId)?.get(p.keyword);
        subject = {
          topic: idOf(this.topicIds, topicKey(p.languageId, p.keyword)),
          head: head === undefined ? -1 : this.headId(p.languageId, head),
        };
        subjects.set(p.keyword, subject);
      }
      this.pageTopic[i] = subject.topic;
      this.pageHead[i] = subject.head;
    }
  }

  private headId(languageId: number, head: string): number {
    const ids = inner(this.headIds, languageId);
    let id = ids.get(head);
    if (id === undefined) ids.set(head, (id = this.heads++));
    return id;
  }
}

/**
 * A page's or a query's subject: spellings of one intent are one subject ("hiking boots for
 * men" and "mens hiking boots", headProfiles.ts), so a page written for either is exact for both.
 */
export function topicKey(languageId: number, keyword: string): string {
  return `${languageId}|${languageId === 1000 ? intentForm(keyword) : keyword}`;
}

/**
 * Last labels of domains that are country codes used as generic TLDs (".io" start-ups,
 * ".co" companies, ".tv" channels): not a sign of a country.
 */
const GENERIC_CCTLDS: ReadonlySet<string> = new Set(['io', 'co', 'me', 'tv', 'ai', 'fm', 'ly', 'to', 'ws', 'cc']);

/** The country label of a domain's ccTLD ("co.uk" → "uk"), '' for a generic TLD (.com, .org, .io). */
export function countryOfDomain(domain: string): string {
  const last = domain.slice(domain.lastIndexOf('.') + 1);
  return last.length === 2 && !GENERIC_CCTLDS.has(last) ? last : '';
}

function inner<V>(outer: Map<number, Map<string, V>>, key: number): Map<string, V> {
  let map = outer.get(key);
  if (map === undefined) outer.set(key, (map = new Map()));
  return map;
}

function idOf(ids: Map<string, number>, key: string): number {
  let id = ids.get(key);
  if (id === undefined) ids.set(key, (id = ids.size));
  return id;
}
