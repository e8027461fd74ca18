/**
 * The PostgreSQL of the scale-mode tests: QUARRY_TEST_DATABASE_URL (default the local server,
 * user postgres). Each test state store is a database of its own with a random name, created
 * here and dropped by its close(), so runs on one server never meet.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStateStore, openStateStore, type PostgresStateStore, type StateStore } from '../../src/store/database.js';

export const TEST_DATABASE_URL = process.env.QUARRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether this run puts the state store on PostgreSQL (npm run test:scale). */
export const scaleMode = process.env.QUARRY_TEST_SCALE === '1';

/**
 * The `skip` option of a test that is about the embedded SQLite store itself (its busy
 * timeout, its file, its online backup): skipped under npm run test:scale, with the reason.
 */
export function embeddedOnly(reason: string): string | false {
  return scaleMode ? `embedded only: ${reason}` : false;
}

/** The URL of `database` on the test server. */
function urlOf(database: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a random name; `drop` removes it (closing any connection left to it). */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `quarry_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return {
    url: urlOf(name),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** A migrated PostgreSQL state store in a database of its own, dropped when the store is closed. */
export async function testPostgresStateStore(max = 4): Promise<PostgresStateStore> {
  const database = await createTestDatabase();
  const store = await openPostgresStateStore(database.url, { max });
  return {
    ...store,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * The state store of a store-level test: in memory on SQLite, or (npm run test:scale) a
 * PostgreSQL database of its own, dropped at close.
 */
export async function testStateStore(): Promise<StateStore> {
  return scaleMode ? testPostgresStateStore() : openStateStore(':memory:');
}
