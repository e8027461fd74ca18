/**
 * Progress of long CLI work (building the sandbox web, loading it at start, imports) on
 * stderr, so that stdout stays clean for what the command prints.
 *
 * The work it reports is mostly synchronous (a world build blocks the event loop for
 * seconds at a time), so nothing here waits for a timer: every call draws, at most every
 * `REDRAW_MS`. On a terminal the current stage is a bar redrawn in place and each finished
 * stage stays as one line with its time; without one (CI, logs, a service manager) each
 * stage prints one line when it starts and the whole run one line when it stops.
 *
 * @example
 * const progress = progressBars();
 * await buildWorld({ ..., onProgress: progress.listener });
 * progress.stop();
 */

export type ProgressListener = (stage: string, done: number, total: number) => void;

export interface ProgressPrinter {
  listener: ProgressListener;
  stop(): void;
}

export interface ProgressOptions {
  /** Where to draw (default process.stderr). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Redraw as bars (default: whether the stream is a terminal). */
  tty?: boolean;
  /** Milliseconds since some origin (tests inject one). */
  now?: () => number;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 30;
const STAGE_WIDTH = 20;

export function progressBars(options: ProgressOptions = {}): ProgressPrinter {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? stream.isTTY === true;
  const now = options.now ?? (() => performance.now());
  const started = now();
  let stage: string | undefined;
  let stageStarted = started;
  let lastDraw = -Infinity;
  let done = 0;
  let total = 1;

  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const line = (fraction: number) => {
    const filled = Math.round(fraction * BAR_WIDTH);
    const counts = total > 1 ? ` ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}` : '';
    return ` ${(stage ?? '').padEnd(STAGE_WIDTH)} |${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}| ${String(Math.floor(fraction * 100)).padStart(3)}%${counts}`;
  };
  const draw = (force: boolean) => {
    const t = now();
    if (!tty || (!force && t - lastDraw < REDRAW_MS)) return;
    lastDraw = t;
    stream.write(`\r\x1b[K${line(Math.min(1, done / Math.max(1, total)))} ${seconds(t - stageStarted)}`);
  };
  /** Closes the current stage: on a terminal its bar is left full, with the time it took. */
  const finishStage = () => {
    if (stage === undefined || !tty) return;
    done = total;
    stream.write(`\r\x1b[K${line(1)} ${seconds(now() - stageStarted)}\n`);
  };

  return {
    listener(next, nextDone, nextTotal) {
      if (next !== stage) {
        // Stages run one after another: a new stage means the earlier one is done.
        finishStage();
        stage = next;
        stageStarted = now();
        if (!tty) {
          const size = nextTotal > 1 ? ` (${nextTotal.toLocaleString('en-US')})` : '';
          stream.write(`  [${seconds(stageStarted - started).padStart(7)}] ${next}${size}\n`);
        }
        done = nextDone;
        total = Math.max(1, nextTotal);
        draw(true);
        return;
      }
      done = nextDone;
      total = Math.max(1, nextTotal);
      draw(false);
    },
    stop() {
      finishStage();
      stage = undefined;
    },
  };
}
