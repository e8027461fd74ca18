/**
 * Progress of long CLI work (building the sandbox web, imports) as cli-progress bars, one
 * per stage, on stderr so that stdout stays clean for what the command prints.
 */
import cliProgress from 'cli-progress';

export type ProgressListener = (stage: string, done: number, total: number) => void;

export interface ProgressPrinter {
  listener: ProgressListener;
  stop(): void;
}

export function progressBars(): ProgressPrinter {
  const multi = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      format: ' {stage} |{bar}| {percentage}% | {value}/{total}',
      hideCursor: true,
      clearOnComplete: false,
      // Without a terminal (CI, logs) print plain lines now and then instead of redrawing.
      noTTYOutput: !process.stderr.isTTY,
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    listener(stage, done, total) {
      let bar = bars.get(stage);
      if (!bar) {
        // Stages run one after another: a new stage means the earlier ones are done.
        for (const earlier of bars.values()) earlier.update(earlier.getTotal());
        bar = multi.create(Math.max(1, total), 0, { stage: stage.padEnd(18) });
        bars.set(stage, bar);
      }
      bar.setTotal(Math.max(1, total));
      bar.update(Math.min(done, Math.max(1, total)), { stage: stage.padEnd(18) });
    },
    stop() {
      multi.stop();
    },
  };
}
