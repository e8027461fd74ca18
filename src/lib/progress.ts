/**
 * Progress of long CLI work (building the sandbox web, loading it at start, imports) on
 * stderr, so that stdout stays clean for what the command prints.
 *
 * The work it reports is mostly synchronous (a world build blocks the event loop for
 * seconds at a time), so nothing here waits for a timer: every call draws, at most every
 * `REDRAW_MS`. On a terminal the current stage is a bar redrawn in place, with its rate and
 * the time left, and each finished stage stays as one line; without one (CI, logs, pipes)
 * each stage prints one line when it ends, with its count, duration and rate.
 *
 * A stage whose name ends in "(bytes)" counts bytes and is shown in MB.
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
  /** Milliseconds since some origin; defaults to the monotonic performance clock. */
  now?: () => number;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 30;
const STAGE_WIDTH = 20;

interface StageState {
  name: string;
  bytes: boolean;
  started: number;
  done: number;
  total: number;
}

function amount(value: number, bytes: boolean): string {
  return bytes ? `${(value / 1e6).toFixed(1)} MB` : Math.round(value).toLocaleString('en-US');
}

function rateText(state: StageState, now: number): string {
  const rate = state.done / Math.max(1e-3, (now - state.started) / 1000);
  return state.bytes ? `${(rate / 1e6).toFixed(1)} MB/s` : `${rate >= 100 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1)}/s`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function progressBars(options: ProgressOptions = {}): ProgressPrinter {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? stream.isTTY === true;
  const now = options.now ?? (() => performance.now());
  let current: StageState | null = null;
  let lastDraw = -Infinity;

  const bar = (state: StageState, t: number, finished: boolean) => {
    const fraction = finished ? 1 : Math.min(1, state.done / Math.max(1, state.total));
    const filled = Math.round(fraction * BAR_WIDTH);
    const counts = state.total > 1 ? ` ${amount(finished ? state.total : state.done, state.bytes)}/${amount(state.total, state.bytes)}` : '';
    const rate = state.total > 1 ? ` ${rateText(state, t)}` : '';
    const left = !finished && fraction > 0 && fraction < 1 ? ` ETA ${seconds(((t - state.started) * (1 - fraction)) / fraction)}` : '';
    return ` ${state.name.padEnd(STAGE_WIDTH)} |${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}| ${String(Math.floor(fraction * 100)).padStart(3)}%${counts}${rate} ${seconds(t - state.started)}${left}`;
  };
  const draw = (force: boolean) => {
    const t = now();
    if (!tty || current === null || (!force && t - lastDraw < REDRAW_MS)) return;
    lastDraw = t;
    stream.write(`\r\x1b[K${bar(current, t, false)}`);
  };
  /** Closes a stage: on a terminal its bar is left full; elsewhere its one line. */
  const finish = (state: StageState) => {
    const t = now();
    if (tty) {
      state.done = Math.max(state.done, state.total);
      stream.write(`\r\x1b[K${bar(state, t, true)}\n`);
      return;
    }
    if (state.total <= 1) {
      stream.write(` ${state.name} in ${seconds(t - state.started)}\n`);
      return;
    }
    // A stage that ended is complete (its last report may be from the start of its last batch).
    state.done = Math.max(state.done, state.total);
    stream.write(
      ` ${state.name}: ${amount(state.done, state.bytes)} of ${amount(state.total, state.bytes)} in ${seconds(t - state.started)} (${rateText(state, t)})\n`,
    );
  };

  return {
    listener(stage, done, total) {
      const name = stage.replace(/\s*\(bytes\)$/, '');
      if (current === null || current.name !== name) {
        // Stages run one after another: a new stage means the earlier one is done.
        if (current) finish(current);
        current = { name, bytes: /\(bytes\)$/.test(stage), started: now(), done, total };
        draw(true);
        return;
      }
      current.done = done;
      current.total = total;
      draw(false);
    },
    stop() {
      if (current) finish(current);
      current = null;
    },
  };
}
