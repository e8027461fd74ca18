/**
 * The kinds of sites of the sandbox web: their share of root domains, the traits the link
 * generator reads, and which keywords a site of each kind writes pages for.
 */
import type { GeneratedKeyword } from './keywordGenerator.js';

export type SiteKind = 'blog' | 'shop' | 'brand' | 'news' | 'forum' | 'wiki' | 'edu' | 'gov' | 'directory' | 'farm';

/** Share of root domains by kind, and kind traits used by the link generator. */
export const KIND_TRAITS: Record<SiteKind, { share: number; fitness: number; outLinks: number; nofollow: number; pages: number }> = {
  blog: { share: 0.34, fitness: 1, outLinks: 1, nofollow: 0.06, pages: 1 },
  shop: { share: 0.2, fitness: 0.8, outLinks: 0.3, nofollow: 0.05, pages: 1.5 },
  brand: { share: 0.07, fitness: 3, outLinks: 0.3, nofollow: 0.05, pages: 1.2 },
  news: { share: 0.05, fitness: 6, outLinks: 1.3, nofollow: 0.2, pages: 4 },
  forum: { share: 0.05, fitness: 1.2, outLinks: 1.5, nofollow: 0.6, pages: 3 },
  wiki: { share: 0.003, fitness: 15, outLinks: 1.2, nofollow: 0.5, pages: 6 },
  edu: { share: 0.045, fitness: 3, outLinks: 0.8, nofollow: 0.02, pages: 2 },
  gov: { share: 0.02, fitness: 3, outLinks: 0.6, nofollow: 0.02, pages: 2 },
  directory: { share: 0.05, fitness: 0.3, outLinks: 3, nofollow: 0.3, pages: 1.5 },
  farm: { share: 0.142, fitness: 0.08, outLinks: 4, nofollow: 0.02, pages: 1 },
};

/**
 * Whether a site of a kind writes a page for a keyword, by the keyword's kind and intent
 * (its first intent label is its main one): an encyclopedia has articles on things and
 * answers to questions, not "cheap running shoes" or "tent near me"; a shop sells
 * (products, prices, deals, buying questions), not "how to make cold brew"; a news site
 * reports, it does not sell; a directory lists local businesses. Blogs and forums write
 * about nearly everything but local searches; link farms target anything.
 */
/** Keywords answered by reviews and comparisons, which shops do not write. */
const EDITORIAL = /\b(best|top|review|reviews|vs|comparison|compare|beste|test|vergleich|meilleur|avis|comparatif)\b/;

/** Questions an encyclopedia answers: what a thing is, how it works. */
const DEFINITION = /^(what is|what are|how does|how do|was ist|wie funktioniert|qu est ce que)\b/;

export function keywordFits(kind: SiteKind, k: Pick<GeneratedKeyword, 'kw' | 'kind' | 'intent'>): boolean {
  const intents = k.intent.split(',');
  const main = intents[0];
  const local = intents.includes('local');
  const question = k.kind === 'question';
  switch (kind) {
    case 'wiki':
      // Articles on things and brands, and what they are or how they work; no how-tos.
      return k.kind === 'head' || (k.kind === 'brand' && main === 'navigational') || (question && main === 'informational' && DEFINITION.test(k.kw));
    case 'edu':
    case 'gov':
      return k.kind === 'head' || main === 'informational';
    case 'shop':
      // Products and offers ("womens running shoes", "running shoes sale"), not reviews or comparisons.
      return !local && (k.kind === 'head' || main === 'transactional' || (main === 'commercial' && !question && !EDITORIAL.test(k.kw)));
    case 'brand':
      return !local && !question && (k.kind === 'head' || main === 'transactional' || main === 'commercial' || main === 'navigational');
    case 'directory':
      return local || k.kind === 'head';
    case 'news':
      return !local && main !== 'transactional' && main !== 'navigational';
    case 'forum':
      return !local && (question || main === 'commercial' || main === 'informational' || k.kind === 'versus');
    case 'blog':
      return !local && main !== 'navigational';
    default:
      return true;
  }
}
