/**
 * A stored SERP drawn as a picture of a search results page (the SERP tool's snapshot).
 *
 * The page is built as SVG (all text escaped) and rasterised by resvg with the bundled
 * DejaVu font, so the PNG is the same on every machine. Items are placed with their
 * `size` boxes from the engine's layout model when present: the boxes decide the order,
 * the column (main or the desktop side panel) and the horizontal extent. Heights come
 * from the drawn content (wrapped text), not from the model's estimates, so blocks stack
 * without overlaps or empty gaps where the model's height and the drawing differ.
 *
 * @example
 * const png = renderSerpSnapshot(serp); // serp: the stored Serp object
 * reply.send({ image: png.toString('base64') });
 */
import { VIEWPORTS } from '../engine/search/serpLayout.js';
import { textWidth, truncateToWidth } from './fontMetrics.js';
import type { BlockFrame } from './blockParts.js';
import { drawBlock } from './serpBlocks.js';
import type { SnapshotItem, SnapshotSerp } from './snapshotInput.js';
import { COLORS, DESKTOP_TYPE, MOBILE_TYPE, magnifier } from './snapshotTheme.js';
import { circle, line, path, rect, svgDocument, text } from './svgMarkup.js';
import { rasterizeSvg } from './svgRaster.js';

export interface SnapshotOptions {
  /** Picture width; default 1280 (desktop) or 412 (mobile). */
  width?: number;
  /** Items drawn at most (in page order); default 12. */
  maxItems?: number;
  /** Picture height at most, in pixels; default 4000. Blocks that would end below it are left out. */
  maxHeight?: number;
  /** Footer badge naming where the data comes from; default "Sandbox data". */
  dataLabel?: string;
  /** Width of the viewport the `size` boxes were laid out in; default the engine's layout viewport. */
  layoutViewportWidth?: number;
}

export const SNAPSHOT_WIDTH = { desktop: 1280, mobile: 412 } as const;
/** Colour of result titles; tests look for it in the picture. */
export const SNAPSHOT_TITLE_COLOR = COLORS.title;

const FOOTER_HEIGHT = 64;

interface Column {
  x: number;
  width: number;
}

/** The search engine domain shown in the header. */
function engineDomain(serp: SnapshotSerp): string {
  if (serp.engine_domain) return serp.engine_domain;
  if (serp.serp_source_url) {
    try {
      return new URL(serp.serp_source_url).hostname.replace(/^www\./i, '');
    } catch {
      // An unparsable source URL leaves the neutral name below.
    }
  }
  return 'Search';
}

function resultsLine(results: number): string {
  if (!Number.isFinite(results) || results <= 0) return 'No results';
  return `About ${new Intl.NumberFormat('en-US').format(Math.round(results))} results`;
}

const TABS = ['All', 'Images', 'News', 'Videos', 'Maps', 'Shopping', 'More'];

function tabs(x: number, baseline: number, maxX: number, size: number): string {
  let svg = '';
  let tx = x;
  for (const [i, label] of TABS.entries()) {
    const w = textWidth(label, size);
    if (tx + w > maxX) break;
    svg += text(tx, baseline, label, { size, fill: i === 0 ? COLORS.link : COLORS.icon, bold: i === 0 });
    if (i === 0) svg += rect(tx - 2, baseline + 10, textWidth(label, size, true) + 4, 3, { rx: 1.5, fill: COLORS.link });
    tx += w + (size > 13 ? 22 : 26);
  }
  return svg;
}

function queryBox(x: number, y: number, w: number, h: number, keyword: string, mobile: boolean): string {
  const r = h / 2;
  let svg = rect(x + 1, y + 2, w, h, { rx: r, fill: COLORS.shadow });
  svg += rect(x, y, w, h, { rx: r, fill: '#ffffff', stroke: '#dfe1e5', 'stroke-width': 1 });
  const textX = mobile ? x + 46 : x + 22;
  const rightIcons = mobile ? 40 : 96;
  svg += text(textX, y + h / 2 + 6, truncateToWidth(keyword, x + w - rightIcons - textX, 16), { size: 16, fill: COLORS.text });
  const clearX = x + w - (mobile ? 22 : 78);
  svg += path(`M${clearX - 6},${y + h / 2 - 6} L${clearX + 6},${y + h / 2 + 6} M${clearX + 6},${y + h / 2 - 6} L${clearX - 6},${y + h / 2 + 6}`, {
    stroke: COLORS.icon,
    'stroke-width': 2,
    'stroke-linecap': 'round',
  });
  if (mobile) {
    svg += magnifier(x + 22, y + h / 2, 18, COLORS.icon);
  } else {
    svg += line(x + w - 56, y + 10, x + w - 56, y + h - 10, COLORS.border);
    svg += magnifier(x + w - 28, y + h / 2, 20, COLORS.link);
  }
  return svg;
}

/** The largest size up to `max` (down to `min`) at which bold `label` fits `width`. */
function fittedSize(label: string, width: number, max: number, min: number): number {
  const atMax = textWidth(label, max, true);
  return atMax <= width ? max : Math.max(min, Math.floor((max * width) / atMax));
}

/** Engine name, query box, tabs and the results-count line; returns the first result's top. */
function header(serp: SnapshotSerp, width: number, mobile: boolean, main: Column): { svg: string; bottom: number } {
  const domain = engineDomain(serp);
  if (mobile) {
    let svg = text(width / 2, 40, truncateToWidth(domain, width - 40, 24, true), { size: 24, fill: COLORS.link, bold: true, anchor: 'middle' });
    svg += queryBox(12, 58, width - 24, 48, serp.kw, true);
    svg += tabs(20, 136, width - 12, 13);
    svg += line(0, 152, width, 152, COLORS.divider);
    svg += text(main.x + 4, 176, resultsLine(serp.results), { size: 12, fill: COLORS.muted });
    return { svg, bottom: 190 };
  }
  const logoSize = fittedSize(domain, main.x - 40, 24, 14);
  let svg = text(24, 49 + logoSize * 0.35, truncateToWidth(domain, main.x - 40, logoSize, true), { size: logoSize, fill: COLORS.link, bold: true });
  const boxW = Math.min(692, width - main.x - 140);
  svg += queryBox(main.x, 26, boxW, 46, serp.kw, false);
  // Apps grid and account avatar at the top right, as on a results page.
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) svg += circle(width - 96 + c * 7, 42 + r * 7, 2, { fill: COLORS.icon });
  svg += circle(width - 44, 49, 16, { fill: '#8ab4f8' });
  svg += text(width - 44, 55, 'Q', { size: 15, fill: '#ffffff', bold: true, anchor: 'middle' });
  svg += tabs(main.x + 12, 112, width - 40, 14);
  svg += line(0, 128, width, 128, COLORS.divider);
  svg += text(main.x, 158, resultsLine(serp.results), { size: 14, fill: COLORS.muted });
  return { svg, bottom: 184 };
}

function footer(serp: SnapshotSerp, width: number, top: number, label: string, mobile: boolean): string {
  let svg = rect(0, top, width, FOOTER_HEIGHT, { fill: '#f2f2f2' });
  svg += line(0, top, width, top, COLORS.border);
  const platform = mobile ? 'Mobile' : 'Desktop';
  const badgeSize = 12;
  const badgeW = textWidth(label, badgeSize, true) + 24;
  const locationText = truncateToWidth(`${serp.location.label} (${serp.location.code.toUpperCase()}) · ${platform}`, width - badgeW - 56, 13);
  svg += circle(20, top + FOOTER_HEIGHT / 2, 4, { fill: COLORS.icon });
  svg += text(32, top + FOOTER_HEIGHT / 2 + 5, locationText, { size: 13, fill: COLORS.icon });
  const bx = width - badgeW - 16;
  svg += rect(bx, top + FOOTER_HEIGHT / 2 - 13, badgeW, 26, { rx: 13, fill: COLORS.sandboxFill, stroke: COLORS.sandboxStroke });
  svg += text(bx + badgeW / 2, top + FOOTER_HEIGHT / 2 + 4.5, label, { size: badgeSize, fill: COLORS.sandboxText, bold: true, anchor: 'middle' });
  return svg;
}

/** Items in page order: by box top then left when every item has a box, else as stored. */
function pageOrder(items: readonly SnapshotItem[]): SnapshotItem[] {
  const list = [...items];
  if (list.every((i) => i.size)) list.sort((a, b) => a.size!.t - b.size!.t || a.size!.l - b.size!.l);
  return list;
}

/** Builds the snapshot as an SVG document (exposed for tests and debugging). */
export function serpSnapshotSvg(serp: SnapshotSerp, opts: SnapshotOptions = {}): { svg: string; width: number; height: number } {
  const mobile = serp.platform_id === 2;
  const width = opts.width ?? (mobile ? SNAPSHOT_WIDTH.mobile : SNAPSHOT_WIDTH.desktop);
  const maxHeight = Math.max(600, opts.maxHeight ?? 4000);
  const label = opts.dataLabel ?? 'Sandbox data';
  const viewport = VIEWPORTS[mobile ? 2 : 1];
  const scale = width / (opts.layoutViewportWidth ?? viewport.width);
  const main: Column = { x: Math.round(viewport.main.l * scale), width: Math.round((viewport.main.r - viewport.main.l) * scale) };
  const side: Column = { x: Math.round(viewport.side.l * scale), width: Math.round((viewport.side.r - viewport.side.l) * scale) };
  const typography = mobile ? MOBILE_TYPE : DESKTOP_TYPE;
  const head = header(serp, width, mobile, main);

  const items = pageOrder(serp.items);
  const cursor = { main: head.bottom, side: head.bottom };
  const limit = maxHeight - FOOTER_HEIGHT;
  let body = '';
  let drawn = 0;

  for (const item of items) {
    if (drawn >= (opts.maxItems ?? 12)) break;
    const box = item.size ?? null;
    const inSide = !mobile && (box ? box.l * scale >= main.x + main.width * 0.75 : item.type === 'KNO_GRAPH');
    const column = inSide ? side : main;
    let x = column.x;
    let w = column.width;
    if (box && box.r > box.l) {
      x = Math.min(Math.max(0, box.l * scale), width - 160);
      w = Math.min(Math.max(160, (box.r - box.l) * scale), width - x);
    }
    const key = inSide ? 'side' : 'main';
    const top = cursor[key];
    const pad = mobile ? 16 : 0;
    const frame: BlockFrame = { x: x + pad, y: top + pad, width: w - 2 * pad, mobile, type: typography, keyword: serp.kw };
    const block = drawBlock(item, frame);
    if (block.height <= 0) continue;
    const height = block.height + 2 * pad;
    if (top + height > limit && drawn > 0) {
      // A side panel too tall to fit is left out; the main column goes on as far as it fits.
      if (inSide) continue;
      break;
    }
    if (mobile) body += rect(x, top, w, height, { rx: 12, fill: COLORS.card, stroke: '#e8eaed' });
    body += block.svg;
    cursor[key] = top + height + typography.blockGap;
    drawn++;
  }

  const contentBottom = Math.max(cursor.main, cursor.side) - typography.blockGap + 24;
  const height = Math.min(maxHeight, Math.ceil(contentBottom) + FOOTER_HEIGHT);
  const background = rect(0, 0, width, height, { fill: mobile ? COLORS.mobilePage : COLORS.page });
  const headerBackground = mobile ? rect(0, 0, width, head.bottom - 4, { fill: COLORS.page }) : '';
  const svg = svgDocument(width, height, background + headerBackground + head.svg + body + footer(serp, width, height - FOOTER_HEIGHT, label, mobile));
  return { svg, width, height };
}

/** The SERP as a PNG picture of a results page (desktop ~1280 px wide, mobile 412 px). */
export function renderSerpSnapshot(serp: SnapshotSerp, opts: SnapshotOptions = {}): Buffer {
  return rasterizeSvg(serpSnapshotSvg(serp, opts).svg);
}
