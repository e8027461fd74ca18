/**
 * The bounds of waiting for another process's purchase (engine/sources/providerAnswers.ts):
 * two ProviderAnswers on one state store stand for two processes (SQLite in memory, or a
 * PostgreSQL database of its own under npm run test:scale). A buyer that dies leaves its
 * lease to lapse and the waiter then buys; a waiter that keeps finding the rows claimed gives
 * up after four leases with a SourceError (424, nothing charged). The leases here are short,
 * so these tests wait about a second of real time; what they check does not depend on how fast
 * the machine is (a lease lapses only once its time has passed; the held one never does).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { FakeClock } from '../../../src/lib/clock.js';
import { ProviderAnswers } from '../../../src/engine/sources/providerAnswers.js';
import { SourceError } from '../../../src/engine/sources/types.js';
import type { StateStore } from '../../../src/store/database.js';
import { scaleMode, testStateStore } from '../../support/postgres.js';

const LEASE_MS = 100;

describe(`waiting for another process's purchase (${scaleMode ? 'PostgreSQL' : 'SQLite'})`, () => {
  let store: StateStore;
  let clock: FakeClock;

  beforeEach(async () => {
    store = await testStateStore();
    clock = new FakeClock();
  });
  afterEach(() => store.close());

  /** A purchase that never ends: its process died holding the lease. */
  const dies = () => new Promise<string[]>(() => undefined);
  /** Resolves once the first process's buy has been called (it holds the lease from then on). */
  function buyer() {
    let called!: () => void;
    const started = new Promise<void>((resolve) => (called = resolve));
    return {
      started,
      buy: () => {
        called();
        return dies();
      },
    };
  }

  test('a purchase whose process died is bought by the waiting process once its lease has lapsed', async () => {
    const first = new ProviderAnswers(store.db, clock, { leaseMs: LEASE_MS });
    const second = new ProviderAnswers(store.db, clock, { leaseMs: LEASE_MS });
    const dead = buyer();
    void first.get('provider', 'serp', ['q|2840|1000|1|0|2026-11-27'], 1, dead.buy);
    await dead.started;
    const bought: string[][] = [];
    const answer = await second.get('provider', 'serp', ['q|2840|1000|1|0|2026-11-27'], 1, async (keys) => {
      bought.push(keys);
      return ['the second process’s'];
    });
    assert.deepEqual(bought, [['q|2840|1000|1|0|2026-11-27']], 'bought once, by the waiting process');
    assert.equal(answer.get('q|2840|1000|1|0|2026-11-27'), 'the second process’s');
    assert.equal(second.waiting, 0);
  });

  test('a waiter that keeps finding the rows claimed gives up after four leases: SourceError, nothing bought', async () => {
    const first = new ProviderAnswers(store.db, clock, { leaseMs: LEASE_MS });
    const dead = buyer();
    void first.get('provider', 'keyword-data', ['coffee|2840|1000'], 1, dead.buy);
    await dead.started;
    // A holder whose lease never lapses (claimed an hour ahead): the waiter keeps finding it held.
    await store.db
      .updateTable('provider_answers')
      .set({ claimed_ms: Date.now() + 3_600_000 })
      .where('key', '=', 'coffee|2840|1000')
      .execute();
    // While it waits, the process says so (what the two-process tests wait on): seen at each look.
    const waitingSeen: number[] = [];
    const looking = async (ms: number) => {
      waitingSeen.push(second.waiting);
      await new Promise((resolve) => setTimeout(resolve, ms));
    };
    const second = new ProviderAnswers(store.db, clock, { leaseMs: LEASE_MS, sleep: looking });
    let bought = 0;
    const asked = second.get('provider', 'keyword-data', ['coffee|2840|1000'], 1, async () => {
      bought++;
      return [null];
    });
    await assert.rejects(asked, (err: unknown) => err instanceof SourceError && err.reason === 'unavailable' && /kept its claim/.test(err.message));
    assert.equal(bought, 0);
    assert.ok(waitingSeen.length >= 4 && waitingSeen.every((n) => n === 1), `waiting at each look: ${waitingSeen.join(',')}`);
    assert.equal(second.waiting, 0);
  });
});
