/**
 * No connection waits on itself: 200 concurrent writes of every kind on one API process on
 * PostgreSQL and Redis, with the state store's pool at its default size (10). Before the fix,
 * a rank check's save held a transaction while asking the pool for a second connection (to
 * record the snapshot lookups); 30 tracking creations at once took every connection that
 * way and the process hung for good, its connections `idle in transaction`.
 *
 * Every request must answer (a write, or 503 ServiceUnavailable with retry_after when the pool
 * stays exhausted), every first check must be written, and no connection of the test's
 * database may be left idle in a transaction. Runs on PostgreSQL whatever the mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { rankServices } from '../../src/rank/rankService.js';
import { testApp, type TestApp } from '../support/app.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../support/postgres.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';
import type { Res } from '../support/requests.js';

/** 10 writes per account at once: under the cap of 16 requests in flight per account (issue 28), which answers 429 past it. */
const ACCOUNTS = 20;
const WRITES = 200;
/** Past this the process is taken for hung: the writes answer in seconds when nothing waits on itself. */
const DEADLINE_MS = 90_000;

/** `promise`, or a failure once DEADLINE_MS have passed (the process hung). */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the process hung: ${what} within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

interface Fixture {
  key: string;
  trackingId: string;
  listId: string;
}

describe('scale mode: 200 concurrent writes of every kind on one process, pool at its default size', () => {
  let t: TestApp;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const accounts: Fixture[] = [];
  let linkIds: string[] = [];
  let keywordIds: string[] = [];

  const send = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url: `/v3${url}`, headers: { 'x-access-token': key }, ...(payload ? { payload } : {}) });

  before(
    async () => {
      database = await createTestDatabase();
      t = await testApp({
        env: { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: testRedisPrefix() },
      });
      assert.equal(t.ctx.state.dialect, 'postgres');
      assert.equal((t.ctx.state as { pool: pg.Pool }).pool.options.max, 10, 'the pool at its default size');
      for (let i = 0; i < ACCOUNTS; i++) {
        const { key } = await t.account('premium');
        const tracking = await send(key, 'POST', '/rank-tool/trackings', {
          domain: `setup${i}.example`,
          location_id: 2840,
          platform_id: 1,
          keywords: ['tent'],
        });
        assert.equal(tracking.statusCode, 201, tracking.body);
        const list = await send(key, 'POST', '/keyword-tool/lists', { name: `setup ${i}`, keyword_ids: [] });
        assert.equal(list.statusCode, 201, list.body);
        // An export needs a suggestion of its url within 24 hours.
        for (const url of ['openpedia.org', 'learnhub.com']) assert.equal((await send(key, 'POST', '/link-tool/exports/suggest', { url })).statusCode, 200);
        accounts.push({ key, trackingId: tracking.json().tracking._id, listId: list.json()._id });
      }
      // Each creation starts its first checks in the background: 10 at once hung the process before.
      await within(rankServices(t.ctx).checks.idle(), 'the first checks of the setup never finished');
      const links = await send(accounts[0].key, 'GET', '/link-tool/links?url=openpedia.org&source=0&page=0&links_per_domain=0');
      linkIds = (links.json().links as { _id: string }[]).map((l) => l._id).slice(0, 50);
      const related = await send(accounts[0].key, 'GET', '/keyword-tool/related-keywords?kw=running%20shoes&location_id=2840');
      keywordIds = (related.json().keywords as { _id: string }[]).map((k) => k._id).slice(0, 20);
      assert.ok(linkIds.length > 20 && keywordIds.length >= 10);
    },
    { timeout: DEADLINE_MS * 2 },
  );
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  test('every write answers, every first check is written, no connection is left idle in a transaction', { timeout: DEADLINE_MS * 2 }, async () => {
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    const kinds: ((a: Fixture, i: number) => Promise<Res>)[] = [
      (a, i) =>
        send(a.key, 'POST', '/rank-tool/trackings', { domain: `burst${i}.example`, location_id: 2840, platform_id: 1, keywords: ['tent', `hiking ${i}`] }),
      (a, i) => send(a.key, 'POST', '/keyword-tool/lists', { name: `burst ${i}`, keyword_ids: keywordIds.slice(0, 5) }),
      (a, i) => send(a.key, 'POST', `/keyword-tool/lists/${a.listId}/keywords`, { keyword_ids: [keywordIds[i % keywordIds.length]] }),
      (a, i) => send(a.key, 'PATCH', `/keyword-tool/lists/${a.listId}`, { name: `renamed ${i}` }),
      (a, i) => send(a.key, 'PATCH', `/link-tool/favorite-links/${encodeURIComponent(linkIds[i % linkIds.length])}`, { favorite: true }),
      (a, i) => send(a.key, 'POST', `/rank-tool/trackings/${a.trackingId}/tags`, { name: `tag ${i}`, color: '#1a73e8' }),
      (a, i) => send(a.key, 'POST', `/rank-tool/trackings/${a.trackingId}/annotations`, { date: day, text: `note ${i}` }),
      (a, i) => send(a.key, 'POST', `/rank-tool/trackings/${a.trackingId}/reports`, { type: 1, emails: [`r${i}@reports.test`], name: `weekly ${i}` }),
      (a, i) => send(a.key, 'POST', `/rank-tool/trackings/${a.trackingId}/tracked-keywords`, { keywords: [`camping ${i}`] }),
      // Paid and charged with a job in the commit's transaction: one per account,
      // within the burst window and the live-export places.
      (a, i) => send(a.key, 'POST', '/link-tool/exports', { url: i % 2 ? 'openpedia.org' : 'learnhub.com', limit: 100 }),
    ];
    const requests = Array.from({ length: WRITES }, (_, i) => kinds[i % kinds.length](accounts[Math.floor(i / kinds.length) % ACCOUNTS], i));
    const answers = await within(Promise.all(requests), 'not every write answered');
    const statuses = new Map<number, number>();
    for (const [i, res] of answers.entries()) {
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 503) {
        assert.equal(res.json().error.type, 'ServiceUnavailable', res.body);
        assert.ok(res.json().error.retry_after >= 1, res.body);
      } else assert.ok(res.statusCode >= 200 && res.statusCode < 300, `write ${i} (kind ${i % kinds.length}): ${res.statusCode} ${res.body}`);
    }
    // A bystander's read answers at once after the burst.
    assert.equal((await send(accounts[0].key, 'GET', '/rank-tool/trackings')).statusCode, 200);
    // The first checks of every tracking and keyword created run in the background: all written.
    const checks = rankServices(t.ctx).checks;
    await within(checks.idle(), 'the first checks never finished');
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const store = await client.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = $1 AND state IN ('idle in transaction', 'idle in transaction (aborted)')`,
        [database.name],
      );
      assert.equal(Number(store.rows[0].n), 0, 'connections idle in a transaction');
    } finally {
      await client.end();
    }
    const unchecked = await t.ctx.state.db
      .selectFrom('rank_tracked_keywords')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.or([eb('checked_through', 'is', null), eb('checked_through', '<', day)]))
      .executeTakeFirstOrThrow();
    assert.equal(Number(unchecked.n), 0, 'tracked keywords without their first check');
    process.stdout.write(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
  });
});
