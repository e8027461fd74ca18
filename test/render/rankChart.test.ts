import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RANK_CHART_COLORS, rankChartSvg, renderRankChart, type RankPoint } from '../../src/render/rankChart.js';
import { decodePng, distinctColours, pixelsNear } from './pngInspection.js';

const days = (n: number) => Array.from({ length: n }, (_, i) => new Date(Date.UTC(2026, 10, 1 + i)).toISOString().slice(0, 10));

/** The first series path's points, in drawing order. */
function pathPoints(svg: string, color: string): { move: boolean; x: number; y: number }[] {
  const d = new RegExp(`<path d="([^"]+)" fill="none" stroke="${color}"`).exec(svg)?.[1] ?? '';
  return [...d.matchAll(/([ML])([\d.]+),([\d.]+)/g)].map((m) => ({ move: m[1] === 'M', x: Number(m[2]), y: Number(m[3]) }));
}

describe('rank chart', () => {
  it('renders a PNG of the requested size with each series in its colour', () => {
    const series: RankPoint[][] = [days(14).map((date, i) => ({ date, position: 15 - i })), days(14).map((date, i) => ({ date, position: 40 + i }))];
    const img = decodePng(renderRankChart(series, { labels: ['running shoes', 'trail shoes'], width: 600, height: 300, title: 'Positions' }));
    assert.equal(img.width, 600);
    assert.equal(img.height, 300);
    assert.ok(distinctColours(img) > 50);
    assert.ok(pixelsNear(img, RANK_CHART_COLORS[0], 3) > 100);
    assert.ok(pixelsNear(img, RANK_CHART_COLORS[1], 3) > 100);
  });

  it('puts position 1 at the top and breaks the line where the keyword did not rank', () => {
    const [a, b, c, d] = days(4);
    const svg = rankChartSvg(
      [
        [
          { date: a, position: 1 },
          { date: b, position: 10 },
          { date: c, position: null },
          { date: d, position: 5 },
        ],
      ],
      { labels: ['kw'] },
    );
    const points = pathPoints(svg, RANK_CHART_COLORS[0]);
    assert.equal(points.length, 3);
    assert.ok(points[0].y < points[1].y, 'position 1 is drawn above position 10');
    assert.deepEqual(
      points.map((p) => p.move),
      [true, false, true],
      'the null day starts a new segment',
    );
    assert.ok(points[0].x < points[1].x && points[1].x < points[2].x, 'dates run left to right');
  });

  it('chooses the axis depth from the worst position shown, up to 100', () => {
    const ticks = (svg: string) => svg.includes('<use');
    const shallow = rankChartSvg(
      [
        [
          { date: '2026-11-01', position: 3 },
          { date: '2026-11-02', position: 8 },
        ],
      ],
      { labels: ['kw'] },
    );
    const deep = rankChartSvg(
      [
        [
          { date: '2026-11-01', position: 3 },
          { date: '2026-11-02', position: 87 },
        ],
      ],
      { labels: ['kw'] },
    );
    assert.ok(ticks(shallow) && ticks(deep));
    const ys = (svg: string) => pathPoints(svg, RANK_CHART_COLORS[0]).map((p) => p.y);
    // Position 3 sits lower on a 1–10 axis than on a 1–100 axis.
    assert.ok(ys(shallow)[0] > ys(deep)[0]);
  });

  it('renders an empty period, hostile labels and more series than colours', () => {
    const hostile = '<script>alert("x")</script> & ' + 'z'.repeat(2000) + ' مرحبا 🔥';
    const many = Array.from({ length: 12 }, (_, k) => days(5).map((date, i) => ({ date, position: k + i + 1 })));
    assert.ok(!rankChartSvg(many, { labels: many.map(() => hostile), title: hostile }).includes('script'));
    for (const series of [[], [[{ date: '2026-11-01', position: null }]], [[{ date: 'not a date', position: 4 }]], many]) {
      const img = decodePng(renderRankChart(series, { labels: [hostile] }));
      assert.equal(img.width, 640);
    }
  });
});
