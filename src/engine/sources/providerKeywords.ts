/**
 * Related keywords and competitor keywords in real mode (a keyword provider configured):
 * answered from the provider alone, never from the sandbox's catalogue (issue 24).
 *
 * - Related keywords: the seed, then the provider's keyword ideas for it (Google Ads'
 *   keyword planner through DataForSEO), in the provider's order, each with its figures as
 *   the provider gave them (stored in the catalogue by the keyword fill); `source` names the
 *   provider.
 * - Competitor keywords: the keywords a domain, subdomain or URL ranks for, from the
 *   provider's ranking database (DataForSEO Labs ranked_keywords), best positions kept, each
 *   with the provider's figures.
 *
 * Both answers are bought once for everyone (providerAnswers.ts: the state store, with a
 * freshness per kind), whichever account and process asks; each process puts their figures in
 * its own catalogue (a research store is a per-process copy in the scale mode).
 *
 * Difficulty is not the provider's: every item passes through the day's one difficulty
 * (difficultyBook.ts), as everywhere else.
 */
import type { KeywordItem } from '../search/keywordMetrics.js';
import type { CompetitorKeywords, RankingKeyword, SuggestedKeyword } from '../search/competitorAnalysis.js';
import type { SearchEngine } from '../search/searchEngine.js';
import { classifyTarget } from '../search/searchTargets.js';
import type { CompetitorsOf } from './links/linkData.js';
import { normaliseKeyword } from '../search/text.js';
import type { KeywordFill } from './keywordFill.js';
import type { ProviderAnswers } from './providerAnswers.js';
import type { KeywordData, KeywordSource } from './types.js';

/** Most ideas of a seed asked of the provider (Google Ads gives up to a few thousand). */
export const MAX_IDEAS = 1_000;

export interface ProviderKeywordsOptions {
  provider: KeywordSource;
  fill: KeywordFill;
  search: SearchEngine;
  answers: ProviderAnswers;
  /** DataForSEO Labs' organic competitors (links/linkData.ts); null without them. */
  competitors: CompetitorsOf | null;
}

/** The market a Labs request asks for: location 0 (all) is Labs' default, the United States. */
const LABS_DEFAULT_LOCATION = 2840;

export class ProviderKeywords {
  constructor(private readonly options: ProviderKeywordsOptions) {}

  get name(): string {
    return this.options.provider.name;
  }

  /** The seed and the provider's ideas for it, at most `limit` rows in all. */
  async related(
    seedText: string,
    locationId: number,
    languageId: number,
    limit: number,
  ): Promise<{ keywords: KeywordItem[]; countKeywordsBeforeLimit: number }> {
    const { search, fill, provider } = this.options;
    const seed = normaliseKeyword(seedText);
    await fill.fill([seed], locationId, languageId);
    // Keys are stored as PostgreSQL text, which cannot hold NUL: `|` separates their parts.
    const ideas =
      (await this.bought('keyword-ideas', `${seed}|${locationId}|${languageId}`, () => provider.ideas(seed, locationId, languageId, MAX_IDEAS))) ?? [];
    // Bought here or by another process: this process's catalogue gets their figures.
    await fill.store(ideas, locationId, languageId);
    const others = ideas.filter((k) => k.kw !== seed);
    const keywords = limit > 0 ? [search.keywordItem(seed, locationId, languageId)] : [];
    for (const idea of others) {
      if (keywords.length >= limit) break;
      keywords.push(search.keywordItem(idea.kw, locationId, languageId));
    }
    return { keywords, countKeywordsBeforeLimit: others.length + 1 };
  }

  /** The keywords a target ranks for: its best `limit` rankings, with the provider's figures. */
  async competitorKeywords(url: string, locationId: number, limit: number): Promise<CompetitorKeywords> {
    const { search, fill, provider } = this.options;
    const target = classifyTarget(url);
    const asked = target.type === 'url' ? url.trim() : target.host;
    // A provider without a ranking database knows no site's keywords (the sandbox's are not real).
    const ranking = provider.rankedKeywords?.bind(provider);
    const found = ranking ? await this.bought('ranked-keywords', `${asked}|${locationId}|${limit}`, () => ranking(asked, locationId, 0, limit)) : null;
    if (!found) return { url_type: target.type, location: search.shortLocation(locationId), keywords: [], totalCount: 0 };
    // Their figures go to the catalogue, as a keyword import's do (a keyword the provider has none for stays unknown).
    await fill.store(
      found.keywords.map((k) => k.data).filter((d): d is KeywordData => d !== null),
      locationId,
      0,
    );
    const keywords: RankingKeyword[] = found.keywords
      .slice(0, limit)
      .map((k) => ({ ...search.keywordItem(k.kw, locationId, 0), position: k.position, url: k.url }))
      .sort((a, b) => b.position - a.position || a.kw.localeCompare(b.kw));
    return { url_type: target.type, location: search.shortLocation(locationId), keywords, totalCount: found.total };
  }

  /**
   * Competitor domains of a target: the organic competitors of its root domain in the market
   * (DataForSEO Labs `competitors_domain`), most shared keywords first; empty when no
   * provider configured gives them — never the sandbox's.
   */
  async competitorDomains(url: string, locationId: number, limit: number): Promise<string[]> {
    const { competitors, search } = this.options;
    const domain = classifyTarget(url).domain;
    if (!competitors || domain === null) return [];
    const market = locationId || LABS_DEFAULT_LOCATION;
    const rows = await competitors(domain, market, search.languageFor(market, 0).code ?? 'en', limit);
    return rows.map((r) => r.domain);
  }

  /**
   * Keywords to track for a target: its ranking keywords from the provider (the answer
   * competitor keywords buy), best position first, then by volume; one without a volume is
   * left out (the reference's `sv` is an integer), as in the sandbox.
   */
  async suggestedKeywords(url: string, locationId: number, limit: number): Promise<SuggestedKeyword[]> {
    const ranking = (await this.competitorKeywords(url, locationId, limit)).keywords;
    const known = ranking.filter((k): k is RankingKeyword & { sv: number } => k.sv !== null);
    known.sort((a, b) => a.position - b.position || b.sv - a.sv);
    return known.map((k) => ({ _id: k._id, position: k.position, kw: k.kw, sv: k.sv, lid: k.lid }));
  }

  /** The provider's answer for a key: the stored one while fresh, else bought once for every asker. */
  private async bought<T>(kind: 'keyword-ideas' | 'ranked-keywords', key: string, buy: () => Promise<T>): Promise<T | null> {
    const found = await this.options.answers.get<T>(this.options.provider.name, kind, [key], 1, async () => [await buy()]);
    return found.get(key) ?? null;
  }
}
