/**
 * Content types of ranking pages, and the keyword opportunities (`kwOpps`) of a SERP.
 *
 * Content types: the contract names the field (`contentTypes`, an array of strings) but
 * not its values, so the labels are ours. They follow the "content type" and "content
 * format" the SEO trade reads off a SERP (Ahrefs, "Search Intent in SEO: What It Is & How
 * to Optimize for It": blog posts vs product/category pages; how-tos, list posts, reviews):
 * the type comes from the site's kind, and a blog's format from title words that match
 * the sandbox's keyword modifiers and title templates (world/modifiers.ts, world/pageText.ts).
 *
 * `kwOpps`: the contract's rule (research-api-v3.md, keyword-detail response):
 * `isOutdatedPage` when one of the top five organic results was published more than six
 * months ago; `missingWordsInTitle` the keyword words missing from their titles, read as
 * words missing from any one of the five titles (docs/decisions.md, research engine conventions).
 */
import type { CorpusPage } from './searchCorpus.js';
import { contentTokens, tokenize } from './text.js';

/** The content type of a page from its site's kind and its title's pattern. */
export function contentTypeOf(page: CorpusPage): string {
  if (page.isHomepage) return 'homepage';
  const title = ` ${tokenize(page.title).join(' ')} `;
  switch (page.siteKind) {
    case 'shop':
      return 'product page';
    case 'brand':
      return 'brand page';
    case 'news':
      return 'news article';
    case 'forum':
      return 'forum thread';
    case 'wiki':
      return 'encyclopedia article';
    case 'edu':
      return 'research article';
    case 'gov':
      return 'official guidance';
    case 'directory':
      return 'directory listing';
  }
  if (/ (best|top \d+) /.test(title)) return 'listicle';
  if (/ how to | guide | tips /.test(title)) return 'how-to guide';
  if (/ (review|reviews|vs|comparison) /.test(title)) return 'review';
  return 'blog post';
}

/** Distinct content types of the top results, most frequent first (ties: first seen). */
export function contentTypes(pages: readonly CorpusPage[]): string[] {
  const count = new Map<string, number>();
  for (const p of pages) {
    const t = contentTypeOf(p);
    count.set(t, (count.get(t) ?? 0) + 1);
  }
  return [...count.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t);
}

const OUTDATED_AFTER_MONTHS = 6;

export interface KeywordOpportunities {
  /** One of the top five organic results was published more than six months before the SERP date. */
  isOutdatedPage: boolean;
  /** Keyword words missing from the titles of the top five organic results. */
  missingWordsInTitle: string[];
}

/** `kwOpps` of a SERP from its top five organic pages and its date (YYYY-MM-DD). */
export function keywordOpportunities(keyword: string, topFive: readonly CorpusPage[], date: string): KeywordOpportunities {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - OUTDATED_AFTER_MONTHS);
  const cutoff = d.toISOString().slice(0, 10);
  const isOutdatedPage = topFive.some((p) => p.published < cutoff);
  const missing = new Set<string>();
  for (const p of topFive) {
    const titleWords = new Set(tokenize(p.title));
    for (const w of contentTokens(keyword)) if (!titleWords.has(w)) missing.add(w);
  }
  return { isOutdatedPage, missingWordsInTitle: [...missing] };
}
