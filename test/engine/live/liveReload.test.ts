/**
 * Live reload of the research store (src/engine/live): an import while the service runs is
 * answered by the next lookup without a restart, and a request in flight during the swap
 * answers from the data it began on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { importLinksCsv } from '../../../src/engine/import/linksImport.js';
import { importSession } from '../../../src/engine/live/importSession.js';
import { scrapeMetrics, testApp } from '../../support/app.js';
import { TINY_WORLD_AS_OF } from '../../support/world.js';
import { NEW_DOMAIN, writeNewDomainLinks } from '../../support/newDomainLinks.js';

/** Imports links to a domain the tiny world lacks, as `quarry import links` does, into the app's research store. */
async function importNewDomain(researchFile: string): Promise<void> {
  const dir = path.dirname(researchFile);
  const csv = writeNewDomainLinks(dir);
  // Embedded: the import session raises the data generation and publishes nothing.
  const config = loadConfig({ QUARRY_DATA_DIR: dir });
  await importSession(config, (engine) => importLinksCsv(csv, { store: engine.store, asOf: TINY_WORLD_AS_OF }), { quiet: true });
}

function metricsQuery(key: string) {
  return { method: 'GET' as const, url: `/v3/serp-tool/url-metrics?url=${NEW_DOMAIN}`, headers: { 'x-access-token': key } };
}

test('an import while serving: the next lookup answers with the new data, no restart', async () => {
  const t = await testApp();
  try {
    const researchFile = t.ctx.research.live.current.file;
    const before = await t.app.inject(metricsQuery((await t.account()).key));
    const beforeBody = before.json() as { m?: { linkindex: { v: { ExtBackLinks: number } } } };
    assert.ok(before.statusCode === 422 || beforeBody.m?.linkindex.v.ExtBackLinks === 0, `the tiny world lacks ${NEW_DOMAIN}: ${before.body}`);
    // Nothing changed: nothing to reload.
    assert.equal(await t.ctx.research.check(), false);

    await importNewDomain(researchFile);
    assert.equal(await t.ctx.research.check(), true);
    assert.equal(t.ctx.research.live.current.generation, 1);
    // A new account: the first account's answer is in the request cache for 24 hours.
    const after = await t.app.inject(metricsQuery((await t.account()).key));
    assert.equal(after.statusCode, 200, after.body);
    assert.equal((after.json() as { m: { linkindex: { v: { ExtBackLinks: number } } } }).m.linkindex.v.ExtBackLinks, 2);
    // The replaced data was closed: no request was using it.
    await t.ctx.research.live.drained();
    assert.equal(t.ctx.research.live.draining, 0);
    const metrics = await scrapeMetrics(t.app);
    assert.match(metrics, /^quarry_research_generation 1$/m);
    assert.match(metrics, /^quarry_research_reloads_total 1$/m);
    assert.match(metrics, /^quarry_research_draining 0$/m);
  } finally {
    await t.close();
  }
});

test('a request in flight during the swap answers from the data it began on; the old data closes after it', async () => {
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const t = await testApp({
    extraRoutes: (app) => {
      app.get('/test/research-generation', { config: { auth: 'none' } }, async () => {
        const { engine, research } = app.quarry;
        const store = engine.store;
        const first = { generation: research.live.set.generation, open: store.raw.open };
        // Only the first request waits: it is the one in flight during the swap.
        if (calls++ === 0) {
          entered();
          await gate;
        }
        // Read again after the swap: still the set the request began on, and still open.
        const second = { generation: research.live.set.generation, open: engine.store.raw.open, sameStore: engine.store === store };
        return { first, second, known: (engine.links.urlMetrics(NEW_DOMAIN)?.v.ExtBackLinks ?? 0) > 0 };
      });
    },
  });
  try {
    const inFlight = t.app.inject({ method: 'GET', url: '/v3/test/research-generation' });
    await inHandler;
    await importNewDomain(t.ctx.research.live.current.file);
    assert.equal(await t.ctx.research.check(), true);
    // Swapped in for everything that starts now, while the old set waits for the request.
    assert.equal(t.ctx.research.live.current.generation, 1);
    assert.equal(t.ctx.research.live.draining, 1);
    const fresh = await t.app.inject({ method: 'GET', url: '/v3/test/research-generation' });
    assert.equal(fresh.statusCode, 200, fresh.body);

    release();
    const answer = await inFlight;
    assert.equal(answer.statusCode, 200, answer.body);
    // Its engine's SQLite connection sees rows the import committed (the file is the same),
    // its in-memory indexes and the set's identity stay those it began on.
    assert.deepEqual(answer.json(), { first: { generation: 0, open: true }, second: { generation: 0, open: true, sameStore: true }, known: true });
    assert.deepEqual(fresh.json(), { first: { generation: 1, open: true }, second: { generation: 1, open: true, sameStore: true }, known: true });
    await t.ctx.research.live.drained();
    assert.equal(t.ctx.research.live.draining, 0);
  } finally {
    release();
    await t.close();
  }
});
