/**
 * Process roles (issue 13, item 3): `quarry serve --roles api,worker,scheduler` (all three
 * by default), `quarry worker` and `quarry scheduler` alone. An API-only process answers
 * but runs no export; a worker-only process beside it runs the export; one scheduler per
 * data directory; a bad role list is refused. Real processes on one data directory; the
 * waits are for the children. In `npm run test:slow`: five process starts take minutes on a
 * loaded machine.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { copyTinyWorld } from '../support/world.js';
import { runQuarry } from '../support/cli.js';
import { ExportState } from '../../src/jobs/exportJobs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Child {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

function quarry(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, QUARRY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('process roles', { timeout: 5 * 60_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  const children: Child[] = [];
  const start = (args: string[]) => {
    const c = quarry(args, env);
    children.push(c);
    return c;
  };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-roles-'));
    await copyTinyWorld(1, dataDir);
    env = { QUARRY_PORT: '0', QUARRY_HOST: '127.0.0.1', QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0' };
  });
  after(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exit));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a role list naming anything else is refused with the valid names', () => {
    const res = runQuarry(['serve', '--roles', 'api,web'], env);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /api, worker, scheduler/);
  });

  test('api alone answers and runs no export; a worker-only process beside it runs it; one scheduler per data directory', async () => {
    const api = start(['serve', '--roles', 'api']);
    const base = await until('the API to listen', () => /listening on (http:\/\/\S+)/.exec(api.output())?.[1]);
    assert.match(api.output(), /roles: api\b/);
    const key = fs.readFileSync(path.join(dataDir, 'demo-key.txt'), 'utf8').trim();
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}/v3${url}`, {
        method,
        headers: { 'x-access-token': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    assert.equal((await call('POST', '/link-tool/exports/suggest', { url: 'openpedia.org' })).status, 200);
    const created = await call('POST', '/link-tool/exports', { url: 'openpedia.org', limit: 100 });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const state = async () =>
      ((await call('GET', '/link-tool/exports')).json as { _id: string; state: number }[]).find((j) => j._id === created.json._id)!.state;
    // No worker in this process: the job waits (the embedded worker would finish it in well under this).
    await sleep(3_000);
    assert.equal(await state(), ExportState.Queued);

    // The scheduler alone: no socket, started beside the API; a second one is refused.
    const scheduler = start(['scheduler']);
    await until('the scheduler to start', () => (/Quarry is running \(scheduler\)/.test(scheduler.output()) ? true : undefined));
    const second = start(['serve', '--roles', 'scheduler,worker']);
    assert.equal(await second.exit, 2, second.output());
    assert.match(second.output(), /already runs the rank scheduler/);
    // A second API process is refused too, naming the scale mode.
    const secondApi = start(['serve', '--roles', 'api']);
    assert.equal(await secondApi.exit, 2, secondApi.output());
    assert.match(secondApi.output(), /scale mode/);

    const worker = start(['serve', '--roles', 'worker']);
    await until('the worker to run the export', async () => ((await state()) === ExportState.Done ? true : undefined));
    assert.match(worker.output(), /Quarry is running \(worker\)/);
    for (const c of [api, scheduler, worker]) {
      c.child.kill('SIGTERM');
      assert.equal(await c.exit, 0, c.output());
    }
  });
});
