/**
 * Related keywords and competitor keywords in real mode (a keyword provider configured):
 * answered from the provider alone, never from the sandbox's catalogue (issue 24).
 *
 * - Related keywords: the seed, then the provider's keyword ideas for it (Google Ads'
 *   keyword planner through DataForSEO), in the provider's order, each with its figures as
 *   the provider gave them (stored in the catalogue by the keyword fill); `source` names the
 *   provider. A seed's ideas are asked once a day per market and language.
 * - Competitor keywords: the keywords a domain, subdomain or URL ranks for, from the
 *   provider's ranking database (DataForSEO Labs ranked_keywords), best positions kept, each
 *   with the provider's figures; asked once a day per target and market.
 *
 * Difficulty is not the provider's: every item passes through the day's one difficulty
 * (difficultyBook.ts), as everywhere else.
 */
import type { Clock } from '../../lib/clock.js';
import type { KeywordItem } from '../search/keywordMetrics.js';
import { classifyTarget, type CompetitorKeywords, type RankingKeyword, type SearchEngine } from '../search/searchEngine.js';
import { normaliseKeyword } from '../search/text.js';
import type { KeywordFill } from './keywordFill.js';
import type { KeywordData, KeywordSource, RankedKeyword } from './types.js';

/** Most ideas of a seed asked of the provider (Google Ads gives up to a few thousand). */
export const MAX_IDEAS = 1_000;
/** Most answers remembered per day (then the oldest are asked again). */
const MAX_REMEMBERED = 20_000;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface ProviderKeywordsOptions {
  provider: KeywordSource;
  fill: KeywordFill;
  search: SearchEngine;
  clock: Clock;
}

export class ProviderKeywords {
  private day = '';
  private readonly ideas = new Map<string, Promise<KeywordData[]>>();
  private readonly rankings = new Map<string, Promise<{ total: number; keywords: RankedKeyword[] }>>();

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
    const { search, fill } = this.options;
    const seed = normaliseKeyword(seedText);
    await fill.fill([seed], locationId, languageId);
    const ideas = (
      await this.remembered(this.ideas, `${seed}\u0000${locationId}\u0000${languageId}`, () => this.buyIdeas(seed, locationId, languageId))
    ).filter((k) => k.kw !== seed);
    const keywords = limit > 0 ? [search.keywordItem(seed, locationId, languageId)] : [];
    for (const idea of ideas) {
      if (keywords.length >= limit) break;
      keywords.push(search.keywordItem(idea.kw, locationId, languageId));
    }
    return { keywords, countKeywordsBeforeLimit: ideas.length + 1 };
  }

  /** The keywords a target ranks for: its best `limit` rankings, with the provider's figures. */
  async competitorKeywords(url: string, locationId: number, limit: number): Promise<CompetitorKeywords> {
    const { search, fill, provider } = this.options;
    const target = classifyTarget(url);
    const asked = target.type === 'url' ? url.trim() : target.host;
    const found = await this.remembered(this.rankings, `${asked}\u0000${locationId}\u0000${limit}`, async () => {
      // A provider without a ranking database knows no site's keywords (the sandbox's are not real).
      if (!provider.rankedKeywords) return { total: 0, keywords: [] };
      const ranked = await provider.rankedKeywords(asked, locationId, 0, limit);
      // Their figures go to the catalogue, as a keyword import's do (a keyword the provider has none for stays unknown).
      await fill.store(
        ranked.keywords.map((k) => k.data).filter((d): d is KeywordData => d !== null),
        locationId,
        0,
      );
      return ranked;
    });
    const keywords: RankingKeyword[] = found.keywords
      .slice(0, limit)
      .map((k) => ({ ...search.keywordItem(k.kw, locationId, 0), position: k.position, url: k.url }))
      .sort((a, b) => b.position - a.position || a.kw.localeCompare(b.kw));
    return { url_type: target.type, location: search.shortLocation(locationId), keywords, totalCount: found.total };
  }

  private async buyIdeas(seed: string, locationId: number, languageId: number): Promise<KeywordData[]> {
    const ideas = await this.options.provider.ideas(seed, locationId, languageId, MAX_IDEAS);
    await this.options.fill.store(ideas, locationId, languageId);
    return ideas;
  }

  /** One provider call per key and day in this process; concurrent askers share it, a failure is not kept. */
  private remembered<T>(cache: Map<string, Promise<T>>, key: string, buy: () => Promise<T>): Promise<T> {
    const today = dayOf(this.options.clock.now());
    if (today !== this.day) {
      this.ideas.clear();
      this.rankings.clear();
      this.day = today;
    }
    const held = cache.get(key);
    if (held) return held;
    if (cache.size >= MAX_REMEMBERED) cache.clear();
    const bought = buy();
    cache.set(key, bought);
    bought.catch(() => cache.delete(key));
    return bought;
  }
}
