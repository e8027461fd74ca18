/**
 * A SERP fetched from a provider, in our neutral form (what adapters map their JSON to and
 * what the provider cache stores), and its assembly into the engine's `Serp`: the pixel
 * layout, CTRs, SERP-features impact, keyword difficulty and per-result link metrics are
 * computed here, locally, by the same models as the sandbox's SERPs (serpLayout.ts,
 * clickThroughCurve.ts, keywordDifficulty.ts) over our own link index — providers give the
 * page, never our metrics.
 */
import { keywordDifficulty } from '../search/keywordDifficulty.js';
import { assemblePage, type PageBlock, type PageFrame } from '../search/serpAssembly.js';
import type { Serp, SerpItemMetrics, SerpPackMember } from '../search/serpTypes.js';

/** A member of a feature block (an ad, a place, a story, a question, a related search). */
export interface FetchedMember {
  /** Our member type: ADV, SHOP, PLACE, STORY, VIDEO, IMAGE, QUESTION, QUERY, LINK. */
  type: string;
  url: string | null;
  title: string;
  desc: string | null;
}

/** One block of the page, in page order. */
export type FetchedBlock =
  | { kind: 'organic'; url: string; title: string; desc: string | null; /** YYYY-MM-DD when the provider shows a date. */ date: string | null }
  | {
      kind: 'feature';
      /** Our SERP item type: ADV_TOP, ADV_BOTTOM, FEATURED_SNIPPET, KNO_GRAPH, LOCAL_PACK, TOP_STORIES, ... */
      type: string;
      /** The desktop knowledge panel sits in the right-hand column. */
      column: 'main' | 'side';
      url: string | null;
      title: string | null;
      desc: string | null;
      members: FetchedMember[];
    };

export interface FetchedSerp {
  /** The search-engine page the provider fetched (its check URL), when it says. */
  sourceUrl: string | null;
  /** "About N results", when the provider reports it. */
  totalResults: number | null;
  blocks: FetchedBlock[];
}

/** Our view of a result's URL: link metrics, authority and TopRank from the local link index. */
export interface ResultMetrics {
  /** Registrable domain of a URL (tldts), null for text that is not a URL. */
  domainOf(url: string): string | null;
  /** Link metrics of a URL the index knows; null for one it does not. */
  metricsOf(url: string): SerpItemMetrics | null;
  /** TopRank of the URL's root domain, null when unknown. */
  topRankOf(url: string): number | null;
  /** Page and domain authority for difficulty (an unknown domain gets the engine's low prior). */
  authorityOf(url: string): { upa: number; pda: number };
  /**
   * Fetches what the view needs of a page's URLs before it is assembled, when its figures
   * come from providers (links/serpLinkMetrics.ts: a few batched calls for the whole page);
   * absent for the local link index, which answers synchronously.
   */
  prepare?(urls: readonly string[]): Promise<ResultMetrics>;
}

/** The URLs of a fetched page's results and feature leads, in page order. */
export function fetchedUrls(fetched: FetchedSerp): string[] {
  return [...new Set(fetched.blocks.flatMap((b) => (b.url === null ? [] : [b.url])))];
}

/** The page's frame as for a sandbox SERP, less what the fetched page itself gives. */
export interface AssembleRequest extends Omit<PageFrame, 'difficulty' | 'results' | 'sourceUrl'> {
  /** Where the SERP came from when the provider gives no check URL. */
  fallbackSourceUrl: string;
  /** Keyword ids of query members (related questions and searches) in the lookup's location and language. */
  queryId(text: string): string;
}

/** Builds the engine's Serp from a fetched page. */
export function assembleSerp(fetched: FetchedSerp, req: AssembleRequest, metrics: ResultMetrics): Serp {
  const view = (url: string | null) =>
    url === null ? { domain: null, topRank: null, m: null } : { domain: metrics.domainOf(url), topRank: metrics.topRankOf(url), m: metrics.metricsOf(url) };
  const blocks: PageBlock[] = fetched.blocks.map((b) =>
    b.kind === 'organic'
      ? { kind: 'organic', result: { url: b.url, title: b.title, desc: b.desc, ...view(b.url) } }
      : {
          kind: 'feature',
          type: b.type,
          column: b.column,
          lead: { url: b.url, title: b.title, desc: b.desc, ...view(b.url) },
          members: b.members.map((m) => member(m, req, metrics)),
        },
  );
  // Difficulty from the organic results at positions 1–10 (those of this page that are).
  const topTen = fetched.blocks
    .filter((b) => b.kind === 'organic')
    .slice(0, Math.max(0, 10 - req.firstPosition))
    .map((b) => metrics.authorityOf(b.url));
  return assemblePage(blocks, {
    ...req,
    difficulty: keywordDifficulty(topTen),
    results: fetched.totalResults,
    sourceUrl: fetched.sourceUrl ?? req.fallbackSourceUrl,
  });
}

function member(m: FetchedMember, req: AssembleRequest, metrics: ResultMetrics): SerpPackMember {
  const isQuery = m.type === 'QUESTION' || m.type === 'QUERY';
  return {
    type: m.type,
    url: m.url,
    title: m.title,
    desc: m.desc,
    domain: m.url === null ? null : metrics.domainOf(m.url),
    ...(isQuery ? { mId: req.queryId(m.title) } : {}),
  };
}

/** A JSON value as a non-empty trimmed string, or null. */
export function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

/** An absolute http(s) URL, or null: provider fields sometimes hold relative or tracking links. */
export function httpUrl(value: unknown): string | null {
  const t = text(value);
  if (t === null) return null;
  try {
    const u = new URL(t);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

/** A JSON array, or an empty one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A JSON object's members, or an empty record. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Checks the stored neutral form (the provider cache is trusted, but a damaged row must not reach a handler). */
export function isFetchedSerp(value: unknown): value is FetchedSerp {
  const v = record(value);
  return Array.isArray(v.blocks) && v.blocks.every((b) => typeof record(b).kind === 'string');
}
