/**
 * Colours, type sizes and small drawn shapes (favicons, thumbnails, icons) of the SERP
 * snapshot. Colours follow the familiar light theme of a web search results page.
 */
import { hashString32 } from '../engine/search/deterministicNoise.js';
import { circle, element, path, rect, text } from './svgMarkup.js';

export const COLORS = {
  page: '#ffffff',
  mobilePage: '#f1f3f4',
  card: '#ffffff',
  title: '#1a0dab',
  link: '#1a73e8',
  text: '#202124',
  snippet: '#4d5156',
  muted: '#70757a',
  icon: '#5f6368',
  border: '#dadce0',
  divider: '#ebebeb',
  chip: '#f1f3f4',
  shadow: '#e3e3e3',
  sandboxFill: '#fef7e0',
  sandboxStroke: '#f9ab00',
  sandboxText: '#8a4b00',
  mapLand: '#ece8df',
  mapPark: '#c5e8c5',
  mapWater: '#aadaff',
  mapRoad: '#ffffff',
  mapHighway: '#f8c967',
  pin: '#ea4335',
  star: '#fbbc04',
} as const;

/** Type sizes and rhythm; mobile uses larger tap targets and a little larger text. */
export interface Typography {
  site: number;
  url: number;
  title: number;
  titleLine: number;
  snippet: number;
  snippetLine: number;
  heading: number;
  row: number;
  chipHeight: number;
  blockGap: number;
}

export const DESKTOP_TYPE: Typography = {
  site: 14,
  url: 12,
  title: 20,
  titleLine: 26,
  snippet: 14,
  snippetLine: 22,
  heading: 20,
  row: 48,
  chipHeight: 40,
  blockGap: 28,
};

export const MOBILE_TYPE: Typography = {
  site: 14,
  url: 12,
  title: 18,
  titleLine: 24,
  snippet: 14,
  snippetLine: 21,
  heading: 18,
  row: 56,
  chipHeight: 48,
  blockGap: 10,
};

/** Muted colours for drawn thumbnails, picked by a hash of the item. */
const THUMBNAIL_PALETTE = ['#8ab4f8', '#81c995', '#fdd663', '#f28b82', '#c58af9', '#78d9ec', '#fcad70', '#a7b0ba'];
const FAVICON_PALETTE = ['#1a73e8', '#188038', '#d93025', '#e37400', '#9334e6', '#007b83', '#b80672', '#5f6368'];

export function paletteColor(key: string, palette: readonly string[] = THUMBNAIL_PALETTE): string {
  return palette[hashString32(key) % palette.length];
}

/** Host without a leading `www.`, from a domain or a URL; empty when neither is usable. */
export function displayHost(domain: string | null | undefined, url: string | null | undefined): string {
  if (domain) return domain.replace(/^www\./i, '');
  if (url) {
    try {
      return new URL(url).hostname.replace(/^www\./i, '');
    } catch {
      return '';
    }
  }
  return '';
}

/** "best-running-shoes.co.uk" → "Best Running Shoes": how result pages name a site without its own site name. */
export function siteName(host: string): string {
  const label = host.split('.')[0] ?? host;
  return label
    .split(/[-_]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

/** "https://www.example.com › guides › shoes": the breadcrumb form of a result URL. */
export function breadcrumb(url: string | null | undefined, host: string): string {
  if (!url) return host;
  try {
    const u = new URL(url);
    const parts = u.pathname
      .split('/')
      .filter((p) => p.length > 0)
      .map((p) => safeDecode(p));
    return [`${u.protocol}//${u.hostname}`, ...parts].join(' › ');
  } catch {
    return url;
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Round site icon: the first letter of the site on a tinted disc. */
export function favicon(cx: number, cy: number, r: number, host: string): string {
  const color = paletteColor(host, FAVICON_PALETTE);
  const initial = [...(host || '?')][0]?.toUpperCase() ?? '?';
  return (
    circle(cx, cy, r, { fill: '#f1f3f4', stroke: COLORS.border, 'stroke-width': 1 }) +
    text(cx, cy + r * 0.38, initial, { size: r * 1.05, fill: color, bold: true, anchor: 'middle' })
  );
}

/** A drawn thumbnail for an image result (the sandbox web has no image files): a tinted tile with a sun and two hills. */
export function thumbnailPicture(x: number, y: number, w: number, h: number, key: string, radius = 8): string {
  const base = paletteColor(key);
  const sunR = Math.min(w, h) * 0.12;
  const clipId = `clip${hashString32(`${key}|${x}|${y}`).toString(36)}`;
  const hills =
    `M${x},${y + h} L${x},${y + h * 0.72} Q${x + w * 0.28},${y + h * 0.38} ${x + w * 0.55},${y + h * 0.7} ` +
    `Q${x + w * 0.75},${y + h * 0.5} ${x + w},${y + h * 0.66} L${x + w},${y + h} Z`;
  return (
    element('clipPath', { id: clipId }, rect(x, y, w, h, { rx: radius })) +
    element(
      'g',
      { 'clip-path': `url(#${clipId})` },
      rect(x, y, w, h, { fill: base, 'fill-opacity': 0.45 }) +
        circle(x + w * 0.74, y + h * 0.3, sunR, { fill: '#ffffff', 'fill-opacity': 0.8 }) +
        path(hills, { fill: base, 'fill-opacity': 0.9 }),
    )
  );
}

/** A video thumbnail: a dark tile with a play button. */
export function videoThumbnail(x: number, y: number, w: number, h: number, key: string): string {
  const cx = x + w / 2;
  const cy = y + h / 2;
  const r = Math.min(w, h) * 0.2;
  return (
    rect(x, y, w, h, { rx: 8, fill: '#3c4043' }) +
    rect(x, y + h * 0.55, w, h * 0.45, { fill: paletteColor(key), 'fill-opacity': 0.35 }) +
    circle(cx, cy, r, { fill: '#000000', 'fill-opacity': 0.6 }) +
    path(`M${cx - r * 0.35},${cy - r * 0.5} L${cx + r * 0.55},${cy} L${cx - r * 0.35},${cy + r * 0.5} Z`, { fill: '#ffffff' })
  );
}

export function magnifier(cx: number, cy: number, size: number, color: string): string {
  const r = size * 0.32;
  const d = r * 0.72;
  return (
    circle(cx - size * 0.08, cy - size * 0.08, r, { fill: 'none', stroke: color, 'stroke-width': size * 0.11 }) +
    path(`M${cx - size * 0.08 + d},${cy - size * 0.08 + d} L${cx + size * 0.4},${cy + size * 0.4}`, {
      stroke: color,
      'stroke-width': size * 0.13,
      'stroke-linecap': 'round',
    })
  );
}

/** Downward chevron of an expandable row. */
export function chevron(cx: number, cy: number, size: number, color: string): string {
  return path(`M${cx - size / 2},${cy - size / 4} L${cx},${cy + size / 4} L${cx + size / 2},${cy - size / 4}`, {
    fill: 'none',
    stroke: color,
    'stroke-width': 2,
    'stroke-linecap': 'round',
    'stroke-linejoin': 'round',
  });
}

/** Map pin with a letter, its tip at (x, y). */
export function mapPin(x: number, y: number, letter: string): string {
  const r = 11;
  const cy = y - r * 2.1;
  return (
    path(
      `M${x},${y} C${x - r * 0.4},${cy + r * 1.2} ${x - r},${cy + r * 0.6} ${x - r},${cy} A${r},${r} 0 1 1 ${x + r},${cy} C${x + r},${cy + r * 0.6} ${x + r * 0.4},${cy + r * 1.2} ${x},${y} Z`,
      {
        fill: COLORS.pin,
        stroke: '#b31412',
        'stroke-width': 1,
      },
    ) + text(x, cy + 4.5, letter, { size: 12, fill: '#ffffff', bold: true, anchor: 'middle' })
  );
}
