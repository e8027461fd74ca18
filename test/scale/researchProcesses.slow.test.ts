/**
 * The research store shared through PostgreSQL with real processes: `quarry serve` on one
 * data directory publishes its store as the deployment's first generation; `quarry import
 * links` on another host's data directory fetches that generation, imports on top of it and
 * publishes the next; the server hears the announcement on Redis, fetches, reloads and
 * answers with the imported links. No file copied by hand, no restart.
 *
 * Under `npm run test:scale` only (it is listed there by directory): skipped otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, scaleMode } from '../support/postgres.js';
import { freePort, Processes, STARTUP_TIMEOUT_MS } from '../support/processes.js';
import { TEST_REDIS_URL, testRedisPrefix } from '../support/redis.js';
import { copyTinyWorld } from '../support/world.js';
import { NEW_DOMAIN, writeNewDomainLinks } from '../support/newDomainLinks.js';

test(
  'an import on one host reaches a quarry serve on another, through PostgreSQL and Redis',
  { skip: !scaleMode && 'scale mode only (npm run test:scale)', timeout: 4 * STARTUP_TIMEOUT_MS },
  async () => {
    const processes = new Processes();
    const database = await createTestDatabase();
    const dirs = ['serve', 'import'].map((name) => fs.mkdtempSync(path.join(os.tmpdir(), `quarry-research-${name}-`)));
    const [serveDir, importDir] = dirs as [string, string];
    try {
      await copyTinyWorld(1, serveDir);
      await copyTinyWorld(1, importDir);
      const env = {
        QUARRY_DATABASE_URL: database.url,
        QUARRY_REDIS_URL: TEST_REDIS_URL,
        QUARRY_REDIS_PREFIX: testRedisPrefix(),
        QUARRY_WORLD_SIZE: 'tiny',
        QUARRY_HOST: '127.0.0.1',
        QUARRY_GATEWAY_RPS: '100',
      };
      const server = processes.start(['serve', '--roles', 'api'], {
        env: { ...env, QUARRY_DATA_DIR: serveDir, QUARRY_PORT: String(await freePort()), QUARRY_LOG_LEVEL: 'info' },
      });
      const origin = await server.ready();
      assert.match(server.output(), /Published the research store to PostgreSQL as generation 1/);
      const key = fs.readFileSync(path.join(serveDir, 'demo-key.txt'), 'utf8').trim();

      const csv = writeNewDomainLinks(importDir);
      const importing = processes.start(['import', 'links', csv, '--data-dir', importDir], { env });
      const exit = await importing.finished();
      assert.equal(exit.code, 0, importing.output());
      // It started from the published generation (fetched into its own file), then published the next.
      assert.ok(fs.existsSync(path.join(importDir, 'research.g1.db')), importing.output());
      assert.match(importing.stderr(), /published research generation 2 to PostgreSQL/);

      await server.waitFor(/"generation":2[^\n]*research store reloaded/, 'the reload of generation 2');
      assert.ok(fs.existsSync(path.join(serveDir, 'research.g2.db')));
      const res = await fetch(`${origin}/v3/serp-tool/url-metrics?url=${NEW_DOMAIN}`, { headers: { 'x-access-token': key } });
      const body = await res.text();
      assert.equal(res.status, 200, body);
      assert.equal((JSON.parse(body) as { m: { linkindex: { v: { ExtBackLinks: number } } } }).m.linkindex.v.ExtBackLinks, 2);
      assert.equal((await server.stop()).code, 0);
    } finally {
      await processes.killAll();
      await database.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
