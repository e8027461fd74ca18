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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { copyTinyWorld } from '../support/world.js';
import { runQuarry } from '../support/cli.js';
import { freePort, Processes, until } from '../support/processes.js';
import { ExportState } from '../../src/jobs/exportJobs.js';

describe('process roles', { timeout: 5 * 60_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  const processes = new Processes();
  const start = (args: string[]) => processes.start(args, { env });

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-roles-'));
    await copyTinyWorld(1, dataDir);
    env = { QUARRY_PORT: '0', QUARRY_HOST: '127.0.0.1', QUARRY_DATA_DIR: dataDir, QUARRY_GATEWAY_RPS: '0' };
  });
  after(async () => {
    await processes.killAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a role list naming anything else is refused with the valid names', () => {
    const res = runQuarry(['serve', '--roles', 'api,web'], env);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /api, worker, scheduler/);
  });

  test('api alone answers and runs no export; a worker-only process beside it runs it; one scheduler per data directory', async () => {
    const api = start(['serve', '--roles', 'api']);
    const base = await api.ready();
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
    // With a metrics port: no API port, so its own metrics are served there.
    const metricsPort = await freePort();
    const scheduler = processes.start(['scheduler'], { env: { ...env, QUARRY_METRICS_PORT: String(metricsPort) } });
    await scheduler.waitFor(/Quarry is running \(scheduler\)/, 'the scheduler to start');
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(metrics, /^quarry_jobs\{state="queued"\} 1$/m, 'the shared queue, seen from the scheduler');
    assert.match(metrics, /^# TYPE quarry_rank_checks_total counter$/m);
    const second = start(['serve', '--roles', 'scheduler,worker']);
    assert.equal((await second.exit).code, 2, second.output());
    assert.match(second.output(), /already runs the rank scheduler/);
    // A second API process is refused too, naming the scale mode.
    const secondApi = start(['serve', '--roles', 'api']);
    assert.equal((await secondApi.exit).code, 2, secondApi.output());
    assert.match(secondApi.output(), /scale mode/);

    const worker = start(['serve', '--roles', 'worker']);
    await until('the worker to run the export', async () => ((await state()) === ExportState.Done ? true : undefined));
    assert.match(worker.output(), /Quarry is running \(worker\)/);
    for (const c of [api, scheduler, worker]) assert.equal((await c.stop()).code, 0, c.output());
  });
});
