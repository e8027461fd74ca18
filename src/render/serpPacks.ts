/**
 * The SERP blocks that show a pack of cards or pictures rather than lines of results: places
 * with their map, story cards, videos, images, the knowledge panel and products. Each draws at
 * its frame and reports the height it used, as every block does (serpBlocks.ts).
 */
import { hashString32 } from '../engine/search/deterministicNoise.js';
import { heading, members, membersOrSelf, textLines, wrapped, type BlockFrame, type DrawnBlock } from './blockParts.js';
import { truncateToWidth, wrapText } from './fontMetrics.js';
import type { SnapshotItem, SnapshotMember } from './snapshotInput.js';
import { COLORS, displayHost, favicon, mapPin, siteName, thumbnailPicture, videoThumbnail } from './snapshotTheme.js';
import { circle, line, path, rect, text } from './svgMarkup.js';

/** A street map drawn with shapes: blocks, a park, a river, streets and lettered pins. */
function mapPicture(x: number, y: number, w: number, h: number, seed: string, pins: number): string {
  const clipId = `map${hashString32(`${seed}|${x}|${y}`).toString(36)}`;
  let g = rect(x, y, w, h, { fill: COLORS.mapLand });
  g += rect(x + w * 0.08, y + h * 0.12, w * 0.22, h * 0.3, { rx: 6, fill: COLORS.mapPark });
  g += rect(x + w * 0.62, y + h * 0.58, w * 0.25, h * 0.3, { rx: 6, fill: COLORS.mapPark });
  g += path(
    `M${x},${y + h * 0.78} C${x + w * 0.3},${y + h * 0.6} ${x + w * 0.55},${y + h * 1.02} ${x + w},${y + h * 0.7} L${x + w},${y + h * 0.84} C${x + w * 0.55},${y + h * 1.14} ${x + w * 0.3},${y + h * 0.74} ${x},${y + h * 0.92} Z`,
    {
      fill: COLORS.mapWater,
    },
  );
  for (let i = 1; i < 6; i++) g += line(x + (w * i) / 6, y, x + (w * i) / 6 + 18, y + h, COLORS.mapRoad, 4);
  for (let i = 1; i < 4; i++) g += line(x, y + (h * i) / 4, x + w, y + (h * i) / 4 - 10, COLORS.mapRoad, 4);
  g += path(`M${x},${y + h * 0.45} Q${x + w * 0.5},${y + h * 0.3} ${x + w},${y + h * 0.52}`, { fill: 'none', stroke: COLORS.mapHighway, 'stroke-width': 7 });
  const spots = [
    [0.3, 0.5],
    [0.55, 0.35],
    [0.75, 0.62],
    [0.42, 0.8],
    [0.86, 0.3],
  ];
  // Pins sit a little differently per query so that maps of different SERPs differ.
  const shift = (hashString32(seed) % 5) * 0.01;
  for (let i = 0; i < Math.min(pins, spots.length); i++) {
    g += mapPin(x + w * (spots[i][0] + shift), y + h * spots[i][1], String.fromCharCode(65 + i));
  }
  return `<clipPath id="${clipId}"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="10"/></clipPath><g clip-path="url(#${clipId})">${g}</g>`;
}

export function localPack(item: SnapshotItem, f: BlockFrame, keyword: string): DrawnBlock {
  const head = heading(f, 'Places');
  let y = f.y + head.height;
  const places = membersOrSelf(item).slice(0, 3);
  const mapHeight = f.mobile ? 150 : 190;
  let svg = head.svg + mapPicture(f.x, y, f.width, mapHeight, keyword, places.length);
  y += mapHeight + 8;
  places.forEach((p, i) => {
    const host = displayHost(p.domain, p.url);
    const buttonSpace = f.mobile ? 56 : 120;
    const textW = f.width - buttonSpace - 30;
    svg += text(f.x + 8, y + 24, String.fromCharCode(65 + i), { size: 14, fill: COLORS.pin, bold: true });
    svg += text(f.x + 30, y + 24, truncateToWidth(p.title ?? host, textW, 16), { size: 16, fill: COLORS.title });
    svg += text(f.x + 30, y + 44, truncateToWidth(host, textW, 13), { size: 13, fill: COLORS.snippet });
    svg += text(f.x + 30, y + 63, truncateToWidth(p.desc ?? '', textW, 13), { size: 13, fill: COLORS.muted });
    if (f.mobile) {
      svg += circle(f.x + f.width - 26, y + 38, 20, { fill: COLORS.chip });
      svg += path(
        `M${f.x + f.width - 32},${y + 44} L${f.x + f.width - 20},${y + 32} M${f.x + f.width - 27},${y + 32} L${f.x + f.width - 20},${y + 32} L${f.x + f.width - 20},${y + 39}`,
        {
          fill: 'none',
          stroke: COLORS.link,
          'stroke-width': 2,
        },
      );
    } else {
      const bx = f.x + f.width - 112;
      svg += rect(bx, y + 14, 104, 32, { rx: 16, fill: '#ffffff', stroke: COLORS.border });
      svg += text(bx + 52, y + 35, 'Website', { size: 13, fill: COLORS.link, anchor: 'middle' });
    }
    y += f.mobile ? 80 : 76;
    svg += line(f.x, y, f.x + f.width, y, COLORS.divider);
  });
  const more = text(f.x + f.width / 2, y + 28, 'More places →', { size: 14, fill: COLORS.text, anchor: 'middle' });
  y += 44;
  return { svg: svg + more, height: y - f.y };
}

export function storyCards(item: SnapshotItem, f: BlockFrame, title: string): DrawnBlock {
  const head = heading(f, title);
  let y = f.y + head.height;
  let svg = head.svg;
  const stories = membersOrSelf(item).slice(0, 3);
  if (f.mobile) {
    for (const s of stories) {
      const host = displayHost(s.domain, s.url);
      const textW = f.width - 104;
      svg += favicon(f.x + 8, y + 12, 8, host) + text(f.x + 22, y + 16, truncateToWidth(host, textW - 22, 12), { size: 12, fill: COLORS.snippet });
      svg += wrapped(f.x, y + 26, textW, s.title, 3, { size: 15, line: 20, fill: COLORS.text }).svg;
      svg += thumbnailPicture(f.x + f.width - 88, y + 4, 88, 88, s.url ?? s.title ?? host);
      y += 104;
      svg += line(f.x, y - 6, f.x + f.width, y - 6, COLORS.divider);
    }
    return { svg, height: y - f.y };
  }
  const gap = 12;
  const cardW = (f.width - gap * 2) / 3;
  const titleStyle = { size: 15, line: 21, fill: COLORS.text };
  const titles = stories.map((s) => wrapText(s.title ?? '', { width: cardW - 24, fontSize: titleStyle.size, maxLines: 4 }));
  const cardH = 164 + Math.max(1, ...titles.map((t) => t.length)) * titleStyle.line;
  stories.forEach((s, i) => {
    const cx = f.x + i * (cardW + gap);
    const host = displayHost(s.domain, s.url);
    svg += rect(cx, y, cardW, cardH, { rx: 10, fill: '#ffffff', stroke: COLORS.border });
    svg += thumbnailPicture(cx + 1, y + 1, cardW - 2, 110, s.url ?? s.title ?? host, 9);
    svg += favicon(cx + 20, y + 134, 8, host) + text(cx + 34, y + 138, truncateToWidth(host, cardW - 44, 12), { size: 12, fill: COLORS.snippet });
    svg += textLines(cx + 12, y + 152, titles[i], titleStyle).svg;
  });
  y += cardH + 12;
  return { svg, height: y - f.y };
}

export function videos(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const head = heading(f, 'Videos');
  let y = f.y + head.height;
  let svg = head.svg;
  const thumbW = f.mobile ? 136 : 176;
  const thumbH = Math.round((thumbW * 9) / 16);
  for (const v of membersOrSelf(item).slice(0, 3)) {
    const host = displayHost(v.domain, v.url);
    const tx = f.x + thumbW + 16;
    const tw = f.width - thumbW - 16;
    svg += videoThumbnail(f.x, y, thumbW, thumbH, v.url ?? v.title ?? host);
    const title = wrapped(tx, y - 2, tw, v.title, 2, { size: 16, line: 21, fill: COLORS.title });
    svg += title.svg;
    svg += text(tx, y + title.height + 14, truncateToWidth(host, tw, 13), { size: 13, fill: COLORS.snippet });
    if (!f.mobile) svg += wrapped(tx, y + title.height + 22, tw, v.desc, 2, { size: 13, line: 19, fill: COLORS.muted }).svg;
    y += thumbH + 18;
  }
  return { svg, height: y - f.y };
}

export function images(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const head = heading(f, 'Images');
  let y = f.y + head.height;
  let svg = head.svg;
  const list = membersOrSelf(item).slice(0, f.mobile ? 6 : 8);
  const perRow = f.mobile ? 3 : 4;
  const gap = 8;
  const tileW = (f.width - gap * (perRow - 1)) / perRow;
  const tileH = f.mobile ? 96 : 112;
  list.forEach((img, i) => {
    const col = i % perRow;
    const row = Math.floor(i / perRow);
    const tx = f.x + col * (tileW + gap);
    const ty = y + row * (tileH + 30);
    const host = displayHost(img.domain, img.url);
    svg += thumbnailPicture(tx, ty, tileW, tileH, img.url ?? img.title ?? `${host}${i}`);
    svg += text(tx, ty + tileH + 17, truncateToWidth(host, tileW, 12), { size: 12, fill: COLORS.snippet });
  });
  y += Math.ceil(list.length / perRow) * (tileH + 30);
  return { svg, height: y - f.y };
}

export function knowledgePanel(item: SnapshotItem, f: BlockFrame): DrawnBlock {
  const pad = f.mobile ? 0 : 18;
  const innerX = f.x + pad;
  const innerW = f.width - 2 * pad;
  const host = displayHost(item.domain, item.url);
  const key = item.url ?? item.title ?? host;
  let y = f.y + pad;
  const tileGap = 4;
  const bigW = innerW * 0.55;
  const smallW = innerW - bigW - tileGap;
  let svg = thumbnailPicture(innerX, y, bigW, 140, `${key}a`, 8);
  svg += thumbnailPicture(innerX + bigW + tileGap, y, smallW, 68, `${key}b`, 8);
  svg += thumbnailPicture(innerX + bigW + tileGap, y + 72, smallW, 68, `${key}c`, 8);
  y += 156;
  const title = wrapped(innerX, y, innerW, item.title ?? siteName(host), 2, { size: 26, line: 34, fill: COLORS.text });
  y += title.height;
  svg += title.svg + text(innerX, y + 16, truncateToWidth(host, innerW, 14), { size: 14, fill: COLORS.muted });
  y += 30;
  svg += line(innerX, y, innerX + innerW, y, COLORS.divider);
  y += 12;
  const desc = wrapped(innerX, y, innerW, item.desc, 7, { size: 14, line: 22, fill: COLORS.text });
  y += desc.height + 8;
  svg += desc.svg;
  for (const link of members(item).slice(0, 6)) {
    svg += line(innerX, y, innerX + innerW, y, COLORS.divider);
    svg += text(innerX, y + 28, truncateToWidth(link.title ?? link.url ?? '', innerW - 20, 15), { size: 15, fill: COLORS.title });
    svg += path(`M${innerX + innerW - 8},${y + 17} L${innerX + innerW - 2},${y + 23} L${innerX + innerW - 8},${y + 29}`, {
      fill: 'none',
      stroke: COLORS.icon,
      'stroke-width': 2,
    });
    y += 44;
  }
  y += Math.max(0, pad - 6);
  const box = f.mobile ? '' : rect(f.x, f.y, f.width, y - f.y, { rx: 10, fill: '#ffffff', stroke: COLORS.border });
  return { svg: box + svg, height: y - f.y };
}

/** Extracts a price shown in the member's text when the member carries none itself. */
function priceOf(m: SnapshotMember): string | null {
  if (m.price) return m.price;
  const found = /(?:[$€£¥₹]\s?\d[\d,.]*|\d[\d,.]*\s?(?:€|£|USD|EUR|GBP))/u.exec(`${m.title ?? ''} ${m.desc ?? ''}`);
  return found ? found[0] : null;
}

export function shopping(item: SnapshotItem, f: BlockFrame, keyword: string): DrawnBlock {
  const head = textLines(f.x, f.y, [truncateToWidth(`Shop for ${keyword}`, f.width - 90, f.type.heading)], {
    size: f.type.heading,
    line: f.type.heading + 16,
    fill: COLORS.text,
  });
  let svg = head.svg + text(f.x + f.width, f.y + 24, 'Sponsored', { size: 13, fill: COLORS.text, bold: true, anchor: 'end' });
  let y = f.y + head.height;
  const products = members(item).slice(0, 8);
  const perRow = f.mobile ? 2 : 4;
  const gap = 10;
  const cardW = (f.width - gap * (perRow - 1)) / perRow;
  const cardH = 212;
  products.forEach((p, i) => {
    const cx = f.x + (i % perRow) * (cardW + gap);
    const cy = y + Math.floor(i / perRow) * (cardH + gap);
    const host = displayHost(p.domain, p.url);
    const price = priceOf(p);
    svg += rect(cx, cy, cardW, cardH, { rx: 10, fill: '#ffffff', stroke: COLORS.border });
    svg += thumbnailPicture(cx + 8, cy + 8, cardW - 16, 104, p.url ?? p.title ?? `${host}${i}`);
    svg += wrapped(cx + 10, cy + 118, cardW - 20, p.title, 2, { size: 13, line: 18, fill: COLORS.title }).svg;
    svg += text(cx + 10, cy + 178, price ?? 'Price on site', price ? { size: 15, fill: COLORS.text, bold: true } : { size: 12, fill: COLORS.muted });
    svg += text(cx + 10, cy + 200, truncateToWidth(host, cardW - 20, 12), { size: 12, fill: COLORS.snippet });
  });
  y += Math.ceil(products.length / perRow) * (cardH + gap);
  return { svg, height: y - f.y };
}
