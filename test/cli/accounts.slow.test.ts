/**
 * The operator CLI as operators run it: child processes of `quarry` against a temporary
 * data dir, checked through their output, their exit codes and the state store itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { closeStateContext, openStateContext, type StateContext } from '../../src/service.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { TEST_REDIS_URL, testRedis, testRedisPrefix } from '../support/redis.js';
import { runQuarry } from '../support/cli.js';
import { startQuarry } from '../support/processes.js';

let dataDir: string;
/** npm run test:scale: the commands' state store on a PostgreSQL database of this file's own, and Redis under a prefix of its own. */
let scaleEnv: Record<string, string> = {};
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;

function quarry(args: string[], env: Record<string, string> = {}) {
  return runQuarry(args, { QUARRY_DATA_DIR: dataDir, ...scaleEnv, ...env });
}

async function quarryAsync(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startQuarry(args, { env: { QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent', ...scaleEnv, ...env } });
  const { code } = await p.finished();
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Opens the CLI's state store in this process to check what the commands wrote. */
async function withStore<T>(fn: (ctx: StateContext) => Promise<T>): Promise<T> {
  const ctx = await openStateContext(loadConfig({ QUARRY_DATA_DIR: dataDir, ...scaleEnv }));
  try {
    return await fn(ctx);
  } finally {
    await closeStateContext(ctx);
  }
}

function apiKeyOf(stdout: string): string {
  const m = /^api key (\S+)$/m.exec(stdout);
  assert.ok(m, `an api key line in:\n${stdout}`);
  return m[1];
}

describe('quarry accounts | keys | plans', () => {
  let accountId: string;
  let firstKey: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-'));
    if (scaleMode) {
      database = await createTestDatabase();
      scaleEnv = { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: testRedisPrefix() };
    }
  });
  after(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (database) {
      await database.drop();
      const redis = await testRedis(scaleEnv.QUARRY_REDIS_PREFIX);
      await redis.dropKeys();
      await redis.close();
    }
  });

  test('accounts create prints the account and a key that works', async () => {
    const res = quarry(['accounts', 'create', '--email', 'Ops@Example.com', '--plan', 'agency']);
    assert.equal(res.code, 0, res.stderr);
    const m = /^account ([0-9a-f]{24}) \(ops@example\.com, plan agency\)$/m.exec(res.stdout);
    assert.ok(m, res.stdout);
    accountId = m[1];
    firstKey = apiKeyOf(res.stdout);
    const account = await withStore(async (ctx) => ctx.accounts.byKey(firstKey));
    assert.equal(account?.id, accountId);
    assert.equal(account?.plan, 'agency');
  });

  test('the key is stored only as a hash', async () => {
    if (database) {
      // Every row of every table, as text.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const tables = await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
        for (const { name } of tables.rows) {
          const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
          assert.equal(
            rows.rows.some((r) => r.row.includes(firstKey)),
            false,
            name,
          );
        }
      } finally {
        await client.end();
      }
      return;
    }
    const db = fs.readFileSync(path.join(dataDir, 'state.db'));
    const wal = fs.existsSync(path.join(dataDir, 'state.db-wal')) ? fs.readFileSync(path.join(dataDir, 'state.db-wal')) : Buffer.alloc(0);
    assert.equal(db.includes(firstKey), false);
    assert.equal(wal.includes(firstKey), false);
  });

  test('accounts list shows the account with its plan and key count', () => {
    const res = quarry(['accounts', 'list']);
    assert.equal(res.code, 0, res.stderr);
    const line = res.stdout.split('\n').find((l) => l.startsWith(accountId));
    assert.ok(line, res.stdout);
    assert.match(line, /ops@example\.com/);
    assert.match(line, /agency/);
    assert.match(line, /keys: 1/);
  });

  test('accounts set-plan moves the account, by id or by email', async () => {
    let res = quarry(['accounts', 'set-plan', accountId, 'basic']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, new RegExp(`account ${accountId} is now on plan basic`));
    res = quarry(['accounts', 'set-plan', 'OPS@example.com', 'premium']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal((await withStore(async (ctx) => ctx.accounts.byKey(firstKey)))?.plan, 'premium');
  });

  test('keys create adds a second working key; keys list shows prefixes only', async () => {
    const res = quarry(['keys', 'create', 'ops@example.com', '--label', 'ci runner']);
    assert.equal(res.code, 0, res.stderr);
    const second = apiKeyOf(res.stdout);
    assert.notEqual(second, firstKey);
    assert.equal((await withStore(async (ctx) => ctx.accounts.byKey(second)))?.id, accountId);

    const list = quarry(['keys', 'list', accountId]);
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.ok(lines.some((l) => l.includes('ci runner')));
    for (const l of lines) assert.match(l, /active/);
    assert.equal(list.stdout.includes(firstKey), false);
    assert.equal(list.stdout.includes(second), false);
  });

  test('keys revoke by the key itself: that key stops working, the other does not', async () => {
    const res = quarry(['keys', 'revoke', firstKey]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /key revoked/);
    await withStore(async (ctx) => {
      assert.equal(await ctx.accounts.byKey(firstKey), undefined);
      assert.equal((await ctx.accounts.listKeys(accountId)).filter((k) => k.revoked_at === null).length, 1);
    });
    assert.match(quarry(['keys', 'list', accountId]).stdout, /revoked/);
  });

  test('keys revoke by key id', async () => {
    const created = quarry(['keys', 'create', accountId]);
    const keyId = /^key ([0-9a-f]{24}) for account/m.exec(created.stdout)?.[1];
    assert.ok(keyId, created.stdout);
    const key = apiKeyOf(created.stdout);
    assert.equal(quarry(['keys', 'revoke', keyId]).code, 0);
    assert.equal(await withStore(async (ctx) => ctx.accounts.byKey(key)), undefined);
    // Revoking twice is an operator mistake, said in one line.
    const again = quarry(['keys', 'revoke', keyId]);
    assert.equal(again.code, 2);
    assert.equal(again.stderr.trim().split('\n').length, 1);
  });

  test('plans lists every plan with its pools and limits, and reads the plans file', async () => {
    const file = path.join(dataDir, 'plans.json');
    fs.writeFileSync(file, JSON.stringify({ internal: { pools: { serps: 9000 }, reqsPerShortPeriod: 20 } }));
    // Read-only commands, run side by side.
    const [res, withFile] = await Promise.all([quarryAsync(['plans']), quarryAsync(['plans'], { QUARRY_PLANS_FILE: file })]);
    assert.equal(res.code, 0, res.stderr);
    for (const name of ['entry', 'basic', 'premium', 'agency', 'api-pro', 'custom']) {
      assert.match(res.stdout, new RegExp(`^${name}: `, 'm'));
    }
    const premium = res.stdout.split('\n').find((l) => l.startsWith('premium:'))!;
    assert.match(premium, /serps=500 /);
    assert.match(premium, /sp-overview=70 /);
    assert.match(premium, /links=500000 /);
    assert.match(premium, /related-keywords-rows=700 /);
    assert.match(premium, /burst=3/);

    assert.equal(withFile.code, 0, withFile.stderr);
    const line = withFile.stdout.split('\n').find((l) => l.startsWith('internal:'));
    assert.ok(line, withFile.stdout);
    assert.match(line, /serps=9000 /);
    assert.match(line, /burst=20/);
  });

  const mistakes: [string, string[], Record<string, string>, RegExp][] = [
    ['an unknown plan on create', ['accounts', 'create', '--email', 'x@example.com', '--plan', 'gold'], {}, /unknown plan "gold"/],
    ['an unknown plan on set-plan', ['accounts', 'set-plan', 'ops@example.com', 'gold'], {}, /unknown plan "gold"/],
    ['a duplicate email', ['accounts', 'create', '--email', 'ops@example.com'], {}, /exists already/],
    ['a malformed email', ['accounts', 'create', '--email', 'not-an-email'], {}, /not an email address/],
    ['an unknown account', ['keys', 'create', 'nobody@example.com'], {}, /no account nobody@example\.com/],
    ['a bad configuration', ['accounts', 'list'], { QUARRY_PORT: 'eighty' }, /QUARRY_PORT must be an integer/],
    ['an unreadable plans file', ['plans'], { QUARRY_PLANS_FILE: '/nonexistent/plans.json' }, /cannot read plans file/],
  ];
  test('operator mistakes → exit code 2 with one clear line', async () => {
    // Independent of each other, so they run side by side: each is mostly process startup.
    const results = await Promise.all(mistakes.map(([, args, env]) => quarryAsync(args, env)));
    mistakes.forEach(([name, , , message], i) => {
      const res = results[i];
      assert.equal(res.code, 2, `${name}: ${res.stdout}${res.stderr}`);
      const lines = res.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${name}: ${res.stderr}`);
      assert.match(lines[0], /^quarry: /, name);
      assert.match(lines[0], message, name);
    });
  });

  test('an operator mistake changes nothing', async () => {
    const count = await withStore(async (ctx) => ctx.accounts.count());
    assert.equal(count, 1);
    assert.equal((await withStore(async (ctx) => ctx.accounts.find('ops@example.com')))?.plan, 'premium');
  });
});
