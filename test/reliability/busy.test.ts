/**
 * "database is locked" never reaches a client as a 500 (issue 12, item 4): when another
 * process holds the state store's write lock past the API's busy timeout, a free write and a
 * paid lookup answer 503 ServiceUnavailable with retry_after, write and charge nothing, and
 * their retry once the lock is free succeeds. The lock is held by a second connection to the
 * app's state file, as `quarry worker` or the CLI would hold it; the wait is SQLite's own
 * busy timeout (API_BUSY_TIMEOUT_MS), so this file takes about ten seconds.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { API_BUSY_TIMEOUT_MS, BACKGROUND_BUSY_TIMEOUT_MS, isSqliteBusy } from '../../src/store/database.js';
import { testApp, type TestApp } from '../support/app.js';
import { embeddedOnly } from '../support/postgres.js';

describe('a state store locked by another process', { skip: embeddedOnly("SQLite's write lock and busy timeout") }, () => {
  let dir: string;
  let t: TestApp;
  let other: SqliteDatabase.Database;
  let key: string;
  let accountId: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-busy-'));
    t = await testApp({ dataDir: dir });
    ({ key, id: accountId } = await t.account('premium'));
    other = new SqliteDatabase(path.join(dir, 'state.db'));
  });
  after(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const send = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { 'x-access-token': key }, ...(payload ? { payload } : {}) });

  test('background processes wait longer than the API', () => {
    assert.ok(BACKGROUND_BUSY_TIMEOUT_MS >= 10 * API_BUSY_TIMEOUT_MS);
    assert.equal(isSqliteBusy(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })), true);
    assert.equal(isSqliteBusy(new Error('other')), false);
  });

  test('writes past the busy timeout answer 503 with retry_after, write and charge nothing; the retry succeeds', async () => {
    const remaining = async () => (await send('GET', '/v3/keyword-tool/limits')).json().resources.serps.remaining as number;
    const before = await remaining();
    other.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    const [list, serp] = await Promise.all([
      send('POST', '/v3/keyword-tool/lists', { name: 'locked out', keyword_ids: [] }),
      send('GET', '/v3/serp-tool/serps?kw=hiking%20boots&location_id=2840'),
    ]);
    assert.ok(Date.now() - started >= API_BUSY_TIMEOUT_MS - 100, 'SQLite waited its busy timeout first');
    for (const res of [list, serp]) {
      assert.equal(res.statusCode, 503, res.body);
      assert.deepEqual(Object.keys(res.json().error).sort(), ['message', 'retry_after', 'type']);
      assert.equal(res.json().error.type, 'ServiceUnavailable');
      assert.equal(res.json().error.retry_after, 1);
      assert.equal(res.headers['retry-after'], '1');
    }
    other.exec('ROLLBACK');
    assert.equal(await remaining(), before, 'nothing charged');
    const lists = await send('GET', '/v3/keyword-tool/lists');
    assert.deepEqual(lists.json(), [], 'nothing written');
    assert.equal((await send('POST', '/v3/keyword-tool/lists', { name: 'locked out', keyword_ids: [] })).statusCode, 201);
    const retried = await send('GET', '/v3/serp-tool/serps?kw=hiking%20boots&location_id=2840');
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(await remaining(), before - 1);
    assert.ok(accountId);
  });
});
