/**
 * The tiny sandbox world for tests, built once per (seed, generator version) into
 * `.test-data/` and shared by every test file. Two test processes may ask at the same
 * time: each builds to a private temporary name and renames it into place (rename is
 * atomic and both builds are identical), so readers never see a half-built file.
 *
 * Tests open the file read-only or work on a copy (`copyTinyWorld`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildWorld, GENERATOR_VERSION } from '../../src/engine/world/buildWorld.js';

/** The fixed build date of test worlds (the FakeClock default: 2026-11-22 12:00 UTC). */
export const TINY_WORLD_AS_OF = Date.UTC(2026, 10, 22, 12, 0, 0);

const TEST_DATA_DIR = path.resolve(process.cwd(), '.test-data');
const pending = new Map<number, Promise<string>>();

export function tinyWorldFile(seed = 1): Promise<string> {
  let promise = pending.get(seed);
  if (!promise) {
    promise = build(seed);
    pending.set(seed, promise);
  }
  return promise;
}

async function build(seed: number): Promise<string> {
  const file = path.join(TEST_DATA_DIR, `world-tiny-s${seed}-v${GENERATOR_VERSION}.db`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(TEST_DATA_DIR, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await buildWorld({ size: 'tiny', seed, file: temporary, asOf: TINY_WORLD_AS_OF, computeHash: true });
    fs.renameSync(temporary, file);
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${temporary}${suffix}`, { force: true });
  }
  return file;
}

/** A private copy of the tiny world (for tests that write: imports, recomputation). */
export async function copyTinyWorld(seed = 1, directory?: string): Promise<string> {
  const source = await tinyWorldFile(seed);
  const dir = directory ?? fs.mkdtempSync(path.join(TEST_DATA_DIR, 'copy-'));
  const target = path.join(dir, 'research.db');
  fs.copyFileSync(source, target);
  return target;
}
