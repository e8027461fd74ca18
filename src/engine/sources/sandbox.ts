/**
 * The sandbox web as a source of each kind: SERPs ranked over the generated corpus (any
 * date, since the ranking is a function of the date), keyword metrics and ideas from the
 * keyword catalogue, and links from the generated link index. The default of every
 * capability; a provider is chosen per capability in the configuration.
 */
import type { Clock } from '../../lib/clock.js';
import type { LinksService } from '../links/linksService.js';
import type { DifficultyBook } from './difficultyBook.js';
import type { KeywordItem } from '../search/keywordMetrics.js';
import type { SearchEngine } from '../search/searchEngine.js';
import { normaliseKeyword } from '../search/text.js';
import type { KeywordData, KeywordSource, LinkSource, SerpQuery, SerpSource, SourceLink } from './types.js';

export class SandboxSerpSource implements SerpSource {
  readonly name = 'sandbox' as const;
  readonly pastDays = true;

  constructor(
    private readonly search: SearchEngine,
    private readonly difficulty: DifficultyBook,
    private readonly clock: Clock,
  ) {}

  /** The SERP with its keyword's difficulty of the day (the first computed, whoever computed it). */
  serp(query: SerpQuery) {
    return this.difficulty.settleSerp(this.search.serp(query), this.dayOf(query), { accept: true });
  }

  async keywordDetail(query: SerpQuery) {
    const detail = this.search.keywordDetail(query);
    return { ...detail, serp: await this.difficulty.settleSerp(detail.serp, this.dayOf(query), { accept: true }) };
  }

  private dayOf(query: SerpQuery): string {
    return query.date ?? new Date(this.clock.now()).toISOString().slice(0, 10);
  }
}

export class SandboxKeywordSource implements KeywordSource {
  readonly name = 'sandbox' as const;

  constructor(private readonly search: SearchEngine) {}

  /** Keywords the sandbox holds (the catalogue, imports included); metrics it derives for other text are left out. */
  keywordData(keywords: readonly string[], locationId: number, languageId: number): Promise<KeywordData[]> {
    const out: KeywordData[] = [];
    const seen = new Set<string>();
    for (const text of keywords) {
      const kw = normaliseKeyword(text);
      if (kw === '' || seen.has(kw) || !this.holds(kw, locationId, languageId)) continue;
      seen.add(kw);
      const data = dataOf(this.search.keywordItem(kw, locationId, languageId));
      if (data) out.push(data);
    }
    return Promise.resolve(out);
  }

  async ideas(seed: string, locationId: number, languageId: number, limit: number): Promise<KeywordData[]> {
    const { keywords } = await this.search.relatedKeywords(seed, locationId, languageId, limit + 1);
    const kw = normaliseKeyword(seed);
    return keywords
      .filter((k) => k.kw !== kw)
      .slice(0, limit)
      .map(dataOf)
      .filter((k): k is KeywordData => k !== null);
  }

  /** Whether the catalogue holds a keyword in the lookup's language, with figures for its location. */
  holds(kw: string, locationId: number, languageId: number): boolean {
    return this.search.holdsKeyword(kw, locationId, languageId);
  }
}

/** A keyword item as KeywordData; null for one without figures. */
function dataOf(item: KeywordItem): KeywordData | null {
  if (item.sv === null) return null;
  return {
    kw: item.kw,
    volume: item.sv,
    cpc: item.cpc,
    competition: item.ppc,
    history: item.msv.map(([year, month, searches]) => ({ year, month, searches })),
  };
}

export class SandboxLinkSource implements LinkSource {
  readonly name = 'sandbox' as const;

  constructor(private readonly index: LinksService) {}

  links(target: string, page: { offset: number; limit: number }): Promise<SourceLink[]> {
    const resolved = this.index.resolve(target);
    if (!resolved) return Promise.resolve([]);
    const found = this.index.backlinksOf(resolved, {}, page).links;
    return Promise.resolve(
      found.map((l) => ({
        sourceUrl: l.source,
        targetUrl: l.target,
        anchor: l.anchor,
        nofollow: l.no_follow,
        firstSeen: l.first_seen,
        lastSeen: l.last_seen,
        lostOn: l.deleted ? l.last_seen : null,
      })),
    );
  }
}
