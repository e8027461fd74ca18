/**
 * Line chart of rank positions over time, as a PNG for rank-tracking email reports.
 *
 * The y axis is inverted (position 1 at the top) because a higher line should mean a
 * better ranking. A null position (not ranking within the tracked depth) breaks the
 * line, so a keyword dropping out shows as a gap rather than a plunge to the axis.
 *
 * @example
 * const png = renderRankChart([[{ date: '2026-11-01', position: 4 }, { date: '2026-11-02', position: 3 }]], { labels: ['running shoes'] });
 */
import { textWidth, truncateToWidth } from './fontMetrics.js';
import { circle, line, path, rect, svgDocument, text } from './svgMarkup.js';
import { rasterizeSvg } from './svgRaster.js';

export interface RankPoint {
  /** `YYYY-MM-DD` (or any ISO date-time). */
  date: string;
  /** 1-based position; null when the keyword did not rank. */
  position: number | null;
}

export interface RankChartOptions {
  /** Legend label of each series, in series order. */
  labels: readonly string[];
  /** Default 640 × 320. */
  width?: number;
  height?: number;
  title?: string;
  /**
   * Lowest position the axis shows (positions beyond it are gaps). Default: the smallest
   * of 10, 20, 50, 100 that holds every position, so a page-one keyword's moves stay visible.
   */
  maxPosition?: number;
}

/** Series drawn at most: one distinct colour each. */
export const RANK_CHART_COLORS = ['#1a73e8', '#e8710a', '#188038', '#d93025', '#9334e6', '#12b5cb', '#f9ab00', '#5f6368'] as const;

const AXIS = '#5f6368';
const GRID = '#e8eaed';
const DAY_MS = 86_400_000;
const monthDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

function dayOf(date: string): number {
  const ms = Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date);
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : NaN;
}

function axisDepth(positions: number[], requested: number | undefined): number {
  if (requested && requested > 1) return Math.floor(requested);
  const worst = positions.length > 0 ? Math.max(...positions) : 10;
  return [10, 20, 50, 100].find((d) => worst <= d) ?? 100;
}

function yTicks(depth: number): number[] {
  const step = depth / 5;
  const ticks = [1];
  for (let t = step; t <= depth; t += step) ticks.push(Math.round(t));
  return ticks;
}

/** The chart as an SVG document (exposed for tests). */
export function rankChartSvg(series: readonly (readonly RankPoint[])[], opts: RankChartOptions): string {
  const width = opts.width ?? 640;
  const height = opts.height ?? 320;
  const shown = series.slice(0, RANK_CHART_COLORS.length);
  const valid = (p: RankPoint) => p.position !== null && Number.isFinite(p.position) && p.position >= 1;
  const positions = shown.flatMap((s) => s.filter(valid).map((p) => p.position as number));
  const depth = axisDepth(positions, opts.maxPosition);
  const days = [...new Set(shown.flatMap((s) => s.map((p) => dayOf(p.date)).filter((d) => Number.isFinite(d))))].sort((a, b) => a - b);

  let svg = rect(0, 0, width, height, { fill: '#ffffff' });
  let top = 12;
  if (opts.title) {
    svg += text(16, top + 16, truncateToWidth(opts.title, width - 32, 15, true), { size: 15, fill: '#202124', bold: true });
    top += 28;
  }
  // Legend: swatch and label per series, wrapping onto further rows.
  let lx = 16;
  const legendRow = 20;
  shown.forEach((_, i) => {
    const label = truncateToWidth(opts.labels[i] ?? `Keyword ${i + 1}`, Math.min(220, width - 60), 12);
    const w = 22 + textWidth(label, 12) + 18;
    if (lx + w > width - 8 && lx > 16) {
      lx = 16;
      top += legendRow;
    }
    svg += rect(lx, top + 6, 14, 4, { rx: 2, fill: RANK_CHART_COLORS[i] });
    svg += text(lx + 20, top + 12, label, { size: 12, fill: '#3c4043' });
    lx += w;
  });
  top += shown.length > 0 ? legendRow + 16 : 6;

  const plot = { l: 48, r: width - 20, t: top, b: height - 32 };
  const plotH = Math.max(10, plot.b - plot.t);
  const yOf = (p: number) => plot.t + ((p - 1) / (depth - 1)) * plotH;
  const first = days[0] ?? 0;
  const last = days[days.length - 1] ?? 0;
  const xOf = (d: number) => (last === first ? (plot.l + plot.r) / 2 : plot.l + ((d - first) / (last - first)) * (plot.r - plot.l));

  for (const t of yTicks(depth)) {
    svg += line(plot.l, yOf(t), plot.r, yOf(t), GRID);
    svg += text(plot.l - 8, yOf(t) + 4, String(t), { size: 11, fill: AXIS, anchor: 'end' });
  }
  svg += line(plot.l, plot.t, plot.l, plot.b, AXIS) + line(plot.l, plot.b, plot.r, plot.b, AXIS);
  svg += text(14, plot.t - 6, 'Position', { size: 10, fill: AXIS });

  const labelCount = Math.min(days.length, Math.max(2, Math.floor((plot.r - plot.l) / 90)));
  for (let i = 0; i < labelCount; i++) {
    const d = days[labelCount === 1 ? 0 : Math.round((i * (days.length - 1)) / (labelCount - 1))];
    const x = xOf(d);
    svg += line(x, plot.b, x, plot.b + 4, AXIS);
    svg += text(x, plot.b + 18, monthDay.format(new Date(d * DAY_MS)), {
      size: 11,
      fill: AXIS,
      anchor: i === 0 && labelCount > 1 ? 'start' : i === labelCount - 1 && labelCount > 1 ? 'end' : 'middle',
    });
  }

  shown.forEach((s, i) => {
    const color = RANK_CHART_COLORS[i];
    const points = s
      .map((p) => ({ day: dayOf(p.date), position: p.position }))
      .filter((p) => Number.isFinite(p.day))
      .sort((a, b) => a.day - b.day);
    let d = '';
    let penDown = false;
    const drawn: { x: number; y: number; alone: boolean }[] = [];
    points.forEach((p, k) => {
      const ranked = p.position !== null && Number.isFinite(p.position) && p.position >= 1 && p.position <= depth;
      if (!ranked) {
        penDown = false;
        return;
      }
      const x = xOf(p.day);
      const y = yOf(p.position as number);
      d += `${penDown ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
      const next = points[k + 1];
      const nextRanked = next !== undefined && next.position !== null && next.position >= 1 && next.position <= depth;
      drawn.push({ x, y, alone: !penDown && !nextRanked });
      penDown = true;
    });
    if (d) svg += path(d, { fill: 'none', stroke: color, 'stroke-width': 2.5, 'stroke-linejoin': 'round', 'stroke-linecap': 'round' });
    const dots = drawn.length <= 60;
    for (const p of drawn) if (dots || p.alone) svg += circle(p.x, p.y, p.alone ? 3.5 : 2.5, { fill: color, stroke: '#ffffff', 'stroke-width': 1 });
  });

  if (positions.length === 0) {
    svg += text((plot.l + plot.r) / 2, (plot.t + plot.b) / 2, 'No ranking positions in this period', { size: 13, fill: AXIS, anchor: 'middle' });
  }
  return svgDocument(width, height, svg);
}

/** The chart as a PNG. Series beyond the eighth are left out: pick the keywords worth showing. */
export function renderRankChart(series: readonly (readonly RankPoint[])[], opts: RankChartOptions): Buffer {
  return rasterizeSvg(rankChartSvg(series, opts));
}
