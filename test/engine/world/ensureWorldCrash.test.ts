/**
 * A first start's build killed half-way leaves nothing a restart would trust: the store is
 * built without a journal on disk under a temporary name (world/storeFile.ts), so the next start finds
 * no research.db, deletes the dead build's file and builds the full world again.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWorld, isWorldReady, researchStoreFile } from '../../../src/engine/index.js';
import { contentHash } from '../../../src/engine/world/contentHash.js';
import { buildingFile, removeAbandonedBuilds } from '../../../src/engine/world/storeFile.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { Processes } from '../../support/processes.js';
import { tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';

const processes = new Processes();
after(() => processes.killAll());

const fixture = fileURLToPath(new URL('./fixtures/ensureWorld.ts', import.meta.url));

test('a build killed while it writes the links leaves no store; the next start builds the full world', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-crash-'));
  try {
    const file = researchStoreFile(dataDir);
    const build = processes.start([dataDir], { script: fixture });
    await build.waitFor(/stage write links/, 'the links being written');
    const exit = await build.kill('SIGKILL');
    assert.equal(exit.signal, 'SIGKILL', build.output());
    assert.ok(!build.output().includes('built'), 'killed before the build ended');
    const left = fs.readdirSync(dataDir);
    assert.ok(
      left.some((name) => name.startsWith('research.db.building-')),
      `the dead build's file is there (${left.join(', ')})`,
    );
    assert.ok(!fs.existsSync(file), 'no research.db');
    assert.equal(isWorldReady(file), false);

    const built = await ensureWorld({ dataDir, size: 'tiny', seed: 1, clock: new FakeClock(TINY_WORLD_AS_OF) });
    assert.ok(built, 'built again');
    assert.ok(isWorldReady(file));
    assert.deepEqual(
      fs.readdirSync(dataDir).filter((name) => name.includes('building')),
      [],
      'the dead build was removed',
    );
    assert.equal(contentHash(file), contentHash(await tinyWorldFile(1)), 'the full world, as every build makes it');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a running process's build is left alone; a dead one's goes, with what SQLite kept beside it", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-builds-'));
  try {
    const file = researchStoreFile(dataDir);
    // A process that has ended: its id names no running process (short of reuse, in an instant).
    const dead = spawnSync(process.execPath, ['-e', 'process.pid'], { stdio: 'ignore' }).pid!;
    const names = [buildingFile(file, dead), `${buildingFile(file, dead)}-journal`, buildingFile(file, process.ppid), `${file}.other`, file];
    for (const name of names) fs.writeFileSync(name, '');
    const removed = removeAbandonedBuilds(file);
    assert.deepEqual(removed.sort(), [path.basename(buildingFile(file, dead)), `${path.basename(buildingFile(file, dead))}-journal`].sort());
    assert.deepEqual(
      fs.readdirSync(dataDir).sort(),
      [path.basename(file), `${path.basename(file)}.other`, path.basename(buildingFile(file, process.ppid))].sort(),
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
