/**
 * A real `quarry serve` child process on a data dir that starts from a copy of the tiny
 * test world (no world build), on a port picked here so that its public URL (signed
 * download links) is the address it listens on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyTinyWorld } from './world.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STARTUP_TIMEOUT_MS = 120_000;

export interface ServeProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  origin: string;
  dataDir: string;
  env: Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface StartServeOptions {
  /** Arguments after `serve`, e.g. ['--roles', 'api']. */
  args?: readonly string[];
}

export async function startServe(env: Record<string, string> = {}, options: StartServeOptions = {}): Promise<ServeProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-serve-'));
  await copyTinyWorld(1, dataDir);
  const port = await freePort();
  const fullEnv = {
    QUARRY_PORT: String(port),
    QUARRY_HOST: '127.0.0.1',
    QUARRY_DATA_DIR: dataDir,
    QUARRY_WORLD_SIZE: 'tiny',
    QUARRY_LOG_LEVEL: 'warn',
    ...env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`quarry serve exited with ${child.exitCode}:\n${out}`);
    const res = await fetch(`${origin}/healthz`).catch(() => null);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`quarry serve did not become healthy:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    child,
    origin,
    dataDir,
    env: fullEnv,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
