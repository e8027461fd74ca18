/**
 * The engine's SERP as the API's `Serp` (reference shape): integer percentages, the page
 * share and distance from the top of each item, the wrapper edges, the document and
 * viewport sizes. Fields an item does not have (a feature's description, a non-organic
 * CTR) are left out rather than sent as null, as the reference does not allow null there.
 */
import type { Serp, SerpItem } from '../../engine/search/index.js';
import type { SerpPackMember, SerpItemMetrics } from '../../engine/search/serpTypes.js';
import { VIEWPORTS } from '../../engine/search/serpLayout.js';
import type { SerpBody, SerpItemBody } from './schemas.js';

type Metrics = NonNullable<SerpItemBody['m']>;

/** The metric groups of a result that exist; social without Open Graph tags (never fetched). */
function presentMetrics(m: SerpItemMetrics): Metrics {
  return {
    ...(m.linkindex ? { linkindex: m.linkindex } : {}),
    ...(m.authority ? { authority: m.authority } : {}),
    ...(m.social ? { social: { v: { l: m.social.v.l, og: null }, ts: m.social.ts } } : {}),
  };
}

function presentMember(member: SerpPackMember) {
  return {
    type: member.type,
    url: member.url,
    title: member.title,
    ...(member.desc !== null ? { desc: member.desc } : {}),
    ...(member.domain !== null ? { domain: member.domain } : {}),
    ...(member.mId !== undefined ? { mId: member.mId } : {}),
  };
}

function presentItem(item: SerpItem, docArea: number): SerpItemBody {
  const { size } = item;
  return {
    type: item.type,
    url: item.url,
    title: item.title,
    ...(item.desc !== null ? { desc: item.desc } : {}),
    ...(item.domain !== null ? { domain: item.domain } : {}),
    ...(item.mId !== undefined ? { mId: item.mId } : {}),
    topRank: item.topRank,
    ...(item.position !== undefined ? { position: item.position } : {}),
    size,
    screenCoverage: Math.round(item.screenCoverage),
    visPart: Math.round(item.visPart),
    coverage: docArea > 0 ? Math.round((1e4 * (size.b - size.t) * (size.r - size.l)) / docArea) / 1e4 : 0,
    positionFromTheTopEdge: size.t.toFixed(2),
    // Each item is laid out as one block: its wrapper is the block itself.
    positionToFold: { ...item.positionToFold, rectTopOfWrapper: size.t, rectBottomOfWrapper: size.b },
    ...(item.ctr !== null ? { ctr: item.ctr } : {}),
    ...(item.m !== null ? { m: presentMetrics(item.m) } : {}),
    items: item.items.map(presentMember),
  };
}

/** Document and viewport of the layout model: the platform's viewport; the page ends one gap below its last block. */
export function serpBrowser(serp: Pick<Serp, 'platform_id' | 'items'>): { doc: { w: number; h: number }; view: { w: number; h: number } } {
  const vp = VIEWPORTS[serp.platform_id];
  const bottom = serp.items.reduce((max, item) => Math.max(max, item.size.b), 0);
  return { doc: { w: vp.width, h: Math.max(vp.height, bottom + vp.gap) }, view: { w: vp.width, h: vp.height } };
}

export function presentSerp(serp: Serp): SerpBody {
  const browser = serpBrowser(serp);
  const docArea = browser.doc.w * browser.doc.h;
  return {
    _id: serp._id,
    kw: serp.kw,
    mId: serp.mId,
    page: serp.page,
    location_id: serp.location_id,
    location: serp.location,
    platform_id: serp.platform_id,
    items: serp.items.map((item) => presentItem(item, docArea)),
    browser,
    rank: serp.rank,
    rank_updated_at: serp.rank_updated_at,
    created_at: serp.created_at,
    ctr: serp.ctr,
    results: serp.results,
    serp_results: serp.serp_results,
    serp_snapshot_id: serp.serp_snapshot_id,
    serp_source_url: serp.serp_source_url,
    serpFeaturesImpact: serp.serpFeaturesImpact,
  };
}
