/**
 * A line chart with uPlot, loaded on first use so that pages without charts do not pay for it.
 * `x` are Unix seconds; each series is one line (null leaves a gap).
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** Positions: 1 is best, so the axis runs downward. */
  inverted?: boolean;
}

/** A dated note drawn as a vertical line across the chart (a tracking's annotations). */
export interface ChartMark {
  x: number;
  label: string;
}

export function Chart({
  x,
  series,
  height = 220,
  title,
  marks = [],
}: {
  x: number[];
  series: ChartSeries[];
  height?: number;
  title: string;
  marks?: ChartMark[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let plot: { destroy(): void } | null = null;
    let cancelled = false;
    Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')])
      .then(([{ default: UPlot }]) => {
        if (cancelled || !box.current) return;
        const inverted = series.some((s) => s.inverted);
        plot = new UPlot(
          {
            width: Math.max(320, box.current.clientWidth || 640),
            height,
            // One day alone would stretch the time axis over years: show the week around it.
            scales: { x: x.length === 1 ? { time: true, range: [x[0] - 3 * 86400, x[0] + 3 * 86400] } : { time: true }, y: inverted ? { dir: -1 } : {} },
            series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: x.length < 60 } }))],
            axes: [{}, { label: inverted ? 'position' : undefined }],
            hooks: {
              draw: [
                (u: { ctx: CanvasRenderingContext2D; bbox: { top: number; height: number }; valToPos(v: number, scale: string, canvas: boolean): number }) => {
                  if (marks.length === 0) return;
                  const { ctx } = u;
                  ctx.save();
                  ctx.strokeStyle = '#f59e0b';
                  ctx.setLineDash([4, 4]);
                  ctx.lineWidth = 1.5 * devicePixelRatio;
                  for (const m of marks) {
                    const px = Math.round(u.valToPos(m.x, 'x', true));
                    ctx.beginPath();
                    ctx.moveTo(px, u.bbox.top);
                    ctx.lineTo(px, u.bbox.top + u.bbox.height);
                    ctx.stroke();
                  }
                  ctx.restore();
                },
              ],
            },
          },
          [x, ...series.map((s) => s.values)] as unknown as [number[], ...(number | null)[][]],
          box.current,
        );
      })
      .catch((err: unknown) => setFailed(String(err)));
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [JSON.stringify(x), JSON.stringify(series), JSON.stringify(marks), height]);
  if (failed) return <div class="state problem">The chart could not be drawn: {failed}</div>;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" data-points={x.length} />
      {marks.length > 0 && (
        <ul class="chart-marks">
          {marks.map((m) => (
            <li key={`${m.x}-${m.label}`}>
              <time>{new Date(m.x * 1000).toISOString().slice(0, 10)}</time> {m.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
