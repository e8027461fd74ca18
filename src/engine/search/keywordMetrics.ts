/**
 * Keyword items (DESIGN.md §5): search volume for a location, monthly history, CPC and
 * PPC competition, for sandbox keywords and for any other text.
 *
 * Per-country volume = global volume × the keyword's market share in that country
 * (location 0 = global; a city, region or state counts as its country, as the keyword
 * planner reports country-level markets for the sandbox). In the sandbox, a text the world
 * does not know but that shares a word with its keywords gets plausible, deterministic metrics: its
 * niche comes from its tokens, its volume from the closest known keyword damped by each
 * extra word (long-tail keywords draw a fraction of their head's searches — Anderson, "The
 * Long Tail", 2006; keyword volume distributions are heavy-tailed), with a stable wobble
 * hashed from the text. Any other text has no data: null figures and no months (issue 24),
 * as has every unknown text when the keywords are real (no sandbox, or a keyword provider),
 * where a number derived from a neighbour would be an invented one mixed with real ones.
 *
 * CPC: a sandbox keyword's price in a market is its US-level price times the market's price
 * level (keywordPrices.ts); a provider's or an import's is as given.
 *
 * A provider's or an import's keyword answers the volume it was given (`volume`, Google Ads'
 * `search_volume`), not the mean of its months: real volumes are bucketed, so they differ.
 */
import { keywordHistory, lastCompleteMonth, type HistoryParams, type MonthlySearches } from '../world/keywordHistory.js';
import { MARKETS, type WorldLanguage } from '../world/markets.js';
import { marketCpc, priceLevel } from '../world/keywordPrices.js';
import { languageById } from '../../locations/languages.js';
import { hashString32, unitNoise } from './deterministicNoise.js';
import type { KeywordCatalog } from './keywordCatalog.js';
import { keywordId } from './keywordIds.js';
import type { CorpusKeyword, SearchCorpus } from './searchCorpus.js';
import { contentTokens, normaliseKeyword } from './text.js';

export interface KeywordItem {
  _id: string;
  kw: string;
  lid: number;
  /** Average monthly searches of the last 12 months; null when nobody has data on the keyword. */
  sv: number | null;
  /** Searches of the last complete month ("now"); null without data. */
  svn: number | null;
  /** Year-over-year change of the last 12 months' searches, percent (trend). */
  svs: number;
  msv: MonthlySearches[];
  cpc: number | null;
  ppc: number | null;
  seo: number | null;
  seo_ts: number | null;
  /** Unix seconds: the start of the month the metrics are as of. */
  ts: number;
}

/** Share of a keyword's global volume in a country that is not one of its markets. */
const RESIDUAL_SHARE = 0.002;

export class KeywordMetrics {
  private readonly globalHistory = new Map<string, MonthlySearches[]>();
  private historyMonth = '';

  constructor(
    private readonly corpus: SearchCorpus,
    private readonly catalog: KeywordCatalog,
    /** Maps a location to the country whose market it belongs to (0 stays 0). */
    private readonly marketOf: (locationId: number) => number,
    /** Whether unknown text in the sandbox's vocabulary gets derived metrics (a sandbox world with no keyword provider). */
    private readonly deriveUnknown: () => boolean,
  ) {}

  /**
   * The keyword record behind a text: the catalogue's keyword, or a derived one for a
   * text the world does not know (id −1).
   */
  keywordFor(text: string, languageId: number): CorpusKeyword {
    const kw = normaliseKeyword(text);
    const known = this.catalog.find(kw, languageId);
    if (known !== undefined) return this.catalog.at(known);
    const lang = languageId === 0 ? 1000 : languageId;
    const seed = hashString32(`${kw}|${lang}`);
    if (!this.deriveUnknown() || !this.inVocabulary(kw)) return unknownKeyword(kw, lang, seed);
    const closest = this.catalog.closest(kw, lang);
    const ref = closest === undefined ? undefined : this.catalog.at(closest);
    const extraWords = Math.max(0, contentTokens(kw).length - (ref ? contentTokens(ref.kw).length : 0));
    const wobble = 0.5 + unitNoise(seed, 1);
    const volume = ref
      ? Math.max(10, Math.round((ref.volume * wobble) / 8 ** Math.max(1, extraWords)))
      : Math.round((10 * 10 ** (2 * unitNoise(seed, 2))) / Math.max(1, contentTokens(kw).length - 1));
    return {
      id: -1,
      kw,
      languageId: lang,
      nicheId: ref?.nicheId ?? this.catalog.nicheOf(kw, lang),
      head: ref?.head ?? kw,
      kind: 'derived',
      intentHints: [],
      volume,
      trend: ref ? ref.trend : 0.95 + 0.15 * unitNoise(seed, 3),
      noiseSeed: seed,
      cpc: ref ? Math.round(ref.cpc * (0.6 + 0.8 * unitNoise(seed, 4)) * 100) / 100 : Math.round(unitNoise(seed, 5) * 150) / 100,
      ppc: ref ? Math.min(100, Math.round(ref.ppc * (0.7 + 0.6 * unitNoise(seed, 6)))) : Math.round(unitNoise(seed, 7) * 60),
      origin: 'derived',
    };
  }

  /**
   * Whether a text is in the sandbox's vocabulary: some word of it is a word of the
   * catalogue's keywords, so a known keyword stands close enough to derive figures from
   * ("waterproof hiking boots for toddlers" from "hiking boots"; "asdfqwer" from nothing).
   */
  private inVocabulary(kw: string): boolean {
    return contentTokens(kw).some((t) => this.catalog.withToken(t).length > 0);
  }

  /** Share (0–1) of the keyword's global volume in a location's market; 1 for global. */
  share(keyword: CorpusKeyword, locationId: number): number {
    const market = this.marketOf(locationId);
    if (market === 0) return 1;
    const stored = keyword.id >= 0 ? this.corpus.marketShare(keyword.id, market) : undefined;
    if (stored !== undefined) return stored;
    // A derived keyword, or one imported for the whole world, has no stored markets: it
    // takes the typical shares of its language's markets.
    if (keyword.id < 0 || !this.corpus.hasMarkets(keyword.id)) {
      const language = worldLanguage(keyword.languageId);
      const markets = language ? MARKETS[language] : [];
      const typical = markets.find((m) => m.locationId === market)?.share;
      if (typical !== undefined) return typical * (0.85 + 0.3 * unitNoise(keyword.noiseSeed, market));
    }
    return RESIDUAL_SHARE * (0.5 + unitNoise(keyword.noiseSeed, market));
  }

  /** Monthly searches in a location, oldest first from 2015-01 to the last complete month. */
  history(keyword: CorpusKeyword, locationId: number, nowMs: number): MonthlySearches[] {
    const market = this.marketOf(locationId);
    if (keyword.id >= 0) {
      // Stored (imported) months for the location win over the derived history.
      const stored = this.corpus.storedHistory(keyword.id, market);
      if (stored.length > 0) return stored;
    }
    const global = this.globalFor(keyword, nowMs);
    if (market === 0) return global;
    const share = this.share(keyword, market);
    return global.map(([y, m, s]) => [y, m, Math.round(s * share)]);
  }

  private historyParams(keyword: CorpusKeyword): HistoryParams {
    const niche = keyword.nicheId === null ? undefined : this.corpus.niches.find((n) => n.id === keyword.nicheId);
    return {
      volume: keyword.volume,
      trend: keyword.trend,
      seasonPeak: niche?.seasonPeak ?? 1 + (keyword.noiseSeed % 12),
      seasonAmplitude: niche?.seasonAmplitude ?? 0.1,
      noiseSeed: keyword.noiseSeed,
    };
  }

  private globalFor(keyword: CorpusKeyword, nowMs: number): MonthlySearches[] {
    const end = lastCompleteMonth(nowMs);
    const month = `${end.year}-${end.month}`;
    if (month !== this.historyMonth) {
      this.globalHistory.clear();
      this.historyMonth = month;
    }
    const key = `${keyword.kw}|${keyword.languageId}`;
    let h = this.globalHistory.get(key);
    if (!h) {
      h = keywordHistory(this.historyParams(keyword), nowMs);
      // Histories of ~130 months are cheap to keep; bound the cache all the same.
      if (this.globalHistory.size > 200_000) this.globalHistory.clear();
      this.globalHistory.set(key, h);
    }
    return h;
  }

  /**
   * A keyword's `sv` (average of the last 12 months, as `item` gives it) and cpc in a location,
   * without building the whole history of the location: for statistics over many keywords.
   */
  volume(keyword: CorpusKeyword, locationId: number, nowMs: number): { sv: number; cpc: number } {
    const market = this.marketOf(locationId);
    const given = this.givenVolume(keyword, market);
    const cpc = Math.max(0, this.cpcIn(keyword, market));
    if (given !== null) return { sv: given, cpc };
    const stored = keyword.id >= 0 ? this.corpus.storedHistory(keyword.id, market) : [];
    let last: number[];
    if (stored.length > 0) last = stored.slice(-12).map(([, , n]) => n);
    else {
      // The last 12 months alone (a full history costs ~10 times as much): the same values.
      const global = keywordHistory(this.historyParams(keyword), nowMs, 12);
      const share = market === 0 ? 1 : this.share(keyword, market);
      last = global.map(([, , n]) => (market === 0 ? n : Math.round(n * share)));
    }
    const sum = last.reduce((a, n) => a + n, 0);
    return { sv: last.length ? Math.round(sum / last.length) : 0, cpc };
  }

  /**
   * A keyword's CPC in a market (0: worldwide): a sandbox keyword's stored price is at the US
   * level, and each market has its own (keywordPrices.ts); a provider's or an import's CPC is
   * as given.
   */
  private cpcIn(keyword: CorpusKeyword, market: number): number {
    if (keyword.origin !== 'sandbox' && keyword.origin !== 'derived') return keyword.cpc;
    return marketCpc(keyword.cpc, priceLevel(market, worldLanguage(keyword.languageId)));
  }

  /**
   * The volume a provider or an import gave for a keyword in a market: its volume where it
   * was looked up (share 1), scaled by the stored share in another market it was looked up
   * in (`storeKeywordData` keeps the ratio); null for the sandbox's keywords, whose volume is
   * the mean of their generated months, and where nothing was given for the market.
   */
  private givenVolume(keyword: CorpusKeyword, market: number): number | null {
    if (keyword.id < 0 || keyword.origin === 'sandbox') return null;
    if (market === 0) return this.corpus.hasMarkets(keyword.id) ? null : keyword.volume;
    const share = this.corpus.marketShare(keyword.id, market);
    return share === undefined ? null : Math.round(keyword.volume * share);
  }

  /**
   * Whether there are figures for a keyword in a location: always in the sandbox and for
   * imports (the planner import's semantics); a provider's keyword only in the markets the
   * provider was asked about (elsewhere it is asked again, or has no data).
   */
  hasDataIn(keyword: CorpusKeyword, locationId: number): boolean {
    if (keyword.kind === UNKNOWN_KIND) return false;
    if (keyword.id < 0 || !keyword.origin.startsWith(PROVIDER_ORIGIN)) return true;
    const market = this.marketOf(locationId);
    return market === 0 ? !this.corpus.hasMarkets(keyword.id) : this.corpus.marketShare(keyword.id, market) !== undefined;
  }

  /** The keyword item of a keyword in a location, with the id for (text, location, language). */
  item(keyword: CorpusKeyword, locationId: number, languageId: number, nowMs: number, difficulty?: { seo: number; ts: number }): KeywordItem {
    const end = lastCompleteMonth(nowMs);
    const base = {
      _id: keywordId(keyword.kw, locationId, languageId),
      kw: keyword.kw,
      lid: locationId,
      seo: difficulty?.seo ?? null,
      seo_ts: difficulty?.ts ?? null,
      // The month after the last complete one is the month the data is as of.
      ts: Date.UTC(end.year, end.month, 1) / 1000,
    };
    if (!this.hasDataIn(keyword, locationId)) return { ...base, sv: null, svn: null, svs: 0, msv: [], cpc: null, ppc: null };
    const msv = this.history(keyword, locationId, nowMs);
    const last = msv.slice(-12);
    const before = msv.slice(-24, -12);
    const sum = (xs: MonthlySearches[]) => xs.reduce((s, [, , n]) => s + n, 0);
    const prev = sum(before);
    return {
      ...base,
      sv: this.givenVolume(keyword, this.marketOf(locationId)) ?? (last.length ? Math.round(sum(last) / last.length) : 0),
      svn: msv.length ? msv[msv.length - 1][2] : 0,
      svs: prev > 0 ? Math.round((100 * (sum(last) - prev)) / prev) : 0,
      msv,
      cpc: keyword.cpc === UNKNOWN_FIGURE ? null : this.cpcIn(keyword, this.marketOf(locationId)),
      ppc: keyword.ppc === UNKNOWN_FIGURE ? null : keyword.ppc,
    };
  }
}

/** The sandbox's language of a language id (English, German or French), undefined for any other. */
function worldLanguage(languageId: number): WorldLanguage | undefined {
  const code = languageById(languageId)?.code;
  return code === 'en' || code === 'de' || code === 'fr' ? code : undefined;
}

/** Origin of keywords a provider filled in (`provider:dataforseo`): answers name their source from it. */
export const PROVIDER_ORIGIN = 'provider:';

/**
 * A CPC or competition a provider sent as null (Google Ads has no bids for the keyword),
 * stored as such: the research store's columns are NOT NULL, and no real figure is negative.
 */
export const UNKNOWN_FIGURE = -1;

/** `kind` of a text nobody has data on: its item's figures are null. */
export const UNKNOWN_KIND = 'unknown';

function unknownKeyword(kw: string, languageId: number, noiseSeed: number): CorpusKeyword {
  return {
    id: -1,
    kw,
    languageId,
    nicheId: null,
    head: kw,
    kind: UNKNOWN_KIND,
    intentHints: [],
    volume: 0,
    trend: 1,
    noiseSeed,
    cpc: 0,
    ppc: 0,
    origin: 'derived',
  };
}
