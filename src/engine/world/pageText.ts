/**
 * Titles, descriptions and body terms of sandbox pages, from the page's keyword and its
 * niche vocabulary, so that a BM25 index over `title + description + body` finds the
 * pages written for a query. Deterministic per page (seeded by the page id).
 */
import type { SiteKind } from './siteGenerator.js';
import { NICHES } from './vocabulary.js';
import { Rng } from './random.js';

export interface PageText {
  title: string;
  description: string;
  body: string;
}

const TITLE_TEMPLATES: Record<SiteKind, readonly string[]> = {
  blog: ['{K}: A Complete Guide', 'The Best {K} (Tested and Reviewed)', '{K} – Everything You Need to Know', 'My Honest {K} Experience'],
  shop: ['Buy {K} Online | {B}', '{K} – Free Shipping | {B}', '{K} on Sale at {B}'],
  brand: ['{K} | Official {B} Site', '{B} {K}', '{K} by {B}'],
  news: ['{K}: What Experts Say This Year', 'Why {K} Is in the News', 'The Rise of {K}'],
  forum: ['{K}? Help Needed', 'Discussion: {K}', 'Anyone Tried {K}?'],
  wiki: ['{K} - {B}', '{K}'],
  edu: ['{K}: Research Overview', 'Study on {K}', '{K} (Course Notes)'],
  gov: ['{K}: Official Guidance', '{K} – Consumer Advice', 'Regulations on {K}'],
  directory: ['{K} Websites Directory', 'Top {K} Links'],
  farm: ['{K} {K} Best {K} Cheap', 'Free {K} Links'],
};

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

/** Title templates that do not repeat a word of the keyword ("Buy Buy Running Shoes Online", "Study on Cheap Cheap …"). */
function templatesFor(kind: SiteKind, keyword: string, brand: string): readonly string[] {
  const have = new Set(keyword.toLowerCase().split(/\s+/));
  const templates = QUESTION_START.test(keyword.toLowerCase()) ? QUESTION_TITLES[kind] : TITLE_TEMPLATES[kind];
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

/**
 * The text of a page; `synonyms` are other phrasings of the page's keyword (one search
 * intent), which a page about it uses too.
 */
export function pageText(
  pageId: number,
  kind: SiteKind,
  brand: string,
  keyword: string | null,
  nicheId: number,
  isHome: boolean,
  synonyms: readonly string[] = [],
): PageText {
  const rng = new Rng(pageId * 2654435761);
  const niche = NICHES[Math.max(1, nicheId) - 1];
  if (isHome || keyword === null) {
    const topic = niche.name;
    return {
      title: `${brand} – ${titleCase(topic)}${kind === 'shop' ? ' Shop' : kind === 'news' ? ' News' : ''}`,
      description: `${brand}: ${topic} ${rng.pick(niche.terms)}, ${rng.pick(niche.terms)} and ${rng.pick(niche.terms)}.`,
      body: [brand.toLowerCase(), topic, ...Array.from({ length: 25 }, () => rng.pick(niche.terms))].join(' '),
    };
  }
  const title = rng
    .pick(templatesFor(kind, keyword, brand))
    .replaceAll('{K}', titleCase(keyword))
    .replaceAll('{B}', brand);
  const description = `${titleCase(keyword)}: ${rng.pick(niche.terms)}, ${rng.pick(niche.terms)} and ${rng.pick(niche.terms)} explained. ${rng.pick(niche.attributes)} options compared.`;
  const terms: string[] = [];
  const keywordTerms = keyword.toLowerCase().split(/\s+/);
  const repeats = kind === 'farm' ? 8 : rng.int(2, 5);
  for (let i = 0; i < repeats; i++) terms.push(...keywordTerms);
  for (const synonym of synonyms) terms.push(...synonym.toLowerCase().split(/\s+/));
  const fill = rng.int(20, 60);
  for (let i = 0; i < fill; i++) terms.push(rng.chance(0.15) ? rng.pick(niche.attributes) : rng.pick(niche.terms));
  return { title, description, body: terms.join(' ') };
}
