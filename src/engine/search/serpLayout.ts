/**
 * Pixel layout of a result page: a box per item, stacked top to bottom in the main
 * column (and, on desktop, a right-hand column for the knowledge panel), from which the
 * visibility figures of every item follow.
 *
 * Viewports: desktop 1366×768 (the most common desktop resolution in StatCounter's
 * 2023 worldwide statistics) and mobile 390×844 (iPhone 12–14 CSS viewport). Block
 * heights are the model's estimates of Google's 2024 result page at those widths.
 */
import type { Platform } from './serpFeatures.js';

export interface Box {
  t: number;
  l: number;
  b: number;
  r: number;
}

export interface PositionToFold {
  status: 'above' | 'in' | 'below';
  fold: number;
  elementTop: number;
  elementBottom: number;
}

export interface ItemLayout {
  size: Box;
  /** Percent of the first screen the item's visible part covers. */
  screenCoverage: number;
  /** Percent of the item that is visible on the first screen. */
  visPart: number;
  positionToFold: PositionToFold;
}

export interface LayoutBlock {
  type: string;
  column: 'main' | 'side';
  /** Pack members (ads in an ad block, places in a local pack, ...). */
  members: number;
}

interface Viewport {
  width: number;
  height: number;
  /** Search box and tabs above the first result. */
  header: number;
  main: { l: number; r: number };
  side: { l: number; r: number };
  gap: number;
}

export const VIEWPORTS: Readonly<Record<Platform, Viewport>> = {
  1: { width: 1366, height: 768, header: 180, main: { l: 180, r: 832 }, side: { l: 900, r: 1357 }, gap: 24 },
  2: { width: 390, height: 844, header: 150, main: { l: 12, r: 378 }, side: { l: 12, r: 378 }, gap: 12 },
};

/** Fixed height and per-member height of each block type, desktop then mobile. */
const HEIGHTS: Readonly<Record<string, readonly [fixed: number, perMember: number, mobileFixed: number, mobilePerMember: number]>> = {
  ORGANIC: [92, 0, 140, 0],
  ADV_TOP: [16, 110, 20, 150],
  ADV_BOTTOM: [16, 110, 20, 150],
  FEATURED_SNIPPET: [300, 0, 420, 0],
  KNO_GRAPH: [320, 60, 380, 60],
  LOCAL_PACK: [260, 72, 220, 96],
  TOP_STORIES: [310, 0, 90, 130],
  SIMILAR_QUESTIONS: [60, 52, 60, 58],
  VIDEO_PACK: [60, 110, 60, 120],
  IMG_PACK: [200, 0, 240, 0],
  SHOP_RESULTS: [330, 0, 360, 0],
  SIMILAR_QUERIES: [60, 24, 60, 52],
};
const DEFAULT_HEIGHT = [180, 0, 220, 0] as const;

function blockHeight(block: LayoutBlock, platform: Platform): number {
  const h = HEIGHTS[block.type] ?? DEFAULT_HEIGHT;
  return platform === 1 ? h[0] + h[1] * block.members : h[2] + h[3] * block.members;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Boxes and visibility of the blocks, in the given (page) order. */
export function layoutSerp(blocks: readonly LayoutBlock[], platform: Platform): ItemLayout[] {
  const vp = VIEWPORTS[platform];
  let mainTop = vp.header;
  let sideTop = vp.header;
  const screenArea = vp.width * vp.height;
  return blocks.map((block) => {
    const height = blockHeight(block, platform);
    const column = platform === 1 && block.column === 'side' ? 'side' : 'main';
    const x = column === 'side' ? vp.side : vp.main;
    const t = column === 'side' ? sideTop : mainTop;
    const size: Box = { t, l: x.l, b: t + height, r: x.r };
    if (column === 'side') sideTop = size.b + vp.gap;
    else mainTop = size.b + vp.gap;
    const visibleHeight = Math.max(0, Math.min(size.b, vp.height) - size.t);
    const status = size.b <= vp.height ? 'above' : size.t < vp.height ? 'in' : 'below';
    return {
      size,
      screenCoverage: round2((100 * visibleHeight * (size.r - size.l)) / screenArea),
      visPart: round2((100 * visibleHeight) / height),
      positionToFold: { status, fold: vp.height, elementTop: size.t, elementBottom: size.b },
    };
  });
}

/**
 * SERP-features impact 0–100: the share of the first screen's result area (below the
 * header, main column) taken by blocks other than organic results — how far features
 * push the organic results toward and below the fold.
 */
export function serpFeaturesImpact(blocks: readonly LayoutBlock[], layouts: readonly ItemLayout[], platform: Platform): number {
  const vp = VIEWPORTS[platform];
  const available = vp.height - vp.header;
  let taken = 0;
  blocks.forEach((block, i) => {
    if (block.type === 'ORGANIC' || layouts[i].size.l !== vp.main.l) return;
    const { t, b } = layouts[i].size;
    // Count the block and the gap below it.
    taken += Math.max(0, Math.min(b + vp.gap, vp.height) - Math.max(t, vp.header));
  });
  return Math.max(0, Math.min(100, Math.round((100 * taken) / available)));
}
