/**
 * The last step of every result page, the sandbox's (serpBuilder.ts) and a provider's
 * (sources/fetchedSerp.ts) alike: given its blocks in page order, the pixel layout, each
 * organic result's position and CTR (lowered by the features above it), the items listed
 * top to bottom and the page's identities. One code path, so that a fetched SERP and a
 * sandbox SERP are measured by the same models.
 */
import { clickThroughRate } from './clickThroughCurve.js';
import type { Platform } from './serpFeatures.js';
import { serpId, serpSnapshotId } from './serpIdentity.js';
import { layoutSerp, serpFeaturesImpact, type LayoutBlock } from './serpLayout.js';
import type { Serp, SerpItem, SerpItemMetrics, SerpPackMember, ShortLocation } from './serpTypes.js';

/** What a result shows of a page, with our metrics of it. */
export interface ResultView {
  url: string | null;
  title: string | null;
  desc: string | null;
  domain: string | null;
  topRank: number | null;
  m: SerpItemMetrics | null;
}

export type PageBlock =
  | { kind: 'organic'; result: ResultView & { url: string; title: string } }
  | {
      kind: 'feature';
      /** SERP item type: ADV_TOP, FEATURED_SNIPPET, KNO_GRAPH, LOCAL_PACK, ... */
      type: string;
      /** The desktop knowledge panel sits in the right-hand column. */
      column: 'main' | 'side';
      /** The page a feature leads with (a featured snippet's, a knowledge panel's), when it has one. */
      lead: ResultView | null;
      members: SerpPackMember[];
    };

export interface PageFrame {
  keyword: string;
  keywordId: string;
  location: ShortLocation;
  platform: Platform;
  page: number;
  /** YYYY-MM-DD: the day the SERP stands for. */
  date: string;
  /** Unix seconds. */
  createdAt: number;
  /** Organic positions above this page (page × results per page). */
  firstPosition: number;
  /** Keyword difficulty from the keyword's top ten. */
  difficulty: number;
  /** "About N results"; null: the page's own organic count. */
  results: number | null;
  sourceUrl: string;
}

const NO_RESULT: ResultView = { url: null, title: null, desc: null, domain: null, topRank: null, m: null };

export function assemblePage(blocks: readonly PageBlock[], frame: PageFrame): Serp {
  const layoutBlocks: LayoutBlock[] = blocks.map((b) =>
    b.kind === 'organic' ? { type: 'ORGANIC', column: 'main', members: 0 } : { type: b.type, column: b.column, members: b.members.length },
  );
  const layouts = layoutSerp(layoutBlocks, frame.platform);
  const featuresAbove: string[] = [];
  const ctrs: number[] = [];
  let position = frame.firstPosition;
  const items: SerpItem[] = blocks.map((b, i) => {
    const layout = layouts[i];
    if (b.kind === 'organic') {
      position++;
      const ctr = clickThroughRate(position, featuresAbove);
      ctrs.push(ctr);
      const r = b.result;
      // Keys in the order answers have always had them (JSON keeps it).
      return { type: 'ORGANIC', url: r.url, title: r.title, desc: r.desc, domain: r.domain, topRank: r.topRank, position, ...layout, ctr, m: r.m, items: [] };
    }
    // Features take clicks from the organic results below them (clickThroughCurve.ts); on
    // mobile the side panel is in the one column too.
    if (b.column === 'main' || frame.platform === 2) featuresAbove.push(b.type);
    const r = b.lead ?? NO_RESULT;
    return { type: b.type, url: r.url, title: r.title, desc: r.desc, domain: r.domain, topRank: r.topRank, ...layout, ctr: null, m: r.m, items: b.members };
  });
  // Items are listed top to bottom (then left to right: the desktop side panel).
  const order = items.map((_, i) => i).sort((a, b) => items[a].size.t - items[b].size.t || items[a].size.l - items[b].size.l);
  const id = serpId(frame.keyword, frame.location._id, frame.platform, frame.page);
  const organicCount = ctrs.length;
  return {
    _id: id,
    kw: frame.keyword,
    mId: frame.keywordId,
    page: frame.page,
    location_id: frame.location._id,
    location: frame.location,
    platform_id: frame.platform,
    items: order.map((i) => items[i]),
    rank: frame.difficulty,
    rank_updated_at: frame.createdAt,
    created_at: frame.createdAt,
    ctr: ctrs,
    results: frame.results ?? organicCount,
    serp_results: organicCount,
    serp_snapshot_id: organicCount > 0 ? serpSnapshotId(id, frame.date, organicCount) : null,
    serp_source_url: frame.sourceUrl,
    serpFeaturesImpact: serpFeaturesImpact(layoutBlocks, layouts, frame.platform),
  };
}
