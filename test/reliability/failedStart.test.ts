/**
 * A start that fails partway leaves nothing open (issue 28): createContext opens the state
 * store, then Redis, then the research data; when a later step fails, what the earlier ones
 * opened is closed before the failure is thrown. Left open, ioredis's reconnect timers (and
 * on PostgreSQL the pool's sockets) kept the process alive for ever: a test runner hung 47 min.
 *
 * Each case runs the start in a process of its own (fixtures/failedStart.ts), which prints
 * the failure and does nothing more: it must exit by itself. The bound is not a timing rule,
 * only how long a process that will never exit is waited for. Redis is a port nothing
 * listens on; under npm run test:scale the state store is a fresh PostgreSQL database.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { freePort } from '../support/processes.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';

/** A process that never exits is given up on after this long (a loaded 2-core machine takes ~40 s to start one). */
const NEVER_MS = 180_000;

/** Runs the fixture; its output and exit code, or `hung` when it did not exit by itself. */
function runFailedStart(
  env: Record<string, string>,
  role: 'context' | 'worker',
  researchFile: string,
): Promise<{ out: string; code: number | null; hung: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/reliability/fixtures/failedStart.ts'), role, researchFile], {
      env: { ...process.env, QUARRY_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let hung = false;
    child.stdout.on('data', (d) => (out += d));
    const giveUp = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, NEVER_MS);
    child.once('close', (code) => {
      clearTimeout(giveUp);
      resolve({ out, code, hung });
    });
  });
}

describe('a start that fails partway', { concurrency: true }, () => {
  let dir: string;
  let database: { url: string; drop(): Promise<void> } | null = null;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-failed-start-'));
    if (scaleMode) database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A data directory of the case's own: the cases run at once, and starts migrating one SQLite
   * file side by side raced ("table already exists"). PostgreSQL's migrations take a lock.
   */
  const stateEnv = (name: string) => {
    const dataDir = path.join(dir, name);
    fs.mkdirSync(dataDir);
    return { QUARRY_DATA_DIR: dataDir, ...(database ? { QUARRY_DATABASE_URL: database.url } : {}) };
  };

  for (const role of ['context', 'worker'] as const) {
    test(`${role === 'context' ? 'createContext' : 'createWorkerContext'}: Redis refusing once the state store is open, the process still exits`, async () => {
      const env = { ...stateEnv(role), QUARRY_REDIS_URL: `redis://127.0.0.1:${await freePort()}` };
      const run = await runFailedStart(env, role, path.join(dir, 'research.db'));
      assert.equal(run.hung, false, `the process did not exit: ${run.out}`);
      assert.match(run.out, /failed: .*ECONNREFUSED/);
      assert.equal(run.code, 0);
    });
  }

  test('createContext: a research store that cannot be opened, after the state store and Redis, the process still exits', async () => {
    const research = path.join(dir, 'not-a-store.db');
    fs.writeFileSync(research, 'this is not a database');
    const env = { ...stateEnv('research'), QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: testRedisPrefix() };
    const run = await runFailedStart(env, 'context', research);
    assert.equal(run.hung, false, `the process did not exit: ${run.out}`);
    assert.match(run.out, /failed: /);
    assert.equal(run.code, 0);
  });
});
