/**
 * `quarry backup DIR` (store/backup.ts): what it copies and what it refuses. The copy under a
 * write load from other processes, restored to a running service: backup.slow.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { closeContext, createContext, ensureDemoAccount } from '../../src/service.js';
import { backupDataDir, BackupError } from '../../src/store/backup.js';
import { copyTinyWorld } from '../support/world.js';

let root: string;
let dataDir: string;

describe('quarry backup', () => {
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-backup-'));
    dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    await copyTinyWorld(1, dataDir);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('copies every database, the secret and the exports, owner-only, without WAL or lock files; a service runs on the copy', async () => {
    const config = loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0', QUARRY_FREE_WRITES_PER_MINUTE: '0' });
    const ctx = await createContext(config);
    const key = await ensureDemoAccount(ctx);
    const app = await buildApp(ctx);
    const headers = { 'x-access-token': key! };
    const made = await app.inject({ method: 'POST', url: '/v3/keyword-tool/lists', headers, payload: { name: 'kept', keyword_ids: [] } });
    assert.equal(made.statusCode, 201);
    fs.mkdirSync(path.join(dataDir, 'exports'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'exports', 'a.csv'), 'x\n');
    fs.writeFileSync(path.join(dataDir, 'serve.lock'), '');
    // Taken while the service holds its connections open (WAL files present).
    const target = path.join(root, 'copy');
    const report = await backupDataDir(dataDir, target);
    await app.close();
    await closeContext(ctx);
    assert.deepEqual(report.databases.map((d) => d.name).sort(), ['research.db', 'state.db']);
    const names = fs.readdirSync(target).sort();
    assert.ok(names.includes('exports') && !names.some((n) => /-wal$|-shm$|\.lock$/.test(n)), names.join(' '));
    assert.equal(fs.readFileSync(path.join(target, 'exports', 'a.csv'), 'utf8'), 'x\n');
    assert.equal(fs.statSync(target).mode & 0o777, 0o700);
    for (const n of names) if (fs.statSync(path.join(target, n)).isFile()) assert.equal(fs.statSync(path.join(target, n)).mode & 0o777, 0o600, n);
    const check = new Database(path.join(target, 'state.db'), { readonly: true });
    assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
    check.close();

    // A service on the copy: the same key, the same list.
    const restored = await createContext(loadConfig({ QUARRY_DATA_DIR: target, QUARRY_GATEWAY_RPS: '0' }));
    const app2 = await buildApp(restored);
    const lists = await app2.inject({ method: 'GET', url: '/v3/keyword-tool/lists', headers });
    assert.equal(lists.statusCode, 200);
    assert.deepEqual(
      lists.json().map((l: { name: string }) => l.name),
      ['kept'],
    );
    await app2.close();
    await closeContext(restored);

    const without = await backupDataDir(dataDir, path.join(root, 'without'), { withoutExports: true });
    assert.ok(!fs.existsSync(path.join(root, 'without', 'exports')));
    assert.equal(without.databases.length, 2);
  });

  test('refuses: a target that is not empty, inside the data directory, a file; a missing or non-Quarry source', async () => {
    const full = path.join(root, 'full');
    fs.mkdirSync(full);
    fs.writeFileSync(path.join(full, 'x'), '');
    const file = path.join(root, 'file');
    fs.writeFileSync(file, '');
    const empty = path.join(root, 'empty-source');
    fs.mkdirSync(empty);
    const cases: [string, string, RegExp][] = [
      [dataDir, full, /not an empty directory/],
      [dataDir, file, /not an empty directory/],
      [dataDir, dataDir, /outside the data directory/],
      [dataDir, path.join(dataDir, 'sub'), /outside the data directory/],
      [path.join(root, 'nope'), path.join(root, 'n1'), /no data directory/],
      [empty, path.join(root, 'n2'), /no SQLite database/],
    ];
    for (const [source, target, message] of cases) {
      await assert.rejects(backupDataDir(source, target), (err: unknown) => err instanceof BackupError && message.test(err.message), `${source} → ${target}`);
    }
    assert.deepEqual(fs.readdirSync(full), ['x'], 'nothing written into a non-empty target');
  });
});
