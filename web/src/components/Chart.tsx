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

export function Chart({ x, series, height = 220, title }: { x: number[]; series: ChartSeries[]; height?: number; title: string }) {
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
            scales: { x: { time: true }, y: inverted ? { dir: -1 } : {} },
            series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: x.length < 60 } }))],
            axes: [{}, { label: inverted ? 'position' : undefined }],
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
  }, [JSON.stringify(x), JSON.stringify(series), height]);
  if (failed) return <div class="state problem">The chart could not be drawn: {failed}</div>;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" data-points={x.length} />
    </figure>
  );
}
