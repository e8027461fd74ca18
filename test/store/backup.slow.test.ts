/**
 * `quarry backup` under a write load (issue 13): a running `quarry serve` takes list writes
 * from concurrent clients while `quarry backup` copies its data directory; a service started
 * on the copy answers, holds every list acknowledged before the backup began, and takes
 * writes. Real processes; the waits are for the children.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { copyTinyWorld } from '../support/world.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Child {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

function quarry(args: string[], dataDir: string): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      QUARRY_LOG_LEVEL: 'warn',
      QUARRY_PORT: '0',
      QUARRY_HOST: '127.0.0.1',
      QUARRY_DATA_DIR: dataDir,
      QUARRY_GATEWAY_RPS: '0',
      QUARRY_FREE_WRITES_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function listening(c: Child): Promise<string> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const m = /listening on (http:\/\/\S+)/.exec(c.output());
    if (m) return m[1];
    if (c.child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${c.output()}`);
    await sleep(100);
  }
}

describe('quarry backup under a write load', { timeout: 10 * 60_000 }, () => {
  let root: string;
  const children: Child[] = [];
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-backup-load-'));
    fs.mkdirSync(path.join(root, 'data'));
    await copyTinyWorld(1, path.join(root, 'data'));
  });
  after(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exit));
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a backup taken while clients write restores to a working service with every list acknowledged before it began', async () => {
    const dataDir = path.join(root, 'data');
    const server = quarry(['serve'], dataDir);
    children.push(server);
    const base = await listening(server);
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
    children.push(backup);
    assert.equal(await backup.exit, 0, backup.output());
    const during = acknowledged.length - before.size;
    writing = false;
    await Promise.all(writers);
    assert.equal(failures, 0);
    assert.ok(during > 0, 'writes went on while the backup ran');
    assert.match(backup.output(), /backed up .* state\.db/);
    server.child.kill('SIGTERM');
    assert.equal(await server.exit, 0, server.output());

    const copy = path.join(root, 'copy');
    const db = new Database(path.join(copy, 'state.db'), { readonly: true });
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    const restored = quarry(['serve'], copy);
    children.push(restored);
    const origin = await listening(restored);
    const lists = (await (await fetch(`${origin}/v3/keyword-tool/lists`, { headers: { 'x-access-token': key } })).json()) as { name: string }[];
    const names = new Set(lists.map((l) => l.name));
    for (const name of before) assert.ok(names.has(name), `${name} was acknowledged before the backup began`);
    assert.ok(lists.length <= acknowledged.length + 4, 'nothing the clients did not send');
    assert.equal(await create(origin, 'after the restore'), 201);
    restored.child.kill('SIGTERM');
    assert.equal(await restored.exit, 0, restored.output());
  });
});
