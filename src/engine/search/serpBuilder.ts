/**
 * Assembles a result page: organic results from the ranker, SERP features chosen by
 * intent, paid results, the pixel layout, CTRs, keyword difficulty and identities.
 */
import { hashString32, unitNoise } from './deterministicNoise.js';
import { keywordDifficulty } from './keywordDifficulty.js';
import type { OrganicRanker, RankedPage, Retrieval } from './organicRanking.js';
import type { CorpusPage, SearchCorpus } from './searchCorpus.js';
import { intentSignals, type IntentSignals } from './searchIntent.js';
import { chooseFeatures, type FeaturePlacement, type Platform } from './serpFeatures.js';
import { serpSourceUrl } from './serpIdentity.js';
import { assemblePage, type PageBlock } from './serpAssembly.js';
import type { Serp, SerpPackMember, ShortLocation } from './serpTypes.js';
import type { Bm25Index } from './bm25Index.js';
import { tokenize } from './text.js';

export const ORGANIC_PER_PAGE = 100;

/** A query item for SIMILAR_QUESTIONS / SIMILAR_QUERIES. */
export interface QueryRef {
  kw: string;
  id: string;
}

export interface SerpRequest {
  /** Normalised keyword. */
  keyword: string;
  /** The keyword's id for (keyword, location, language): the Serp's `mId`. */
  keywordId: string;
  location: ShortLocation;
  countryCode: string;
  engineDomain: string;
  /** Top-level domain of the engine domain (com, de, co.uk). */
  tld: string;
  languageId: number;
  languageCode: string | null;
  platform: Platform;
  page: number;
  /** YYYY-MM-DD: the day the SERP stands for. */
  date: string;
  /** Unix seconds: `created_at`. */
  createdAt: number;
  cpc: number;
  /** Intent hints stored with the keyword. */
  intentHints?: readonly string[];
  /** The keyword's head term (itself for a head): pages about it are on topic. */
  head?: string;
  /** Extra tokens (the keyword's head and niche) used when few pages match the keyword. */
  fallbackTokens: readonly string[];
  similarQueries: readonly QueryRef[];
  similarQuestions: readonly QueryRef[];
}

export interface BuiltSerp {
  serp: Serp;
  signals: IntentSignals;
  /** Corpus page indexes of this page's organic results, in order. */
  organicPages: number[];
  /** Corpus page indexes of the top 10 organic results of the keyword (page 0). */
  topTen: number[];
}

/**
 * The sandbox web samples the real web; reported result counts scale its matches by
 * this factor so that "About N results" has a realistic magnitude.
 */
const WEB_SCALE = 25_000;

/** Least relevance (0–1, see organicRanking.ts) of a page shown in a pack. */
const PACK_MIN_RELEVANCE = 0.4;
/** Least topical match (organicRanking.ts TOPIC) of a page shown in a pack: about the query's head term. */
const PACK_MIN_TOPIC = 0.8;

export class SerpBuilder {
  /** Root domain id → index of its homepage (or first page). */
  private readonly homepages = new Map<number, number>();

  constructor(
    private readonly corpus: SearchCorpus,
    private readonly index: Bm25Index,
    private readonly ranker: OrganicRanker,
  ) {
    corpus.pages.forEach((p, i) => {
      if (!this.homepages.has(p.rootId) || p.isHomepage) {
        const current = this.homepages.get(p.rootId);
        if (current === undefined || !corpus.pages[current].isHomepage) this.homepages.set(p.rootId, i);
      }
    });
  }

  signalsFor(keyword: string, cpc: number, hints?: readonly string[]): IntentSignals {
    return intentSignals(keyword, { isEntity: (t) => this.corpus.brands.has(t), cpc, hints });
  }

  /** Root domain a keyword names (its first brand token), if any. */
  entityRoot(keyword: string): number | undefined {
    for (const t of tokenize(keyword)) {
      const root = this.corpus.brands.get(t);
      if (root !== undefined) return root;
    }
    return undefined;
  }

  /**
   * Organic ranking only (rank index, related keywords): the best `limit` pages, from the
   * query's remembered retrieval when given (see OrganicRanker.rank).
   */
  organic(
    req: Pick<SerpRequest, 'keyword' | 'languageId' | 'location' | 'tld' | 'platform' | 'date' | 'cpc' | 'fallbackTokens' | 'intentHints' | 'head'>,
    limit: number,
    candidates?: number,
    retrieval?: Retrieval,
  ): RankedPage[] {
    return this.ranker.rank(
      {
        keyword: req.keyword,
        languageId: req.languageId,
        locationId: req.location._id,
        tld: req.tld,
        platform: req.platform,
        date: req.date,
        signals: this.signalsFor(req.keyword, req.cpc, req.intentHints),
        entityRootId: this.entityRoot(req.keyword),
        fallbackTokens: req.fallbackTokens,
        head: req.head,
      },
      limit,
      candidates,
      retrieval,
    );
  }

  build(req: SerpRequest): BuiltSerp {
    const pages = this.corpus.pages;
    const signals = this.signalsFor(req.keyword, req.cpc, req.intentHints);
    const ranked = this.organic(req, ORGANIC_PER_PAGE * (req.page + 1));
    const shown = ranked.slice(req.page * ORGANIC_PER_PAGE, (req.page + 1) * ORGANIC_PER_PAGE);
    const topTen = ranked.slice(0, 10).map((r) => r.page);
    const entityRoot = this.entityRoot(req.keyword);
    const seed = hashString32(`${req.keyword}|${req.location._id}|${req.platform}|${req.date}|packs`);

    // Packs (ads, shopping, places, videos, ...) show pages that answer the query well and
    // are about it (its head term), not about a neighbouring topic.
    const relevant = ranked.filter((r) => r.relevance >= PACK_MIN_RELEVANCE && r.topic >= PACK_MIN_TOPIC);
    // A map pack lists places that sell or offer the head term ("hiking boots near me": shops
    // with hiking boots), whose pages need not say "near me".
    const onTopic = ranked.filter((r) => r.topic >= PACK_MIN_TOPIC);
    // Advertisers shown at the top are not shown again at the bottom (one ad per advertiser and page).
    const advertisers = new Set<string>();
    const bySiteKind = (kinds: readonly string[], n: number, salt: number, exclude?: ReadonlySet<string>, from = relevant): CorpusPage[] => {
      const out: CorpusPage[] = [];
      const domains = new Set<string>();
      for (const r of from) {
        const p = pages[r.page];
        if (!kinds.includes(p.siteKind) || domains.has(p.domain) || exclude?.has(p.domain)) continue;
        domains.add(p.domain);
        out.push(p);
      }
      // Rotate by a daily draw: ads and packs vary from day to day like auctions and feeds.
      const shift = out.length > n ? Math.floor(unitNoise(seed, salt) * Math.min(3, out.length - n + 1)) : 0;
      return out.slice(shift, shift + n);
    };
    const newest = (kinds: readonly string[], n: number): CorpusPage[] =>
      relevant
        .map((r) => pages[r.page])
        .filter((p) => kinds.includes(p.siteKind))
        .sort((a, b) => (a.published < b.published ? 1 : a.published > b.published ? -1 : a.id - b.id))
        .slice(0, n);

    const memberSources: Record<string, (n: number) => SerpPackMember[]> = {
      ADV_TOP: (n) => bySiteKind(['shop', 'brand'], n, 1).map((p) => pageMember('ADV', p)),
      ADV_BOTTOM: (n) => bySiteKind(['shop', 'brand', 'directory'], n, 2, advertisers).map((p) => pageMember('ADV', p)),
      SHOP_RESULTS: (n) => bySiteKind(['shop', 'brand'], n, 3).map((p) => pageMember('SHOP', p)),
      LOCAL_PACK: (n) => bySiteKind(['directory', 'shop'], n, 4, undefined, onTopic).map((p) => pageMember('PLACE', p)),
      TOP_STORIES: (n) => newest(['news'], n).map((p) => pageMember('STORY', p)),
      VIDEO_PACK: (n) => bySiteKind(['blog', 'brand', 'edu', 'forum'], n, 5).map((p) => pageMember('VIDEO', p)),
      IMG_PACK: (n) => bySiteKind(['shop', 'blog', 'brand', 'wiki'], n, 6).map((p) => pageMember('IMAGE', p)),
      SIMILAR_QUESTIONS: (n) => req.similarQuestions.slice(0, n).map((q) => queryMember('QUESTION', q)),
      SIMILAR_QUERIES: (n) => req.similarQueries.slice(0, n).map((q) => queryMember('QUERY', q)),
      KNO_GRAPH: (n) =>
        entityRoot === undefined
          ? []
          : ranked
              .map((r) => pages[r.page])
              .filter((p) => p.rootId === entityRoot && !p.isHomepage)
              .slice(0, n)
              .map((p) => pageMember('LINK', p)),
      FEATURED_SNIPPET: () => [],
    };
    const available = (type: string): boolean => {
      if (type === 'FEATURED_SNIPPET') return shown.length > 0;
      if (type === 'KNO_GRAPH') return entityRoot !== undefined;
      return (memberSources[type]?.(1).length ?? 0) > 0;
    };
    const features = req.page === 0 ? chooseFeatures(req.keyword, signals, req.platform, available) : [];

    // Page order: features sit before the organic result at their slot.
    type Slot = { kind: 'organic'; ranked: RankedPage } | { kind: 'feature'; feature: FeaturePlacement; members: SerpPackMember[] };
    const slots: Slot[] = [];
    let f = 0;
    const pushFeaturesUpTo = (organicBefore: number) => {
      while (f < features.length && features[f].afterOrganic <= organicBefore) {
        const feature = features[f++];
        const members = memberSources[feature.type]?.(feature.members) ?? [];
        if (feature.members > 0 && members.length === 0) continue;
        if (feature.type === 'ADV_TOP') for (const m of members) if (m.domain) advertisers.add(m.domain);
        slots.push({ kind: 'feature', feature: { ...feature, members: members.length }, members });
      }
    };
    shown.forEach((r, i) => {
      pushFeaturesUpTo(i);
      slots.push({ kind: 'organic', ranked: r });
    });
    pushFeaturesUpTo(Number.MAX_SAFE_INTEGER);

    const view = (p: CorpusPage) => ({
      url: p.url,
      title: p.title,
      desc: p.description,
      domain: p.domain,
      topRank: p.topRank || null,
      m: {
        linkindex: {
          v: { CitationFlow: p.citationFlow, TrustFlow: p.trustFlow, RefDomains: p.refDomains, ExtBackLinks: p.extBackLinks },
          ts: this.corpus.metricsTs,
        },
        authority: { v: { pda: p.pda, upa: p.upa }, ts: this.corpus.metricsTs },
        social: { v: { l: p.shares }, ts: this.corpus.metricsTs },
      },
    });
    const blocks: PageBlock[] = slots.map((s) => {
      if (s.kind === 'organic') return { kind: 'organic', result: view(pages[s.ranked.page]) };
      const lead = s.feature.type === 'FEATURED_SNIPPET' ? pages[shown[0].page] : s.feature.type === 'KNO_GRAPH' ? this.homepageOf(entityRoot!) : undefined;
      return { kind: 'feature', type: s.feature.type, column: s.feature.column, lead: lead ? view(lead) : null, members: s.members };
    });
    const serp = assemblePage(blocks, {
      ...req,
      firstPosition: req.page * ORGANIC_PER_PAGE,
      difficulty: keywordDifficulty(topTen.map((p) => pages[p])),
      results: this.estimatedResults(req.keyword, ranked.length),
      sourceUrl: serpSourceUrl(req.keyword, req.engineDomain, req.countryCode, req.languageCode, req.page, req.platform),
    });
    return { serp, signals, organicPages: shown.map((r) => r.page), topTen };
  }

  private homepageOf(rootId: number): CorpusPage | undefined {
    const page = this.homepages.get(rootId);
    return page === undefined ? undefined : this.corpus.pages[page];
  }

  /** "About N results": pages matching any keyword word, scaled to web size, with a stable wobble. */
  private estimatedResults(keyword: string, ranked: number): number {
    let matches = 0;
    for (const t of tokenize(keyword)) matches = Math.max(matches, this.index.documentFrequency(t));
    matches = Math.max(matches, ranked);
    const wobble = 0.8 + 0.4 * unitNoise(hashString32(keyword), 7);
    return Math.round(matches * WEB_SCALE * wobble);
  }
}

function pageMember(type: string, p: CorpusPage): SerpPackMember {
  return { type, url: p.url, title: p.title, desc: p.description, domain: p.domain };
}

function queryMember(type: string, q: QueryRef): SerpPackMember {
  return { type, url: null, title: q.kw, desc: null, domain: null, mId: q.id };
}
