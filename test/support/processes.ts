/**
 * Real `quarry` child processes for the tests that need them (serve, worker, scheduler,
 * backup, fixture scripts): started from the repository root through tsx, output collected,
 * waited on until they are ready, killed or stopped. One helper, so that every process test
 * starts, watches and ends its children the same way. The waits here are real: they are for
 * the children, never for time-based rules (those use the FakeClock).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * How long a child may take to become ready: a `quarry serve` loads the research engine
 * first (and builds the tiny world on a first start), which took minutes on a 2-core
 * machine at load average 20.
 */
export const STARTUP_TIMEOUT_MS = 180_000;
/** How long a child has to exit after SIGTERM before it is killed. */
export const STOP_TIMEOUT_MS = 15_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  /** On top of this process's environment and QUARRY_LOG_LEVEL=warn. */
  env?: Record<string, string>;
  /** The script run with these arguments: src/main.ts (the `quarry` command) unless given (relative to the repository root, or absolute). */
  script?: string;
  /** Node's own options, before the script (`--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: readonly string[];
}

export interface QuarryProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Settles when the process ends, however it ends. */
  exit: Promise<Exit>;
  /** Waits until the output matches, or fails with the output if the process ends or time runs out. */
  waitFor(pattern: RegExp, what?: string, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The origin a `serve` with the api role prints (`listening on http://…`), once /healthz answers 200. */
  ready(timeoutMs?: number): Promise<string>;
  /** Waits for the process to end by itself; kills it and fails if it runs longer than `timeoutMs`. */
  finished(timeoutMs?: number): Promise<Exit>;
  /** kill -9 (or another signal) and its exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
  /** SIGTERM, then SIGKILL if it has not exited within STOP_TIMEOUT_MS (which fails the caller). */
  stop(): Promise<Exit>;
}

export function startQuarry(args: readonly string[], options: StartOptions = {}): QuarryProcess {
  const script = options.script ?? 'src/main.ts';
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, QUARRY_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    out += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
    stderr += d;
  });
  // 'close', not 'exit': by then everything the child wrote has been read into the output.
  const exit = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const describe = () => `${[script, ...args].join(' ')}`.slice(0, 200);

  const waitFor = async (pattern: RegExp, what = String(pattern), timeoutMs = STARTUP_TIMEOUT_MS) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = pattern.exec(out);
      if (m) return m;
      if (ended()) throw new Error(`${describe()} ended (code ${child.exitCode}, signal ${child.signalCode}) before ${what}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`${describe()}: timed out waiting for ${what}:\n${out}`);
      await sleep(100);
    }
  };

  const proc: QuarryProcess = {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    waitFor,
    async ready(timeoutMs = STARTUP_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      const origin = (await waitFor(/listening on (http:\/\/\S+)/, 'listening', timeoutMs))[1];
      for (;;) {
        const res = await fetch(`${origin}/healthz`).catch(() => null);
        if (res?.status === 200) return origin;
        if (ended()) throw new Error(`${describe()} ended before /healthz answered:\n${out}`);
        if (Date.now() > deadline) throw new Error(`${describe()}: /healthz never answered 200:\n${out}`);
        await sleep(200);
      }
    },
    async finished(timeoutMs = STARTUP_TIMEOUT_MS) {
      const timeout = sleep(timeoutMs, 'timeout' as const, { ref: false });
      const result = await Promise.race([exit, timeout]);
      if (result !== 'timeout') return result;
      child.kill('SIGKILL');
      throw new Error(`${describe()} did not exit within ${timeoutMs} ms:\n${out}`);
    },
    async kill(signal = 'SIGKILL') {
      if (!ended()) child.kill(signal);
      return exit;
    },
    async stop() {
      if (ended()) return exit;
      child.kill('SIGTERM');
      const timeout = sleep(STOP_TIMEOUT_MS, 'timeout' as const, { ref: false });
      const result = await Promise.race([exit, timeout]);
      if (result === 'timeout') {
        child.kill('SIGKILL');
        throw new Error(`${describe()} did not stop within ${STOP_TIMEOUT_MS} ms after SIGTERM:\n${out}`);
      }
      return result;
    },
  };
  return proc;
}

/**
 * The children of one test file: started through here, all killed at the end (a failed
 * assertion must not leave a server running that keeps the test runner waiting).
 */
export class Processes {
  private readonly all: QuarryProcess[] = [];

  start(args: readonly string[], options: StartOptions = {}): QuarryProcess {
    const p = startQuarry(args, options);
    this.all.push(p);
    return p;
  }

  /** kill -9 of every child still running, and their exits. */
  async killAll(): Promise<void> {
    await Promise.all(this.all.map((p) => p.kill('SIGKILL')));
  }
}

/** A port free at the time of asking, for a server whose public URL must be its address. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns something other than undefined. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
