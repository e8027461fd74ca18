/**
 * On SQLite a write transaction never holds the one connection across a turn of the event
 * loop (issue 28): the state store is one better-sqlite3 connection, and Kysely lends it to a
 * transaction until its commit, so a transaction that awaited anything but its own statements
 * (a timer, a file, a provider) would keep every other request's queries waiting meanwhile.
 * Kysely's SQLite driver resolves each statement at once, so a transaction of statements alone
 * runs from BEGIN to COMMIT without giving the event loop back: another request's reader waits
 * only for the transaction's own work, never between its statements.
 *
 * Checked from the outside while the writes of the tools run through the API (lists of many
 * ids created, extended, shrunk, deleted; trackings created; a paid lookup's commit): a
 * watcher that runs on every turn of the event loop must never find the connection inside a
 * transaction, and a reader sent while a list of 10,000 ids is created is answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sqliteOf } from '../../src/store/database.js';
import { testApp, type TestApp } from '../support/app.js';
import { embeddedOnly } from '../support/postgres.js';
import { client, pace, q, type KeywordClient } from '../tools/keyword/helpers.js';
import { rankClient, trackingBody } from '../tools/rank/helpers.js';

/** Watches every turn of the event loop until stopped: how many turns ran, and how many found a transaction open. */
function watchTurns(inTransaction: () => boolean): { stop(): { turns: number; insideTransaction: number } } {
  let turns = 0;
  let insideTransaction = 0;
  let running = true;
  const turn = () => {
    turns += 1;
    if (inTransaction()) insideTransaction += 1;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop() {
      running = false;
      return { turns, insideTransaction };
    },
  };
}

describe('a write transaction on SQLite and the event loop', { skip: embeddedOnly('the one better-sqlite3 connection of the embedded state store') }, () => {
  let t: TestApp;
  let c: KeywordClient;
  let ids: string[];

  before(async () => {
    t = await testApp();
    c = client(t, (await t.account('premium')).key);
    // Issued ids (a list keeps only those): the related keywords of a few seeds (tens on the tiny world).
    const found = new Set<string>();
    for (const kw of ['coffee beans', 'hiking boots', 'running shoes', 'tent']) {
      pace(t);
      const res = await c.get(`/related-keywords?${q({ kw, location_id: 2840 })}`);
      assert.equal(res.statusCode, 200, res.body);
      for (const k of res.json().keywords as { _id: string }[]) found.add(k._id);
    }
    ids = [...found];
    assert.ok(ids.length >= 50, `${ids.length} issued ids`);
  });
  after(async () => t.close());

  test('no turn of the event loop finds the connection inside a transaction while the tools write', async () => {
    const raw = sqliteOf(t.ctx.state);
    const watcher = watchTurns(() => raw.inTransaction);
    // A list as large as a request may send: the ids issued, repeated with ids never issued up to 10,000.
    const many = [...ids, ...Array.from({ length: 10_000 - ids.length }, (_, i) => `unknown-${i}`)];
    const reader = client(t, (await t.account('premium')).key);
    const [created, read] = await Promise.all([c.post('/lists', { name: 'many', keyword_ids: many }), reader.get('/lists')]);
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(read.statusCode, 200, read.body);
    const listId = created.json()._id as string;
    pace(t);
    const writes = await Promise.all([
      c.post(`/lists/${listId}/keywords`, { keyword_ids: ids.slice(0, 50) }),
      c.del(`/lists/${listId}/keywords`, { keyword_ids: ids.slice(0, 60) }),
      c.post('/lists', { name: 'second', keyword_ids: ids }),
      c.get(`/related-keywords?${q({ kw: 'camping stove', location_id: 2840 })}`),
    ]);
    for (const res of writes) assert.ok(res.statusCode < 300, `${res.statusCode} ${res.body}`);
    assert.equal((await c.del(`/lists/${listId}`)).statusCode, 204);
    const rank = await rankClient(t);
    const tracking = await rank.post('/trackings', trackingBody({ keywords: ['tent', 'hiking boots', 'camping stove'] }));
    assert.equal(tracking.statusCode, 201, tracking.body);
    const { turns, insideTransaction } = watcher.stop();
    assert.ok(turns > 0, 'the watcher ran');
    assert.equal(insideTransaction, 0, `${insideTransaction} of ${turns} turns found a write transaction holding the connection`);
  });
});
