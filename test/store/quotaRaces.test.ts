/**
 * Every limit an account's writes count is exact under concurrent writers, on both backends:
 * the lists and stored keyword ids of keyword lists, the keywords of one list, the rank tool's
 * storage quota and plan limit, one live tracking per target, one keyword per tracking, one
 * favourite list per domain, the AI answer monitors. On PostgreSQL the counts used to run side
 * by side in READ COMMITTED (10,006 lists of a 10,000 limit, 1,080,000 stored ids of
 * 1,000,000; unique-index violations as 500s); each such write now takes the account's lock
 * (store/accountLock.ts) first. SQLite serialises its IMMEDIATE transactions by itself.
 * Both backends run in every mode: an in-memory SQLite store and a PostgreSQL database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStateStore, type StateStore } from '../../src/store/database.js';
import { KeywordLists, ListLimitError, MAX_KEYWORDS_PER_LIST, MAX_LISTS_PER_ACCOUNT } from '../../src/store/keywordLists.js';
import { RankTrackingStore, StorageQuotaError, TrackedKeywordLimitError, TrackingConflictError, type TrackingRow } from '../../src/store/rankTracking.js';
import { Favourites } from '../../src/store/favourites.js';
import { AnswerLimitError, AnswerMonitorStore } from '../../src/store/answerMonitors.js';
import { testPostgresStateStore } from '../support/postgres.js';

const WRITERS = 24;
const NOW = 1_790_000_000;

/** Runs `n` writers at once; how many succeeded and the errors of the others. */
async function race<T>(n: number, write: (i: number) => Promise<T>): Promise<{ ok: T[]; errors: unknown[] }> {
  const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => write(i)));
  return {
    ok: settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
    errors: settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : [])),
  };
}

function assertAll(errors: unknown[], kind: new (...args: never[]) => Error): void {
  for (const err of errors) assert.ok(err instanceof kind, `expected ${kind.name}, got ${String(err)}`);
}

async function count(state: StateStore, table: 'keyword_lists' | 'rank_tags' | 'rank_trackings', accountId: string): Promise<number> {
  const row = await state.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`quota races on ${backend}`, () => {
    let state: StateStore;
    let n = 0;
    const account = () => `acct-${backend}-${++n}`;

    before(async () => {
      state = backend === 'sqlite' ? await openStateStore(':memory:') : await testPostgresStateStore(10);
    });
    after(async () => state?.close());

    test('list creations at the 10,000-list limit: exactly the room left is created', async () => {
      const id = account();
      const rows = Array.from({ length: MAX_LISTS_PER_ACCOUNT - 5 }, (_, i) => ({
        id: `pre-${id}-${i}`,
        account_id: id,
        name: `pre ${i}`,
        creator: id,
        created_at: NOW,
        updated_at: NOW,
      }));
      for (let i = 0; i < rows.length; i += 1000)
        await state.db
          .insertInto('keyword_lists')
          .values(rows.slice(i, i + 1000))
          .execute();
      const lists = new KeywordLists(state.db);
      const { ok, errors } = await race(WRITERS, (i) => lists.create(id, `race ${i}`, [], NOW));
      assert.equal(ok.length, 5);
      assertAll(errors, ListLimitError);
      assert.equal(await count(state, 'keyword_lists', id), MAX_LISTS_PER_ACCOUNT);
    });

    test('stored keyword ids across lists: never past the account’s quota', async () => {
      const id = account();
      const lists = new KeywordLists(state.db, 100);
      const { ok, errors } = await race(WRITERS, (i) =>
        lists.create(
          id,
          `ids ${i}`,
          Array.from({ length: 30 }, (_, j) => `kw-${i}-${j}`),
          NOW,
        ),
      );
      assert.equal(ok.length, 3, '3 × 30 ids fit in 100');
      assertAll(errors, ListLimitError);
      // Adding to a list counts against the same quota.
      const adds = await race(WRITERS, (i) => lists.addKeywords(id, ok[0]._id, [`more-${i}-a`, `more-${i}-b`, `more-${i}-c`], NOW));
      assert.equal(adds.ok.length, 3, '10 ids of room: 3 adds of 3');
      assertAll(adds.errors, ListLimitError);
      const stored = (await lists.all(id)).reduce((sum, l) => sum + l.keyword_ids.length, 0);
      assert.equal(stored, 99);
    });

    test('keywords of one list: never past 10,000', async () => {
      const id = account();
      const lists = new KeywordLists(state.db);
      const list = await lists.create(
        id,
        'full',
        Array.from({ length: MAX_KEYWORDS_PER_LIST - 4 }, (_, j) => `k${j}`),
        NOW,
      );
      const { ok, errors } = await race(WRITERS, (i) => lists.addKeywords(id, list._id, [`new-${i}`], NOW));
      assert.equal(ok.length, 4);
      assertAll(errors, ListLimitError);
      assert.equal((await lists.get(id, list._id))!.keyword_ids.length, MAX_KEYWORDS_PER_LIST);
    });

    test('rank storage quota: tags, annotations, reports', async () => {
      const id = account();
      const store = new RankTrackingStore(state.db, { trackings: 4, trackedKeywords: 1_000, tags: 5, annotations: 6, reports: 7 });
      const [{ tracking }] = await store.createTrackings(id, [{ domain: 'one.example', locationId: 2840, platformId: 1 }], [{ kw: 'a', sv: null }], {
        limit: 10,
        nowSec: NOW,
        nowMs: NOW * 1000,
        email: 'a@example.test',
      });
      const tags = await race(WRITERS, (i) => store.createTag(tracking, { name: `t${i}`, color: '#000000', creator: 'a' }, NOW));
      assert.equal(tags.ok.length, 5);
      assertAll(tags.errors, StorageQuotaError);
      const notes = await race(WRITERS, (i) => store.createNote(tracking, { date: '2026-09-01', text: `n${i}`, creator: 'a' }, NOW, NOW * 1000));
      assert.equal(notes.ok.length, 6);
      assertAll(notes.errors, StorageQuotaError);
      // The tracking came with its weekly and monthly reports: 5 more fit.
      const reports = await race(WRITERS, (i) =>
        store.createReport(tracking, { type: 1, emails: [`r${i}@example.test`], name: null, triggers: [], min_change: null }, NOW),
      );
      assert.equal(reports.ok.length, 5);
      assertAll(reports.errors, StorageQuotaError);
      assert.equal(await count(state, 'rank_tags', id), 5);
    });

    test('the plan’s tracked keywords and the stored trackings', async () => {
      const id = account();
      const store = new RankTrackingStore(state.db, { trackings: 5, trackedKeywords: 1_000, tags: 5, annotations: 1_000, reports: 1_000 });
      await store.createTrackings(id, [{ domain: 'one.example', locationId: 2840, platformId: 1 }], [{ kw: 'a', sv: null }], {
        limit: 10,
        nowSec: NOW,
        nowMs: NOW * 1000,
        email: 'a@example.test',
      });
      // Trackings of distinct domains, 3 keywords each, on a plan of 10 tracked keywords (1 used).
      const created = await race(WRITERS, (i) =>
        store.createTrackings(
          id,
          [{ domain: `d${i}.example`, locationId: 2840, platformId: 1 }],
          [
            { kw: 'x', sv: null },
            { kw: 'y', sv: null },
            { kw: 'z', sv: null },
          ],
          { limit: 10, nowSec: NOW, nowMs: NOW * 1000, email: 'a@example.test' },
        ),
      );
      assert.equal(created.ok.length, 3);
      assertAll(created.errors, TrackedKeywordLimitError);
      assert.equal(await store.trackedKeywordCount(state.db, id), 10);
      // Deleted, they free the plan's keywords but are still stored: 5 trackings in all.
      for (const c of created.ok) await store.softDelete(id, c[0].tracking.id, NOW);
      const more = await race(WRITERS, (i) =>
        store.createTrackings(id, [{ domain: `e${i}.example`, locationId: 2840, platformId: 1 }], [{ kw: 'x', sv: null }], {
          limit: 10,
          nowSec: NOW,
          nowMs: NOW * 1000,
          email: 'a@example.test',
        }),
      );
      assert.equal(more.ok.length, 1);
      assertAll(more.errors, StorageQuotaError);
      assert.equal(await count(state, 'rank_trackings', id), 5);
    });

    test('one live tracking per target and one keyword per tracking: the others are told, never a 500', async () => {
      const id = account();
      const store = new RankTrackingStore(state.db);
      const target = [{ domain: 'same.example', locationId: 2840, platformId: 1 }];
      const opts = { limit: 1_000, nowSec: NOW, nowMs: NOW * 1000, email: 'a@example.test' };
      const created = await race(WRITERS, () => store.createTrackings(id, target, [{ kw: 'tent', sv: null }], opts));
      assert.equal(created.ok.length, 1);
      assertAll(created.errors, TrackingConflictError);
      const tracking: TrackingRow = created.ok[0][0].tracking;
      const added = await race(WRITERS, () => store.addKeywords(tracking, [{ kw: 'stove', sv: null }], { ...opts, creator: 'a' }));
      assert.equal(added.errors.length, 0, String(added.errors[0]));
      assert.equal(added.ok.filter((rows) => rows.length === 1).length, 1, 'the keyword is added once');
      assert.deepEqual((await store.keywordsOf(tracking.id)).map((k) => k.kw).sort(), ['stove', 'tent']);
    });

    test('favourites: links of one domain marked at once land in one list', async () => {
      const id = account();
      const favourites = new Favourites(state.db);
      const { ok, errors } = await race(WRITERS, (i) => favourites.set(id, 'openpedia.org', `link-${i}`, true, NOW));
      assert.equal(errors.length, 0, String(errors[0]));
      assert.equal(new Set(ok.map((l) => l!._id)).size, 1);
      const lists = await favourites.all(id);
      assert.equal(lists.length, 1);
      assert.equal(lists[0].link_ids.length, WRITERS);
    });

    test('AI answer monitors: never past the plan’s monitors and prompts', async () => {
      const id = account();
      const monitors = new AnswerMonitorStore(state.db);
      const monitor = { brand: 'Acme', brandVariations: [], domain: 'acme.example', locationId: 2840, languageId: 1000, platformId: 1, models: [1] };
      const { ok, errors } = await race(WRITERS, (i) => monitors.create(id, monitor, [`prompt ${i}`], { monitors: 4, prompts: 100 }, NOW));
      assert.equal(ok.length, 4);
      assertAll(errors, AnswerLimitError);
      const live = await monitors.liveCounts(id);
      assert.deepEqual(live, { monitors: 4, prompts: 4 });
    });
  });
}
