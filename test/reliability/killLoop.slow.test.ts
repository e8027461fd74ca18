/**
 * No charge without an answer (issue 12, item 3): `quarry serve` killed with SIGKILL at a
 * random point of a keyword import or of an export creation, 20 times in a row, then
 * started again. After each kill the client's identical retry answers 200 (no cooldown it
 * never used, no second job), and the account ends charged exactly once for the pair: a
 * charge admitted by a server that died before answering is released at the next start,
 * and an export's charge, job and cached answer commit together or not at all.
 * Real processes on a real socket; the waits are for the children.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config.js';
import { unixSeconds } from '../../src/lib/clock.js';
import { openStateContext } from '../../src/service.js';
import { copyTinyWorld } from '../support/world.js';
import { Processes, type QuarryProcess } from '../support/processes.js';

const KILLS = 20;
const processes = new Processes();

interface Server {
  process: QuarryProcess;
  base: string;
}

/** A restart loads the research engine and builds the app: past 90 s at load average 19 on 2 cores. */
async function startServer(dataDir: string): Promise<Server> {
  const p = processes.start(['serve'], {
    env: { QUARRY_PORT: '0', QUARRY_HOST: '127.0.0.1', QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent', QUARRY_GATEWAY_RPS: '0' },
  });
  return { process: p, base: `${(await p.waitFor(/listening on (http:\/\/\S+)/, 'the server to listen'))[1]}/v3` };
}

const json = { 'content-type': 'application/json' };

describe('kill -9 during paid requests', { timeout: 20 * 60_000 }, () => {
  let dataDir: string;
  let server: Server;
  const keys: string[] = [];

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-kills-'));
    await copyTinyWorld(1, dataDir);
    const ctx = await openStateContext(loadConfig({ QUARRY_DATA_DIR: dataDir }));
    for (let i = 0; i <= KILLS; i++) {
      const account = await ctx.accounts.create(`kill${i}@example.test`, 'premium', unixSeconds(Date.now()));
      keys.push((await ctx.accounts.createKey(account.id, unixSeconds(Date.now()))).key);
    }
    await ctx.state.close();
    server = await startServer(dataDir);
  });
  after(async () => {
    await processes.killAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (key: string, method: string, url: string, body?: unknown) =>
    fetch(`${server.base}${url}`, { method, headers: { 'x-access-token': key, ...(body ? json : {}) }, body: body ? JSON.stringify(body) : undefined });
  const remaining = async (key: string, pool: string): Promise<number> =>
    ((await (await call(key, 'GET', '/keyword-tool/limits')).json()) as { resources: Record<string, { remaining: number }> }).resources[pool].remaining;
  const importBody = (i: number) => ({ keywords: Array.from({ length: 700 }, (_, j) => `kill round ${i} keyword ${j}`), location_id: 2840, language_id: 1000 });
  const exportBody = { url: 'openpedia.org', limit: 5000 };

  test(`${KILLS} kills at random points of imports and export creations: every retry answers 200, every account is charged once`, async () => {
    // How long each request takes on this machine, so that kills land inside it.
    const warm = keys[KILLS];
    let started = Date.now();
    assert.equal((await call(warm, 'POST', '/keyword-tool/keyword-imports', importBody(-1))).status, 200);
    const importMs = Date.now() - started;
    assert.equal((await call(warm, 'POST', '/link-tool/exports/suggest', { url: exportBody.url })).status, 200);
    started = Date.now();
    assert.equal((await call(warm, 'POST', '/link-tool/exports', exportBody)).status, 200);
    const exportMs = Date.now() - started;

    const outcomes: string[] = [];
    for (let i = 0; i < KILLS; i++) {
      const key = keys[i];
      const isImport = i % 2 === 0;
      const pool = isImport ? 'related-keywords' : 'links';
      if (!isImport) assert.equal((await call(key, 'POST', '/link-tool/exports/suggest', { url: exportBody.url })).status, 200);
      const before = await remaining(key, pool);
      const send = () => (isImport ? call(key, 'POST', '/keyword-tool/keyword-imports', importBody(i)) : call(key, 'POST', '/link-tool/exports', exportBody));
      const first = send().then(
        async (res) => ({ status: res.status, body: await res.text().catch((err: Error) => `unread: ${err.message}`) }),
        (err: Error) => ({ status: 0, body: `no answer: ${err.message} ${String((err.cause as Error | undefined)?.message)}` }),
      );
      const delay = Math.random() * 1.5 * (isImport ? importMs : exportMs);
      await new Promise((r) => setTimeout(r, delay));
      await server.process.kill();
      const answered = await first;
      // Whether the dead server had committed the request: its in-flight record is gone then.
      const state = new Database(path.join(dataDir, 'state.db'), { readonly: true });
      const inFlight = (state.prepare('SELECT COUNT(*) AS n FROM inflight_charges').get() as { n: number }).n;
      state.close();
      server = await startServer(dataDir);

      let jobId: string | undefined;
      if (answered?.status === 200) {
        outcomes.push(`${i}: answered before the kill`);
        if (!isImport) jobId = (JSON.parse(answered.body) as { _id: string })._id;
      } else if (inFlight === 0 && isImport && (await remaining(key, pool)) === before - 1) {
        // Committed, then killed before the client read the answer (a window of a few
        // milliseconds). The identical retry within the cooldown it started gets that answer
        // again, free; the charge is the committed answer's, made once.
        const retry = await send();
        assert.equal(retry.status, 200, `round ${i}: ${await retry.text()}`);
        outcomes.push(`${i}: committed, answer lost in transit, replayed`);
      } else {
        const retry = await send();
        const body = await retry.text();
        assert.equal(
          retry.status,
          200,
          `round ${i} (${isImport ? 'import' : 'export'}, kill after ${delay.toFixed(0)} ms of ${isImport ? importMs : exportMs}; first: ${answered?.status} ${answered?.body.slice(0, 120)}): retry answered ${body}`,
        );
        outcomes.push(`${i}: retried${retry.headers.get('x-cache') === 'HIT' ? ' (cached)' : ''}`);
        if (!isImport) jobId = (JSON.parse(body) as { _id: string })._id;
      }
      const cost = isImport ? 1 : exportBody.limit;
      assert.equal(await remaining(key, pool), before - cost, `round ${i}: charged once (${outcomes[outcomes.length - 1]})`);
      if (!isImport) {
        const jobs = (await (await call(key, 'GET', '/link-tool/exports')).json()) as { _id: string }[];
        assert.deepEqual(
          jobs.map((j) => j._id),
          [jobId],
          `round ${i}: one job, the one answered`,
        );
      }
    }
    // Kills landed on both sides of the answer, and at least some before it.
    assert.ok(
      outcomes.some((o) => o.includes('retried')),
      outcomes.join('; '),
    );
  });
});
