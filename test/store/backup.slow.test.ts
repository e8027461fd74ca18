/**
 * `quarry backup` under a write load (issue 13): a running `quarry serve` takes list writes
 * from concurrent clients while `quarry backup` copies its data directory; a service started
 * on the copy answers, holds every list acknowledged before the backup began, and takes
 * writes. Real processes; the waits are for the children.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { copyTinyWorld } from '../support/world.js';
import { Processes } from '../support/processes.js';

const processes = new Processes();

function quarry(args: string[], dataDir: string) {
  return processes.start(args, {
    env: {
      QUARRY_PORT: '0',
      QUARRY_HOST: '127.0.0.1',
      QUARRY_DATA_DIR: dataDir,
      QUARRY_GATEWAY_RPS: '0',
      QUARRY_FREE_WRITES_PER_MINUTE: '0',
    },
  });
}

describe('quarry backup under a write load', { timeout: 10 * 60_000 }, () => {
  let root: string;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-backup-load-'));
    fs.mkdirSync(path.join(root, 'data'));
    await copyTinyWorld(1, path.join(root, 'data'));
  });
  after(async () => {
    await processes.killAll();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a backup taken while clients write restores to a working service with every list acknowledged before it began', async () => {
    const dataDir = path.join(root, 'data');
    const server = quarry(['serve'], dataDir);
    const base = await server.ready();
    const key = fs.readFileSync(path.join(dataDir, 'demo-key.txt'), 'utf8').trim();
    const create = async (origin: string, name: string) =>
      (
        await fetch(`${origin}/v3/keyword-tool/lists`, {
          method: 'POST',
          headers: { 'x-access-token': key, 'content-type': 'application/json' },
          body: JSON.stringify({ name, keyword_ids: [] }),
        })
      ).status;
    // Four clients writing lists until told to stop.
    const acknowledged: string[] = [];
    let writing = true;
    let failures = 0;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const name = `w${w}-${i}`;
        if ((await create(base, name)) === 201) acknowledged.push(name);
        else failures++;
      }
    });
    while (acknowledged.length < 50) await sleep(20);
    const before = new Set(acknowledged);
    const backup = quarry(['backup', path.join(root, 'copy')], dataDir);
    assert.equal((await backup.finished()).code, 0, backup.output());
    const during = acknowledged.length - before.size;
    writing = false;
    await Promise.all(writers);
    assert.equal(failures, 0);
    assert.ok(during > 0, 'writes went on while the backup ran');
    assert.match(backup.output(), /backed up .* state\.db/);
    assert.equal((await server.stop()).code, 0, server.output());

    const copy = path.join(root, 'copy');
    const db = new Database(path.join(copy, 'state.db'), { readonly: true });
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    const restored = quarry(['serve'], copy);
    const origin = await restored.ready();
    const lists = (await (await fetch(`${origin}/v3/keyword-tool/lists`, { headers: { 'x-access-token': key } })).json()) as { name: string }[];
    const names = new Set(lists.map((l) => l.name));
    for (const name of before) assert.ok(names.has(name), `${name} was acknowledged before the backup began`);
    assert.ok(lists.length <= acknowledged.length + 4, 'nothing the clients did not send');
    assert.equal(await create(origin, 'after the restore'), 201);
    assert.equal((await restored.stop()).code, 0, restored.output());
  });
});
