/**
 * `quarry answers check [--monitor ID]` as an operator runs it: a child process on a data
 * directory (or PostgreSQL in test:scale) holding a monitor; it asks the sandbox models and
 * exits 0 when done; an unknown monitor is one line and exit code 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openConfiguredStateStore } from '../../../src/store/database.js';
import { AnswerMonitorStore } from '../../../src/store/answerMonitors.js';
import { runQuarry } from '../../support/cli.js';
import { createTestDatabase, scaleMode } from '../../support/postgres.js';
import { TEST_REDIS_URL } from '../../support/redis.js';
import { copyTinyWorld } from '../../support/world.js';

test('quarry answers check runs a round now and exits 0 when it is done', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-answers-cli-'));
  const database = scaleMode ? await createTestDatabase() : null;
  const env: Record<string, string> = {
    QUARRY_DATA_DIR: dataDir,
    ...(database ? { QUARRY_DATABASE_URL: database.url, QUARRY_REDIS_URL: TEST_REDIS_URL } : {}),
  };
  await copyTinyWorld(1, dataDir);
  const service = await openConfiguredStateStore({ dataDir, databaseUrl: database?.url ?? null });
  try {
    const store = new AnswerMonitorStore(service.db);
    const { monitor } = await store.create(
      'acc1',
      { brand: 'Openpedia', brandVariations: [], domain: 'openpedia.org', locationId: 2840, languageId: 1000, platformId: 1, models: [1, 2] },
      ['What are the best running shoes?', 'How do I start running?'],
      { monitors: 10, prompts: 100 },
      Math.floor(Date.now() / 1000),
    );
    const res = runQuarry(['answers', 'check', '--monitor', monitor.id], env, 240_000);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /checked 1 monitor\(s\) in [\d.]+ s: 4 answer\(s\) recorded, 0 failed/);
    const rows = await service.db.selectFrom('answer_results').select(['model_id', 'status']).where('monitor_id', '=', monitor.id).execute();
    assert.equal(rows.length, 4);
    assert.ok(rows.every((r) => r.status === 'ok'));
    const unknown = runQuarry(['answers', 'check', '--monitor', 'nope'], env, 240_000);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /quarry: no live monitor nope/);
  } finally {
    await service.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
