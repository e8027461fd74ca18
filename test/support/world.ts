/**
 * The sandbox worlds for tests (tiny for `npm test`; small for the slow suites), built once
 * per (size, seed, generator version) into `.test-data/` and shared by every test file. Two test processes may ask at the same
 * time: each builds to a private temporary name and renames it into place (rename is
 * atomic and both builds are identical), so readers never see a half-built file.
 *
 * Tests open the file read-only or work on a copy (`copyTinyWorld`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildWorld, GENERATOR_VERSION } from '../../src/engine/world/buildWorld.js';
import { buildEmptyWorld } from '../../src/engine/world/emptyWorld.js';
import type { WorldSize } from '../../src/config.js';

/** The fixed build date of test worlds (the FakeClock default: 2026-11-22 12:00 UTC). */
export const TINY_WORLD_AS_OF = Date.UTC(2026, 10, 22, 12, 0, 0);

const TEST_DATA_DIR = path.resolve(process.cwd(), '.test-data');
const pending = new Map<string, Promise<string>>();

export function tinyWorldFile(seed = 1): Promise<string> {
  return worldFile('tiny', seed);
}

/** A test world's file (the small one takes a minute or more to build the first time). */
export function worldFile(size: WorldSize, seed = 1): Promise<string> {
  const key = `${size}:${seed}`;
  let promise = pending.get(key);
  if (!promise) {
    promise = build(size, seed);
    pending.set(key, promise);
  }
  return promise;
}

async function build(size: WorldSize, seed: number): Promise<string> {
  const file = path.join(TEST_DATA_DIR, `world-${size}-s${seed}-v${GENERATOR_VERSION}.db`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(TEST_DATA_DIR, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // The content hash is a full read: tests compare it on the tiny world only.
    await buildWorld({ size, seed, file: temporary, asOf: TINY_WORLD_AS_OF, computeHash: size === 'tiny' });
    fs.renameSync(temporary, file);
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${temporary}${suffix}`, { force: true });
  }
  return file;
}

/** A private copy of the tiny world (for tests that write: imports, recomputation). */
export function copyTinyWorld(seed = 1, directory?: string): Promise<string> {
  return copyWorld('tiny', seed, directory);
}

/** A private copy of a test world. */
export async function copyWorld(size: WorldSize, seed = 1, directory?: string): Promise<string> {
  const source = await worldFile(size, seed);
  const dir = directory ?? fs.mkdtempSync(path.join(TEST_DATA_DIR, 'copy-'));
  const target = path.join(dir, 'research.db');
  fs.copyFileSync(source, target);
  return target;
}

/** A new research store of QUARRY_WORLD_SIZE=none (no sandbox web) in a directory of its own. */
export async function emptyWorldFile(): Promise<string> {
  fs.mkdirSync(TEST_DATA_DIR, { recursive: true });
  const target = path.join(fs.mkdtempSync(path.join(TEST_DATA_DIR, 'empty-')), 'research.db');
  await buildEmptyWorld({ file: target, asOf: TINY_WORLD_AS_OF });
  return target;
}
