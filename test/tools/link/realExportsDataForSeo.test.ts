/**
 * Backlink exports in real mode from DataForSEO Backlinks (issue 24, 40caf21): the worker pages
 * through `backlinks/backlinks/live` 1,000 rows a call (its `limit` maximum), first at the list's
 * head, then by the `search_after_token` each answer carries. The fake pages as DataForSEO
 * documents it (test/support/fakes/dataForSeoBacklinks.ts, `pagePosition`; sources:
 * dataforseo/PythonClient docs/BacklinksBacklinksLiveRequestInfo.md — "offset … the maximum value
 * is 20,000, use the search_after_token if you would like to offset more results";
 * "search_after_token … by specifying the unique search_after_token value from the response
 * array, you will get the subsequent results of the initial task … if the search_after_token is
 * specified in the request, all other parameters should be identical to the previous request" —
 * and docs/BacklinksBacklinksLiveResultInfo.md, the answer's `search_after_token`): its token
 * carries where the next results start and the request's other parameters, and it refuses a
 * token used with other parameters (40501). The export gets every row of the provider's list
 * exactly once, in its order, also when a worker stops between two pages and another continues
 * from the stored cursor.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeLink } from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { linkClient, type LinkClient } from './helpers.js';
import { createExport, csvOf, finished, listed, startExportWorker, stopAfterFirstPage } from './realExportHelpers.js';

const TARGET = 'bigroast.com';
/** Three calls of 1,000: two full pages and a short last one. */
const LINKS = 2_345;

let real: RealMode;
let bigLinks: FakeLink[];

before(async () => {
  real = await startRealMode({ links: 'dataforseo', world: 'none' });
  real.web.items[TARGET] = { ...real.web.items['peets.com'], ExtBackLinks: LINKS, RefDomains: LINKS };
  bigLinks = Array.from({ length: LINKS }, (_, i) => ({
    source: `https://roaster${i}.example.net/notes/${i}`,
    target: `https://www.${TARGET}/beans/${i % 7}`,
    anchor: `roast notes ${i}`,
    sourceTitle: `Roast notes ${i}`,
    nofollow: i % 5 === 0,
    image: false,
    firstSeen: '2025-06-01',
    lastSeen: '2026-11-20',
    lostOn: null,
    sourceCitationFlow: i % 60,
    sourceTrustFlow: i % 40,
    targetCitationFlow: 40,
    targetTrustFlow: 35,
  }));
  real.web.links.push(...bigLinks);
});
after(async () => real.close());

/** The tasks of the backlinks calls for the target since `since` requests. */
const backlinkTasks = (since: number) =>
  real
    .dataforseo!.requests.slice(since)
    .filter((r) => r.url.pathname === '/v3/backlinks/backlinks/live')
    .map((r) => (JSON.parse(r.body) as Record<string, unknown>[])[0])
    .filter((task) => task.target === TARGET);

async function client(): Promise<LinkClient> {
  const { id, key } = await real.t.account();
  return linkClient(real.t, id, key);
}

/** The fake's rows, each once, in its order, and the calls' paging: the head, then a token each. */
function assertEveryRowOnce(rows: Record<string, string>[], tasks: Record<string, unknown>[]): void {
  assert.equal(rows.length, LINKS);
  assert.deepEqual(
    rows.map((r) => r.source),
    bigLinks.map((l) => l.source),
  );
  assert.equal(new Set(rows.map((r) => r._id)).size, LINKS, 'no row twice');
  assert.equal(tasks.length, 3, 'three calls of 1,000 rows');
  assert.ok(tasks.every((task) => task.limit === 1000));
  assert.equal(tasks[0].search_after_token, undefined, 'the first page from the list’s head');
  assert.ok((tasks[0].offset ?? 0) === 0);
  for (const task of tasks.slice(1)) assert.equal(typeof task.search_after_token, 'string', 'later pages by the token of the answer before');
}

describe('backlink exports in real mode from DataForSEO: search_after_token paging', () => {
  test('the worker reads the head, then follows each answer’s token: every row once, in the provider’s order', async () => {
    const c = await client();
    const since = real.dataforseo!.requests.length;
    const created = await createExport(real.t, c, { url: TARGET });
    assert.equal(created.cost, LINKS, 'charged the provider’s count');
    const worker = startExportWorker(real.t, undefined);
    try {
      const job = await finished(c, created._id);
      assert.equal(job.state, 600, job.error);
      assertEveryRowOnce(await csvOf(real.t, job), backlinkTasks(since));
    } finally {
      await worker.stop();
    }
  });

  test('a worker stopped after the first page: the next continues from the stored token, no page bought twice, every row once', async () => {
    const c = await client();
    const since = real.dataforseo!.requests.length;
    const created = await createExport(real.t, c, { url: TARGET });
    await stopAfterFirstPage((onProgress) => startExportWorker(real.t, undefined, onProgress));
    assert.equal(backlinkTasks(since).length, 1, 'stopped after the first page');
    const midway = (await listed(c)).find((j) => j._id === created._id)!;
    assert.equal(midway.error, '');
    assert.equal(midway.progress.done, 1000);

    const second = startExportWorker(real.t, undefined);
    try {
      const job = await finished(c, created._id);
      assert.equal(job.state, 600, job.error);
      assertEveryRowOnce(await csvOf(real.t, job), backlinkTasks(since));
    } finally {
      await second.stop();
    }
  });
});
