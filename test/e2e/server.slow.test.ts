/**
 * The real thing: `quarry serve` as a child process on a free port and a fresh data dir,
 * called over a real socket with fetch, stopped with SIGTERM, started again on the same
 * data dir.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startQuarry, STARTUP_TIMEOUT_MS, type QuarryProcess } from '../support/processes.js';

interface Server {
  process: QuarryProcess;
  base: string;
  output: () => string;
}

/** The first start builds the tiny sandbox web and ranks its default market before it reports ready. */
async function startServer(dataDir: string): Promise<Server> {
  const child = startQuarry(['serve'], {
    env: {
      QUARRY_PORT: '0',
      QUARRY_HOST: '127.0.0.1',
      QUARRY_DATA_DIR: dataDir,
      QUARRY_WORLD_SIZE: 'tiny',
      // The gateway has its own tests; here the health polling must not trip it.
      QUARRY_GATEWAY_RPS: '100',
    },
  });
  const base = await child.ready();
  return { process: child, base, output: child.output };
}

async function stopServer(server: Server): Promise<number | null> {
  return (await server.process.stop()).code;
}

describe('quarry serve', { timeout: 4 * STARTUP_TIMEOUT_MS }, () => {
  let dataDir: string;
  let server: Server | undefined;
  let key: string;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-e2e-'));
  });
  after(async () => {
    await server?.process.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('first start: prints its address, writes the demo key with mode 0600, becomes healthy', async () => {
    server = await startServer(dataDir);
    assert.match(server.output(), /Quarry is serving the Research API v3 at /);
    const file = path.join(dataDir, 'demo-key.txt');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    key = fs.readFileSync(file, 'utf8').trim();
    assert.match(key, /^\S{20,}$/);
    // The key is in its file only, never on the output stream (the log).
    assert.ok(!server.output().includes(key));
    assert.match(server.output(), /demo account created; its API key is in /);
  });

  test('limits, trends and a location over a real socket', async () => {
    const headers = { 'x-access-token': key };
    const limits = await fetch(`${server!.base}/v3/keyword-tool/limits`, { headers });
    assert.equal(limits.status, 200);
    assert.match(limits.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await limits.json()) as any;
    assert.equal(body.plan, 'premium');
    assert.equal(body.resources.serps.limit, 500);

    const trends = await fetch(`${server!.base}/v3/keyword-tool/trends?kw=e2e%20check`, { headers });
    assert.equal(trends.status, 200);
    const t = (await trends.json()) as any;
    assert.deepEqual(t.data, []);
    assert.ok(Number.isInteger(t.created_at));

    const loc = await fetch(`${server!.base}/v3/shared/locations/2840`, { headers });
    assert.equal(loc.status, 200);
    assert.equal(((await loc.json()) as any).engine_domain, 'google.com');

    const anonymous = await fetch(`${server!.base}/v3/shared/locations/2840`);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });

    const after = (await (await fetch(`${server!.base}/v3/keyword-tool/limits`, { headers })).json()) as any;
    assert.equal(after.resources.trends.remaining, 499);
  });

  test('SIGTERM stops it with exit code 0', async () => {
    assert.equal(await stopServer(server!), 0);
  });

  test('a restart on the same data dir keeps the key, the charge and the cache', async () => {
    server = await startServer(dataDir);
    assert.ok(!server.output().includes(key), 'the key is not shown again');
    const headers = { 'x-access-token': key };
    const limits = (await (await fetch(`${server.base}/v3/keyword-tool/limits`, { headers })).json()) as any;
    assert.equal(limits.resources.trends.remaining, 499);
    const again = await fetch(`${server.base}/v3/keyword-tool/trends?kw=e2e%20check`, { headers });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-cache'), 'HIT');
    assert.equal(await stopServer(server), 0);
  });
});
