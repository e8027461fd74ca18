/**
 * The research store shared through PostgreSQL (src/engine/live/snapshots.ts): an import on
 * one host publishes a generation and announces it on Redis; a process with a data directory
 * of its own fetches it, reloads, and answers with the new data; a process started later
 * fetches it before it opens. Needs PostgreSQL and Redis (npm run test:scale).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { importLinksCsv } from '../../src/engine/import/linksImport.js';
import { importSession } from '../../src/engine/live/importSession.js';
import { testApp, type TestApp } from '../support/app.js';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';
import { TINY_WORLD_AS_OF } from '../support/world.js';
import { NEW_DOMAIN, writeNewDomainLinks } from '../support/newDomainLinks.js';

const quiet = { info: () => undefined, error: () => undefined };

test(
  'an import on one host reaches a process with its own data directory, through PostgreSQL and Redis',
  { skip: !scaleMode && 'needs PostgreSQL and Redis (npm run test:scale)' },
  async () => {
    const database = await createTestDatabase();
    const env = { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL, QUARRY_REDIS_PREFIX: testRedisPrefix() };
    const apps: TestApp[] = [];
    try {
      const a = await testApp({ env });
      apps.push(a);
      const b = await testApp({ env });
      apps.push(b);
      // B hears announcements; its timer is an hour, so only the announcement can make it reload.
      b.ctx.research.start(quiet, 3_600_000);
      const bDir = path.dirname(b.ctx.research.live.current.file);
      assert.equal(b.ctx.engine.links.urlMetrics(NEW_DOMAIN)?.v.ExtBackLinks ?? 0, 0);

      // `quarry import links` on A's host: into A's research store, published as a generation.
      const aDir = path.dirname(a.ctx.research.live.current.file);
      const csv = writeNewDomainLinks(aDir, 1);
      await importSession(loadConfig({ ...env, QUARRY_DATA_DIR: aDir }), (engine) => importLinksCsv(csv, { store: engine.store, asOf: TINY_WORLD_AS_OF }), {
        quiet: true,
      });

      // B fetches it into a file of its own and swaps it in (waiting for the event, generously: the machine may be loaded).
      for (let waited = 0; b.ctx.research.reloads === 0 && waited < 120_000; waited += 100) await sleep(100);
      assert.equal(b.ctx.research.reloads, 1);
      const generation = b.ctx.research.live.current.generation;
      assert.ok(generation >= 1);
      assert.equal(b.ctx.research.live.current.file, path.join(bDir, `research.g${generation}.db`));
      const { key } = await b.account();
      const answer = await b.app.inject({ method: 'GET', url: `/v3/serp-tool/url-metrics?url=${NEW_DOMAIN}`, headers: { 'x-access-token': key } });
      assert.equal(answer.statusCode, 200, answer.body);
      assert.equal((answer.json() as { m: { linkindex: { v: { ExtBackLinks: number } } } }).m.linkindex.v.ExtBackLinks, 1);

      // A's own process reloads from its file, which carries the published number: nothing to fetch.
      assert.equal(await a.ctx.research.check(), true);
      assert.equal(a.ctx.research.live.current.generation, generation);
      assert.equal(a.ctx.engine.links.urlMetrics(NEW_DOMAIN)?.v.ExtBackLinks, 1);

      // A process started afterwards fetches the generation before it opens.
      const c = await testApp({ env });
      apps.push(c);
      assert.equal(c.ctx.research.live.current.generation, generation);
      assert.equal(c.ctx.engine.links.urlMetrics(NEW_DOMAIN)?.v.ExtBackLinks, 1);

      // `quarry world publish` on C's host: its store as it is, as the next generation; B follows.
      await importSession(loadConfig({ ...env, QUARRY_DATA_DIR: path.dirname(c.ctx.research.live.current.file) }), async () => undefined, {
        quiet: true,
        publishAsIs: true,
      });
      for (let waited = 0; b.ctx.research.reloads === 1 && waited < 120_000; waited += 100) await sleep(100);
      assert.equal(b.ctx.research.live.current.generation, generation + 1);
      assert.equal(b.ctx.engine.links.urlMetrics(NEW_DOMAIN)?.v.ExtBackLinks, 1);
    } finally {
      for (const app of apps) await app.close();
      await database.drop();
    }
  },
);
