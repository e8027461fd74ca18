/**
 * One SQLite data directory, several processes (issue 12, item 4): `quarry serve`,
 * `quarry worker` and CLI-like writers at once give no `database is locked` (every
 * read-then-write transaction takes the write lock at BEGIN and waits its turn), and a
 * second `quarry serve` on the same directory is refused at start, pointing at the scale
 * mode. Real processes on a real socket; short real waits are for the children.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyTinyWorld } from '../support/world.js';
import { type Exit, Processes, type QuarryProcess, STARTUP_TIMEOUT_MS } from '../support/processes.js';
import { embeddedOnly } from '../support/postgres.js';

const processes = new Processes();

function spawnQuarry(args: string[], dataDir: string, extraEnv: Record<string, string> = {}, script?: string): QuarryProcess {
  return processes.start(args, {
    script,
    env: {
      QUARRY_PORT: '0',
      QUARRY_HOST: '127.0.0.1',
      QUARRY_DATA_DIR: dataDir,
      QUARRY_WORLD_SIZE: 'tiny',
      QUARRY_GATEWAY_RPS: '0',
      ...extraEnv,
    },
  });
}

/**
 * The exit of a process that must be refused at start. Bounded: it fails as soon as the
 * process listens (it started, which is the bug: it would otherwise run until killed), and
 * `finished` kills it past the startup timeout whatever it does.
 */
async function refusedAtStart(p: QuarryProcess): Promise<Exit> {
  const started = p.waitFor(/listening on/, 'listening').then(
    () => 'started' as const,
    () => p.exit,
  );
  const outcome: Exit | 'started' = await Promise.race([p.finished(STARTUP_TIMEOUT_MS), started]);
  if (outcome === 'started') {
    await p.kill();
    assert.fail(`it started instead of being refused:\n${p.output()}`);
  }
  return outcome;
}

describe('several processes on one data directory', { timeout: 10 * 60_000, skip: embeddedOnly('a SQLite data directory') }, () => {
  let dataDir: string;
  let server: QuarryProcess;
  let base: string;
  let key: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-processes-'));
    // A ready world in place: the server starts without building one.
    await copyTinyWorld(1, dataDir);
    server = spawnQuarry(['serve'], dataDir, { QUARRY_FREE_WRITES_PER_MINUTE: '0' });
    base = `${await server.ready()}/v3`;
    key = fs.readFileSync(path.join(dataDir, 'demo-key.txt'), 'utf8').trim();
  });
  after(async () => {
    await processes.killAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a second `quarry serve` on the same data directory is refused at start, naming the scale mode', async () => {
    const second = spawnQuarry(['serve'], dataDir);
    const { code } = await refusedAtStart(second);
    assert.equal(code, 2, second.output());
    assert.match(second.output(), /another `quarry serve` is already running on the data directory/);
    assert.match(second.output(), /quarry worker/);
    assert.match(second.output(), /scale mode/);
    // The first one still answers.
    const res = await fetch(`${base}/keyword-tool/limits`, { headers: { 'x-access-token': key } });
    assert.equal(res.status, 200);
  });

  test('the data directory and its databases are readable by their owner only', () => {
    assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
    for (const file of ['state.db', 'research.db', 'demo-key.txt', 'serve.lock']) {
      assert.equal(fs.statSync(path.join(dataDir, file)).mode & 0o777, 0o600, file);
    }
  });

  test('deleting serve.lock and scheduler.lock does not let a second server or scheduler start: the lock is held by the process', async () => {
    // Before the kernel lock, a second serve locked a new serve.lock and started (issue 28).
    fs.rmSync(path.join(dataDir, 'serve.lock'));
    fs.rmSync(path.join(dataDir, 'scheduler.lock'));
    const second = spawnQuarry(['serve'], dataDir);
    assert.equal((await refusedAtStart(second)).code, 2, second.output());
    assert.match(second.output(), /another `quarry serve` is already running on the data directory/);
    // The same directory by another path (a symlink) is the same lock.
    const alias = `${dataDir}-alias`;
    fs.symlinkSync(dataDir, alias);
    try {
      const scheduler = spawnQuarry(['serve', '--roles', 'scheduler'], alias);
      assert.equal((await refusedAtStart(scheduler)).code, 2, scheduler.output());
      assert.match(scheduler.output(), /another process already runs the rank scheduler/);
    } finally {
      fs.rmSync(alias);
    }
    const res = await fetch(`${base}/keyword-tool/limits`, { headers: { 'x-access-token': key } });
    assert.equal(res.status, 200);
  });

  test('serve + quarry worker + a CLI writer: 10,000 writes at once, 0 errors', async () => {
    const headers = { 'x-access-token': key, 'content-type': 'application/json' };
    const accountId = (
      (await (await fetch(`${base}/keyword-tool/lists`, { method: 'POST', headers, body: JSON.stringify({ name: 'probe', keyword_ids: ['x'] }) })).json()) as {
        user_id: string;
      }
    ).user_id;
    const worker = spawnQuarry(['worker', '--poll-interval', '20'], dataDir);
    const writer = spawnQuarry([JSON.stringify({ accountId, ops: 4_000 })], dataDir, {}, 'test/reliability/fixtures/stateWriter.ts');

    // Exports keep the worker writing (claims, stages, progress, completions) meanwhile.
    const exportsMade: string[] = [];
    const exportsDriver = (async () => {
      const suggest = await fetch(`${base}/link-tool/exports/suggest`, { method: 'POST', headers, body: JSON.stringify({ url: 'learnhub.com' }) });
      assert.equal(suggest.status, 200);
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${base}/link-tool/exports`, { method: 'POST', headers, body: JSON.stringify({ url: 'learnhub.com', limit: 1000 + i }) });
        if (res.status === 200) exportsMade.push(((await res.json()) as { _id: string })._id);
        else if (res.status !== 429) assert.fail(`export creation answered ${res.status}: ${await res.text()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    // List writes through the server, eight at a time.
    const failures: string[] = [];
    let httpWrites = 0;
    const HTTP_WRITES = 6_000;
    let next = 0;
    const lane = async () => {
      const mine: string[] = [];
      while (next < HTTP_WRITES) {
        const i = next++;
        let res: Response;
        if (i % 3 === 2 && mine.length > 0) {
          res = await fetch(`${base}/keyword-tool/lists/${mine.pop()}`, { method: 'DELETE', headers: { 'x-access-token': key } });
        } else if (i % 3 === 1 && mine.length > 0) {
          res = await fetch(`${base}/keyword-tool/lists/${mine[mine.length - 1]}/keywords`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ keyword_ids: [`k${i}`] }),
          });
        } else {
          res = await fetch(`${base}/keyword-tool/lists`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `list ${i}`, keyword_ids: [`a${i}`, `b${i}`] }),
          });
          if (res.status === 201) mine.push(((await res.clone().json()) as { _id: string })._id);
        }
        const body = await res.text();
        if (res.status >= 300) failures.push(`${res.status} ${body.slice(0, 200)}`);
        httpWrites++;
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
    await exportsDriver;
    const writerExit = await writer.exit;
    assert.equal(writerExit.code, 0, writer.output());
    const written = JSON.parse(writer.output().trim().split('\n').pop()!) as { done: number; errors: number; messages: string[] };

    // Every export the worker took finishes.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const jobs = (await (await fetch(`${base}/link-tool/exports`, { headers: { 'x-access-token': key } })).json()) as { _id: string; state: number }[];
      const states = exportsMade.map((id) => jobs.find((j) => j._id === id)?.state);
      if (states.every((s) => s === 600)) break;
      if (Date.now() > deadline) assert.fail(`exports not completed: ${JSON.stringify(states)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await worker.stop();

    assert.deepEqual(failures, [], `HTTP writes refused or failed: ${failures.length}`);
    assert.deepEqual(written.messages, []);
    assert.equal(written.errors, 0);
    assert.ok(exportsMade.length >= 3, `exports created: ${exportsMade.length}`);
    assert.ok(httpWrites + written.done >= 10_000, `${httpWrites} + ${written.done} writes`);
    assert.doesNotMatch(worker.output() + server.output(), /database is locked/);
  });
});
