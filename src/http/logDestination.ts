/**
 * Where the served log goes (serve.ts: stdout): lines are gathered in memory and written
 * together once 16 KiB have come, and whatever is gathered at least once a second and when the
 * process exits. A write per line was a system call on every request, the cheapest ones
 * included (issue 26: a paid cache hit against a bare route). Lost to a crash that skips the
 * exit handlers (SIGKILL, out of memory): at most the last second's lines.
 *
 * The writes themselves are sonic-boom's (pino's destination: partial writes, EAGAIN on a full
 * pipe), synchronous, so that a line is never written in two pieces around another writer's
 * output on the same descriptor (serve.ts writes its banner to stdout too). Lines are gathered
 * here rather than by its `minLength`, which measures its whole buffer again on every line.
 */
import { pino } from 'pino';

/**
 * Characters gathered before they are written: sonic-boom's largest single write (its maxWrite).
 * At 4 KiB (about 13 request lines) a line cost 0.5 µs to gather and write to /dev/null, at
 * 16 KiB 0.25–0.34 µs (load ~20): each write also measures and encodes its text twice.
 */
const GATHER_CHARS = 16 * 1024;
/** The longest a gathered line waits while the server is quiet. */
const FLUSH_EVERY_MS = 1000;

class GatheredLines implements pino.DestinationStream {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly out: pino.DestinationStream & { flushSync(): void }) {}

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= GATHER_CHARS) this.flushSync();
  }

  /** Writes what is gathered (pino's logger.flush() and pino.final call this). */
  flush(cb?: (err?: Error) => void): void {
    try {
      this.flushSync();
    } catch (err) {
      if (cb) return cb(err as Error);
      throw err;
    }
    cb?.();
  }

  flushSync(): void {
    if (this.chars === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.out.write(text);
  }
}

/** The log destination of `quarry serve`: `dest` a file descriptor or a path. */
export function gatheredLogDestination(dest: number | string): pino.DestinationStream {
  const lines = new GatheredLines(pino.destination({ dest, sync: true }));
  const flush = () => {
    try {
      lines.flushSync();
    } catch {
      // a closed descriptor: nothing can be written any more
    }
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  process.once('exit', flush);
  return lines;
}
