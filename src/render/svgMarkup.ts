/**
 * Small builders for SVG markup. Every attribute value goes through `escapeXml`, and
 * text is drawn as glyph outlines of the bundled font (`<use>` of glyph paths), so data
 * (keywords, titles, URLs) never becomes markup.
 *
 * Why outlines and not `<text>`: resvg re-reads a font file from disk for every text
 * chunk it shapes, which made a results page take over half a second to parse; laying
 * the glyphs out here (cached per character) and handing resvg plain paths is ten
 * times faster and draws the same letters.
 */
import { glyphOutline, shapeLine } from './fontMetrics.js';

/**
 * Characters XML 1.0 forbids (C0 controls other than tab/newline/return, lone
 * surrogates, U+FFFE/U+FFFF) are dropped: resvg refuses a document holding them.
 */
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(value: string): string {
  return value.replace(NOT_XML_CHAR, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export type Attributes = Record<string, string | number | undefined>;

function attributes(attrs: Attributes): string {
  let out = '';
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    out += ` ${name}="${escapeXml(typeof value === 'number' ? formatNumber(value) : value)}"`;
  }
  return out;
}

/** Coordinates rounded to 0.01 px: enough for anti-aliasing, and keeps the SVG short. */
function formatNumber(n: number): string {
  return String(Math.round(n * 100) / 100);
}

export function element(name: string, attrs: Attributes, children = ''): string {
  return children ? `<${name}${attributes(attrs)}>${children}</${name}>` : `<${name}${attributes(attrs)}/>`;
}

export interface TextStyle {
  size: number;
  fill: string;
  bold?: boolean;
  anchor?: 'start' | 'middle' | 'end';
}

/** One line of text with its baseline at `y`. */
export function text(x: number, y: number, content: string, style: TextStyle): string {
  const line = shapeLine(content, style.bold);
  if (line.glyphs.length === 0) return '';
  const scale = style.size / line.unitsPerEm;
  const width = line.advance * scale;
  const left = style.anchor === 'middle' ? x - width / 2 : style.anchor === 'end' ? x - width : x;
  let uses = '';
  for (const g of line.glyphs) uses += `<use href="#${line.prefix}${g.id}" x="${Math.round(g.x)}"/>`;
  return `<g fill="${escapeXml(style.fill)}" transform="translate(${formatNumber(left)} ${formatNumber(y)}) scale(${scale.toFixed(6)} ${(-scale).toFixed(6)})">${uses}</g>`;
}

/** Path definitions of every glyph the body uses, for the document's `<defs>`. */
function glyphDefs(body: string): string {
  const ids = new Set<string>();
  for (const m of body.matchAll(/href="#([rb]\d+)"/g)) ids.add(m[1]);
  let defs = '';
  for (const id of ids) defs += `<path id="${id}" d="${glyphOutline(id[0] as 'r' | 'b', Number(id.slice(1)))}"/>`;
  return defs ? `<defs>${defs}</defs>` : '';
}

export function rect(x: number, y: number, width: number, height: number, attrs: Attributes = {}): string {
  return element('rect', { x, y, width: Math.max(0, width), height: Math.max(0, height), ...attrs });
}

export function line(x1: number, y1: number, x2: number, y2: number, stroke: string, strokeWidth = 1): string {
  return element('line', { x1, y1, x2, y2, stroke, 'stroke-width': strokeWidth });
}

export function circle(cx: number, cy: number, r: number, attrs: Attributes): string {
  return element('circle', { cx, cy, r, ...attrs });
}

export function path(d: string, attrs: Attributes): string {
  return element('path', { d, ...attrs });
}

export function svgDocument(width: number, height: number, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${formatNumber(width)}" height="${formatNumber(height)}" ` +
    `viewBox="0 0 ${formatNumber(width)} ${formatNumber(height)}">${glyphDefs(body)}${body}</svg>`
  );
}
