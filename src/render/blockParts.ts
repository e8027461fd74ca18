/**
 * What every SERP block is drawn from (serpBlocks.ts, serpPacks.ts): the frame it is drawn in,
 * lines of wrapped text, a block's heading, and a result as a page shows it (source line, blue
 * title, grey snippet), with a pack's members.
 */
import { textWidth, truncateToWidth, wrapText } from './fontMetrics.js';
import type { SnapshotItem, SnapshotMember } from './snapshotInput.js';
import { COLORS, breadcrumb, displayHost, favicon, siteName, type Typography } from './snapshotTheme.js';
import { text } from './svgMarkup.js';

export interface BlockFrame {
  x: number;
  y: number;
  width: number;
  mobile: boolean;
  type: Typography;
  /** The searched keyword, for headings such as "Shop for …". */
  keyword: string;
}

export interface DrawnBlock {
  svg: string;
  height: number;
}

export interface LineStyle {
  size: number;
  line: number;
  fill: string;
  bold?: boolean;
}

/** Lines of text whose first line box starts at `top`. */
export function textLines(x: number, top: number, lines: readonly string[], style: LineStyle): DrawnBlock {
  const baselineOffset = (style.line - style.size) / 2 + style.size * 0.82;
  const svg = lines.map((l, i) => text(x, top + i * style.line + baselineOffset, l, { size: style.size, fill: style.fill, bold: style.bold })).join('');
  return { svg, height: lines.length * style.line };
}

export function wrapped(x: number, top: number, width: number, content: string | null | undefined, maxLines: number, style: LineStyle): DrawnBlock {
  if (!content) return { svg: '', height: 0 };
  return textLines(x, top, wrapText(content, { width, fontSize: style.size, bold: style.bold, maxLines }), style);
}

export function heading(f: BlockFrame, label: string): DrawnBlock {
  return textLines(f.x, f.y, [truncateToWidth(label, f.width, f.type.heading)], { size: f.type.heading, line: f.type.heading + 16, fill: COLORS.text });
}

/** Favicon, site name and URL breadcrumb: the source line above a result's title. */
function sourceLine(x: number, top: number, width: number, t: Typography, host: string, url: string | null | undefined, label?: string): DrawnBlock {
  const textX = x + 38;
  const textWidthAvailable = width - 38;
  let svg = favicon(x + 14, top + 16, 14, host);
  let nameLine = siteName(host) || host;
  let nameX = textX;
  if (label) {
    svg += text(textX, top + 14, label, { size: t.site, fill: COLORS.text, bold: true });
    const labelEnd = textX + textWidth(label, t.site, true);
    svg += text(labelEnd + 8, top + 14, '·', { size: t.site, fill: COLORS.muted, anchor: 'middle' });
    nameX = labelEnd + 16;
    nameLine = host;
  }
  svg += text(nameX, top + 14, truncateToWidth(nameLine, textX + textWidthAvailable - nameX, t.site), { size: t.site, fill: COLORS.text });
  svg += text(textX, top + 31, truncateToWidth(breadcrumb(url, host), textWidthAvailable, t.url), { size: t.url, fill: COLORS.snippet });
  return { svg, height: 40 };
}

export interface ResultLike {
  url: string | null;
  title: string | null;
  desc: string | null;
  domain: string | null;
}

/** Source line, blue title and grey snippet, each wrapped to the column. */
export function result(f: BlockFrame, top: number, r: ResultLike, label?: string): DrawnBlock {
  const t = f.type;
  const host = displayHost(r.domain, r.url);
  const source = sourceLine(f.x, top, f.width, t, host, r.url, label);
  let y = top + source.height + 4;
  const title = wrapped(f.x, y, f.width, r.title ?? r.url ?? host, 2, { size: t.title, line: t.titleLine, fill: COLORS.title });
  y += title.height + 2;
  const desc = wrapped(f.x, y, f.width, r.desc, 3, { size: t.snippet, line: t.snippetLine, fill: COLORS.snippet });
  y += desc.height;
  return { svg: source.svg + title.svg + desc.svg, height: y - top };
}

export function members(item: SnapshotItem): readonly SnapshotMember[] {
  return item.items ?? [];
}

/** Pack members, or the item itself when a pack arrives without members. */
export function membersOrSelf(item: SnapshotItem): readonly ResultLike[] {
  const list = members(item);
  return list.length > 0 ? list : item.title || item.url ? [item] : [];
}
