/**
 * A real `quarry serve` child process on a data dir that starts from a copy of the tiny
 * test world (no world build), or empty in real mode (`world: 'none'`, QUARRY_WORLD_SIZE=none:
 * a research store holding the sandbox web is refused there), on a port picked here so that
 * its public URL (signed download links) is the address it listens on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyTinyWorld } from './world.js';
import { freePort, startQuarry, type QuarryProcess } from './processes.js';

export interface ServeProcess {
  process: QuarryProcess;
  child: QuarryProcess['child'];
  /** http://127.0.0.1:<port> */
  origin: string;
  dataDir: string;
  env: Record<string, string>;
  output(): string;
  /** SIGTERM (kill -9 if it hangs) and the data dir removed. */
  stop(): Promise<void>;
}

export interface StartServeOptions {
  /** Arguments after `serve`, e.g. ['--roles', 'api']. */
  args?: readonly string[];
  /** `none`: real mode, an empty data dir and QUARRY_WORLD_SIZE=none (default `tiny`). */
  world?: 'tiny' | 'none';
}

export async function startServe(env: Record<string, string> = {}, options: StartServeOptions = {}): Promise<ServeProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-serve-'));
  const world = options.world ?? 'tiny';
  if (world === 'tiny') await copyTinyWorld(1, dataDir);
  const port = await freePort();
  const fullEnv = {
    QUARRY_PORT: String(port),
    QUARRY_HOST: '127.0.0.1',
    QUARRY_DATA_DIR: dataDir,
    QUARRY_WORLD_SIZE: world,
    ...env,
  };
  const child = startQuarry(['serve', ...(options.args ?? [])], { env: fullEnv });
  try {
    await child.ready();
  } catch (err) {
    await child.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    process: child,
    child: child.child,
    origin: `http://127.0.0.1:${port}`,
    dataDir,
    env: fullEnv,
    output: child.output,
    async stop() {
      try {
        await child.stop();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
