/**
 * Titles, descriptions and body terms of sandbox pages, from the page's keyword and its
 * niche vocabulary, so that a BM25 index over `title + description + body` finds the
 * pages written for a query. Deterministic per page (seeded by the page id).
 */
import type { SiteKind } from './siteKinds.js';
import { NICHES } from './niches.js';
import { Rng } from './random.js';
import { EN_HEAD_PROFILES } from './headProfiles.js';

export interface PageText {
  title: string;
  description: string;
  body: string;
}

const TITLE_TEMPLATES: Record<SiteKind, readonly string[]> = {
  blog: ['{K}: A Complete Guide', '{K} – Everything You Need to Know'],
  shop: ['{K} | {B}'],
  brand: ['{K} | Official {B} Site', '{K} | {B}'],
  news: ['{K}: What Experts Say This Year', '{K}: The Latest News'],
  forum: ['{K}? Help Needed', 'Discussion: {K}'],
  wiki: ['{K} - {B}', '{K}'],
  edu: ['{K}: Research Overview', '{K} (Course Notes)'],
  gov: ['{K}: Official Guidance', '{K} – Consumer Advice'],
  directory: ['{K} Websites Directory', 'Top {K} Links'],
  farm: ['{K} {K} Best {K} Cheap', 'Free {K} Links'],
};

/**
 * Titles around the name of a thing ("running shoes", "waterproof tent"), added to the
 * kind's list when the keyword is one: around a search for an offer or a review they read
 * as nonsense ("My Honest Best Cold Brew Experience", "Anyone Tried Tent Price?").
 */
const THING_TITLES: Partial<Record<SiteKind, readonly string[]>> = {
  blog: ['My Honest {K} Experience'],
  shop: ['{K}: Plans and Prices | {B}'],
  brand: ['{B} {K}', '{K} by {B}'],
  news: ['The Rise of {K}'],
  forum: ['Anyone Tried {K}?'],
  edu: ['Study on {K}'],
  gov: ['Regulations on {K}'],
};

/**
 * Titles that only fit goods one ships and tests ("Vpn – Free Shipping" and "Credit Card on
 * Sale" read as nonsense): on a page about a good by name, instead of the thing titles.
 */
const PRODUCT_TITLES: Partial<Record<SiteKind, readonly string[]>> = {
  blog: ['The Best {K} (Tested and Reviewed)', 'My Honest {K} Experience'],
  shop: ['Buy {K} Online | {B}', '{K} – Free Shipping | {B}', '{K} on Sale at {B}'],
};

/** Words of a search for an offer, a review or advice ("tent price", "best tent", "tent tips"): the keyword is no thing's name. */
export const NOT_A_THING =
  /\b(best|top|rated|review|reviews|sale|deals|price|prices|pricing|cost|comparison|compare|vs|near|buy|discount|code|packages|requirements|tips|ideas|guide|cheapest|used)\b|\d{4}/;

/** Niches whose non-English heads are not goods (English heads say so in headProfiles.ts). */
const SERVICE_NICHES = new Set(['finance', 'travel', 'education']);

/**
 * Titles of pages written for a question or a how-to ("how to clean running shoes"): the
 * templates above read as nonsense around them ("The Best How To Clean …").
 */
const QUESTION_TITLES: Record<SiteKind, readonly string[]> = {
  blog: ['{K}? Here Is the Answer', '{K}: What You Need to Know', '{K} (Explained)'],
  shop: ['{K} | {B}', '{K}? Our Buying Advice | {B}'],
  brand: ['{K} | {B} Help Centre', '{K} | {B}'],
  news: ['{K}? Experts Explain', '{K}: The Answer'],
  forum: ['{K}?', '{K}? Help Needed', 'Question: {K}?'],
  wiki: ['{K} - {B}', '{K}'],
  edu: ['{K} (Course Notes)', '{K}: A Short Introduction'],
  gov: ['{K}: Official Guidance', '{K}'],
  directory: ['{K} Websites Directory'],
  farm: ['{K} {K} Best {K} Cheap', 'Free {K} Links'],
};

const QUESTION_START = /^(how|what|why|when|where|which|is|are|does|do|can|should|was|wie|welche|warum|comment|pourquoi|qu)\b/;

function titleCase(text: string): string {
  return text.replace(/(^|\s)(\p{L})/gu, (_, space: string, letter: string) => space + letter.toUpperCase());
}

/**
 * Title templates that fit the keyword: about goods only for goods, and none that repeats a
 * word of the keyword ("Buy Buy Running Shoes Online", "Study on Cheap Cheap …").
 */
function templatesFor(kind: SiteKind, keyword: string, brand: string, product: boolean): readonly string[] {
  const lower = keyword.toLowerCase();
  const have = new Set(lower.split(/\s+/));
  let templates: readonly string[];
  if (QUESTION_START.test(lower)) templates = QUESTION_TITLES[kind];
  else if (NOT_A_THING.test(lower)) templates = TITLE_TEMPLATES[kind];
  else templates = [...TITLE_TEMPLATES[kind], ...((product ? PRODUCT_TITLES[kind] : undefined) ?? THING_TITLES[kind] ?? [])];
  const fitting = templates.filter((t) =>
    t
      .replace('{K}', ' ')
      .replace('{B}', brand)
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .every((w) => w === '' || !have.has(w)),
  );
  return fitting.length > 0 ? fitting : ['{K}'];
}

/** Whether a keyword's head is a good one buys and ships (a tent), not a service, software or topic. */
export function isProductHead(head: string, nicheId: number, english: boolean): boolean {
  if (english) return (EN_HEAD_PROFILES[head]?.kind ?? 'product') === 'product';
  return !SERVICE_NICHES.has(NICHES[Math.max(1, nicheId) - 1].name);
}

/** What a site with no niche is, for its homepage ("Openpedia – The Free Encyclopedia"). */
const GENERAL_SITES: Record<SiteKind, string> = {
  blog: 'Notes on Everything',
  shop: 'Everything Store',
  brand: 'Official Site',
  news: 'News and Analysis',
  forum: 'Community Forum',
  wiki: 'The Free Encyclopedia',
  edu: 'University',
  gov: 'Official Information and Services',
  directory: 'Web Directory',
  farm: 'Links',
};

/** The keyword a page was written for. */
export interface PageKeyword {
  kw: string;
  head: string;
  languageId: number;
  /** Other phrasings of the keyword (one search intent), which a page about it uses too. */
  synonyms: readonly string[];
}

/**
 * The text of a page. A homepage says what its site is about: its niche (`siteNiche`), or
 * what kind of site it is when it has none ("Petspedia – Education" contradicted a site
 * named after pets); other pages are about their keyword, in their own niche (`pageNiche`).
 */
export function pageText(
  pageId: number,
  kind: SiteKind,
  brand: string,
  keyword: PageKeyword | null,
  siteNiche: number,
  pageNiche: number,
  isHome: boolean,
): PageText {
  const rng = new Rng(pageId * 2654435761);
  if (isHome || keyword === null) {
    if (siteNiche === 0 && isHome) {
      const terms = NICHES.map((n) => n.name);
      return {
        title: `${brand} – ${GENERAL_SITES[kind]}`,
        description: `${brand}: ${GENERAL_SITES[kind].toLowerCase()} on ${rng.pick(terms)}, ${rng.pick(terms)}, ${rng.pick(terms)} and more.`,
        body: [brand.toLowerCase(), ...GENERAL_SITES[kind].toLowerCase().split(' '), ...Array.from({ length: 25 }, () => rng.pick(terms))].join(' '),
      };
    }
    const niche = NICHES[Math.max(1, isHome ? siteNiche : pageNiche) - 1];
    const topic = niche.name;
    return {
      title: `${brand} – ${titleCase(topic)}${kind === 'shop' ? ' Shop' : kind === 'news' ? ' News' : ''}`,
      description: `${brand}: ${topic} ${rng.pick(niche.terms)}, ${rng.pick(niche.terms)} and ${rng.pick(niche.terms)}.`,
      body: [brand.toLowerCase(), topic, ...Array.from({ length: 25 }, () => rng.pick(niche.terms))].join(' '),
    };
  }
  const niche = NICHES[Math.max(1, pageNiche) - 1];
  const product = isProductHead(keyword.head, pageNiche, keyword.languageId === 1000);
  const title = rng
    .pick(templatesFor(kind, keyword.kw, brand, product))
    .replaceAll('{K}', titleCase(keyword.kw))
    .replaceAll('{B}', brand);
  const description = `${titleCase(keyword.kw)}: ${rng.pick(niche.terms)}, ${rng.pick(niche.terms)} and ${rng.pick(niche.terms)} explained. ${rng.pick(niche.attributes)} options compared.`;
  const terms: string[] = [];
  const keywordTerms = keyword.kw.toLowerCase().split(/\s+/);
  const repeats = kind === 'farm' ? 8 : rng.int(2, 5);
  for (let i = 0; i < repeats; i++) terms.push(...keywordTerms);
  for (const synonym of keyword.synonyms) terms.push(...synonym.toLowerCase().split(/\s+/));
  const fill = rng.int(20, 60);
  for (let i = 0; i < fill; i++) terms.push(rng.chance(0.15) ? rng.pick(niche.attributes) : rng.pick(niche.terms));
  return { title, description, body: terms.join(' ') };
}
