/**
 * The one typeface every picture uses, and text measurement with its real glyph widths.
 *
 * The font comes from an npm package (DejaVu Sans, `dejavu-fonts-ttf`) so that a picture
 * looks the same on every machine and never depends on installed system fonts. DejaVu
 * covers Latin, Greek, Cyrillic, Hebrew, Arabic and many symbols, so hostile or foreign
 * text mostly renders as text rather than as empty boxes.
 */
import { createRequire } from 'node:module';
import type BidiFactory from 'bidi-js';
import { openSync, type Font } from 'fontkit';

const require = createRequire(import.meta.url);

export const FONT_FAMILY = 'DejaVu Sans';

/** TTF files handed to resvg (`fontFiles`); resvg cannot read woff/woff2. */
export const FONT_FILES: readonly string[] = [
  require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
];

interface MeasuredFace {
  font: Font;
  /** Prefix of this face's glyph ids in SVG documents. */
  prefix: 'r' | 'b';
  /** Advance width in em, per code point: glyph lookups dominate wrapping otherwise. */
  advances: Map<number, number>;
  /** Glyph id and advance (font units) per code point, for drawing. */
  glyphs: Map<number, { id: number; advance: number }>;
  /** SVG path data of each glyph outline (font units, y up); '' for blank glyphs. */
  outlines: Map<number, string>;
}

let faces: { regular: MeasuredFace; bold: MeasuredFace } | undefined;

function face(bold: boolean): MeasuredFace {
  if (!faces) {
    const open = (path: string, prefix: 'r' | 'b'): MeasuredFace => {
      const font = openSync(path);
      if (!('glyphForCodePoint' in font)) throw new Error(`${path} is a font collection, expected a single font`);
      return { font, prefix, advances: new Map(), glyphs: new Map(), outlines: new Map() };
    };
    faces = { regular: open(FONT_FILES[0], 'r'), bold: open(FONT_FILES[1], 'b') };
  }
  return bold ? faces.bold : faces.regular;
}

function advanceEm(f: MeasuredFace, codePoint: number): number {
  let w = f.advances.get(codePoint);
  if (w === undefined) {
    w = f.font.glyphForCodePoint(codePoint).advanceWidth / f.font.unitsPerEm;
    f.advances.set(codePoint, w);
  }
  return w;
}

/** Width in pixels of `text` set at `fontSize` px (kerning ignored, so a slight overestimate). */
export function textWidth(text: string, fontSize: number, bold = false): number {
  const f = face(bold);
  let em = 0;
  for (const ch of text) em += advanceEm(f, ch.codePointAt(0)!);
  return em * fontSize;
}

export interface WrapOptions {
  /** Column width in pixels. */
  width: number;
  fontSize: number;
  bold?: boolean;
  /** Lines kept; the last one ends in an ellipsis when text is cut. */
  maxLines: number;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Whitespace collapsed to single spaces, so wrapping and SVG agree on what is shown. */
export function normaliseSpaces(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

const ELLIPSIS = '…';

/** `text` cut by whole graphemes so that it plus an ellipsis fits `width`; always ends in the ellipsis. */
function ellipsize(text: string, width: number, fontSize: number, bold: boolean): string {
  let budget = width - textWidth(ELLIPSIS, fontSize, bold);
  if (textWidth(text, fontSize, bold) <= budget) return text + ELLIPSIS;
  let out = '';
  for (const { segment } of graphemes.segment(text)) {
    const w = textWidth(segment, fontSize, bold);
    if (w > budget) break;
    budget -= w;
    out += segment;
  }
  return out.trimEnd() + ELLIPSIS;
}

/** `text` unchanged when it fits `width`, else cut to fit with an ellipsis. */
export function truncateToWidth(text: string, width: number, fontSize: number, bold = false): string {
  const clean = normaliseSpaces(text);
  return textWidth(clean, fontSize, bold) <= width ? clean : ellipsize(clean, width, fontSize, bold);
}

/**
 * Greedy word wrap into at most `maxLines` lines of at most `width` pixels. Words longer
 * than a line break between graphemes (URLs, unbroken scripts). Work stops once the
 * lines are full, so a 5,000-character title costs no more than a short one.
 */
export function wrapText(text: string, opts: WrapOptions): string[] {
  const { width, fontSize, maxLines } = opts;
  const bold = opts.bold ?? false;
  const words = normaliseSpaces(text)
    .split(' ')
    .filter((w) => w.length > 0);
  const spaceWidth = textWidth(' ', fontSize, bold);
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  let truncated = false;

  const flush = (): boolean => {
    if (lines.length === maxLines) {
      truncated = true;
      return false;
    }
    lines.push(line);
    line = '';
    lineWidth = 0;
    return true;
  };

  outer: for (const word of words) {
    const w = textWidth(word, fontSize, bold);
    const gap = line ? spaceWidth : 0;
    if (lineWidth + gap + w <= width) {
      line += (line ? ' ' : '') + word;
      lineWidth += gap + w;
      continue;
    }
    if (line && !flush()) break;
    if (w <= width) {
      line = word;
      lineWidth = w;
      continue;
    }
    for (const { segment } of graphemes.segment(word)) {
      const gw = textWidth(segment, fontSize, bold);
      if (lineWidth + gw > width && line && !flush()) break outer;
      line += segment;
      lineWidth += gw;
    }
  }
  if (line && !truncated) {
    if (lines.length === maxLines) truncated = true;
    else lines.push(line);
  }
  if (truncated && lines.length > 0) {
    const last = lines.length - 1;
    lines[last] = ellipsize(lines[last], width, fontSize, bold);
  }
  return lines;
}

/** Glyphs of one line of text: ids and pen positions in font units, laid out left to right. */
export interface ShapedLine {
  /** `r` regular, `b` bold: the prefix of glyph ids in `<defs>`. */
  prefix: 'r' | 'b';
  unitsPerEm: number;
  glyphs: { id: number; x: number }[];
  /** Total advance in font units. */
  advance: number;
}

/**
 * Scripts that need contextual shaping, mark positioning or right-to-left order
 * (combining marks, Hebrew, Arabic, Indic and other complex scripts, bidi controls,
 * Arabic and Hebrew presentation forms). Other text maps one code point to one glyph.
 */
const NEEDS_SHAPING = /[\u0300-\u036F\u0590-\u1DFF\u200C-\u200F\u202A-\u202E\u2066-\u2069\uFB1D-\uFEFF]/u;

const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u200F\u202B\u202E\u2067]/u;
// bidi-js is a CommonJS module whose typings declare an ES default export; require() gets the factory itself.
const bidi = (require('bidi-js') as () => ReturnType<typeof BidiFactory.default>)();

/**
 * Runs of one direction in display order (Unicode Bidirectional Algorithm, UAX #9:
 * embedding levels from bidi-js, then rule L2 — reverse every sequence of runs at or
 * above each odd level, highest first).
 */
function visualRuns(text: string): { text: string; rtl: boolean }[] {
  if (!RIGHT_TO_LEFT.test(text)) return [{ text, rtl: false }];
  const { levels } = bidi.getEmbeddingLevels(text, 'auto');
  const runs: { start: number; end: number; level: number }[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || levels[i] !== levels[start]) {
      runs.push({ start, end: i, level: levels[start] });
      start = i;
    }
  }
  const highest = Math.max(...runs.map((r) => r.level));
  const lowestOdd = Math.min(...runs.map((r) => (r.level % 2 === 1 ? r.level : r.level + 1)));
  for (let level = highest; level >= lowestOdd; level--) {
    for (let i = 0; i < runs.length;) {
      if (runs[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < runs.length && runs[j].level >= level) j++;
      runs.splice(i, j - i, ...runs.slice(i, j).reverse());
      i = j;
    }
  }
  return runs.map((r) => ({ text: text.slice(r.start, r.end), rtl: r.level % 2 === 1 }));
}

/**
 * Lays out a line of text with the bundled font. Plain text uses the font's character
 * map and advances directly (a cached lookup per character); text in complex scripts
 * goes through fontkit's OpenType shaper (Arabic joining, marks), one direction run at
 * a time in bidi display order, so mixed Latin and Arabic or Hebrew reads correctly.
 */
export function shapeLine(text: string, bold = false): ShapedLine {
  const f = face(bold);
  const glyphs: { id: number; x: number }[] = [];
  let x = 0;
  if (NEEDS_SHAPING.test(text)) {
    for (const run of visualRuns(text)) {
      const shaped = f.font.layout(run.text, undefined, undefined, undefined, run.rtl ? 'rtl' : 'ltr');
      shaped.glyphs.forEach((g, i) => {
        const pos = shaped.positions[i];
        if (!f.outlines.has(g.id)) f.outlines.set(g.id, g.path.toSVG());
        glyphs.push({ id: g.id, x: x + pos.xOffset });
        x += pos.xAdvance;
      });
    }
  } else {
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      let g = f.glyphs.get(cp);
      if (!g) {
        const glyph = f.font.glyphForCodePoint(cp);
        if (!f.outlines.has(glyph.id)) f.outlines.set(glyph.id, glyph.path.toSVG());
        g = { id: glyph.id, advance: glyph.advanceWidth };
        f.glyphs.set(cp, g);
      }
      glyphs.push({ id: g.id, x });
      x += g.advance;
    }
  }
  // Glyph 0 is the font's "missing glyph" box (e.g. emoji DejaVu lacks): leave a gap instead.
  const drawn = glyphs.filter((g) => g.id !== 0 && (f.outlines.get(g.id) ?? '') !== '');
  return { prefix: f.prefix, unitsPerEm: f.font.unitsPerEm, glyphs: drawn, advance: x };
}

/** SVG path data of a glyph outline, in font units with y pointing up. */
export function glyphOutline(prefix: 'r' | 'b', id: number): string {
  return face(prefix === 'b').outlines.get(id) ?? '';
}
