/**
 * Progress of long CLI work (building the sandbox web, imports) on stderr, so that stdout
 * stays clean for what the command prints. On a terminal: cli-progress bars, one per
 * stage, with the rate and the time left. Elsewhere (CI, logs, pipes): one line per stage
 * when it ends, with its count, duration and rate, instead of redrawn bars.
 *
 * A stage whose name ends in "(bytes)" counts bytes and is shown in MB.
 */
import cliProgress from 'cli-progress';

export type ProgressListener = (stage: string, done: number, total: number) => void;

export interface ProgressPrinter {
  listener: ProgressListener;
  stop(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds since some origin; defaults to the monotonic performance clock. */
  now?: () => number;
}

interface StageState {
  name: string;
  bytes: boolean;
  started: number;
  done: number;
  total: number;
  bar?: cliProgress.SingleBar;
}

function amount(value: number, bytes: boolean): string {
  return bytes ? `${(value / 1e6).toFixed(1)} MB` : String(Math.round(value));
}

function rateText(state: StageState, now: number): string {
  const seconds = Math.max(1e-3, (now - state.started) / 1000);
  const rate = state.done / seconds;
  return bytesOr(state.bytes, rate);
}

function bytesOr(bytes: boolean, rate: number): string {
  return bytes ? `${(rate / 1e6).toFixed(1)} MB/s` : `${rate >= 100 ? Math.round(rate) : rate.toFixed(1)}/s`;
}

export function progressBars(options: ProgressOptions = {}): ProgressPrinter {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  const tty = stream.isTTY === true;
  const multi = tty
    ? new cliProgress.MultiBar(
        {
          stream: stream as NodeJS.WriteStream,
          format: ' {stage} |{bar}| {percentage}% | {shown} | {rate} | ETA {eta_formatted}',
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const stages = new Map<string, StageState>();
  let current: StageState | null = null;
  const finish = (state: StageState) => {
    if (multi && state.bar) {
      state.bar.update(state.bar.getTotal(), {
        shown: `${amount(state.total, state.bytes)}/${amount(state.total, state.bytes)}`,
        rate: rateText(state, now()),
      });
      return;
    }
    const seconds = (now() - state.started) / 1000;
    stream.write(
      ` ${state.name}: ${amount(state.done, state.bytes)}${state.total > 0 ? ` of ${amount(state.total, state.bytes)}` : ''} in ${seconds.toFixed(1)} s (${rateText(state, now())})\n`,
    );
  };
  return {
    listener(stage, done, total) {
      let state = stages.get(stage);
      if (!state) {
        // Stages run one after another: a new stage means the earlier one is done.
        if (current) finish(current);
        state = { name: stage.replace(/\s*\(bytes\)$/, ''), bytes: /\(bytes\)$/.test(stage), started: now(), done: 0, total: 0 };
        if (multi) state.bar = multi.create(Math.max(1, total), 0, { stage: state.name.padEnd(18), shown: '', rate: '' });
        stages.set(stage, state);
        current = state;
      }
      state.done = done;
      state.total = total;
      if (state.bar) {
        state.bar.setTotal(Math.max(1, total));
        state.bar.update(Math.min(done, Math.max(1, total)), {
          stage: state.name.padEnd(18),
          shown: `${amount(done, state.bytes)}/${amount(total, state.bytes)}`,
          rate: rateText(state, now()),
        });
      }
    },
    stop() {
      if (current) finish(current);
      current = null;
      multi?.stop();
    },
  };
}
