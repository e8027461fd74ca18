/**
 * QUARRY_WORLD_SIZE=none (issue 24, build 1): no sandbox web is built, the research store
 * starts empty, and every operation of the README walkthrough still answers in the
 * reference's shapes, with empty lists and null figures where nobody has data — never a
 * sandbox keyword, domain or invented number. (With the providers faked, the same walkthrough
 * answers from the fakes alone: realMode.test.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { testApp, type TestApp } from '../support/app.js';
import { assertReferenceShape } from '../support/reference.js';
import { pace, query } from '../support/requests.js';
import { ensureWorld, openEngine, researchStoreFile, worldOrigin } from '../../src/engine/index.js';
import { FakeClock } from '../../src/lib/clock.js';
import { loadConfig } from '../../src/config.js';

let t: TestApp;
let key: string;

const get = (url: string) => t.app.inject({ method: 'GET', url: `/v3${url}`, headers: { 'x-access-token': key } });
const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url: `/v3${url}`, headers: { 'x-access-token': key }, payload });

/** The answer, checked against the reference's response schema. */
async function shaped(method: 'GET' | 'POST', url: string, res: { statusCode: number; body: string; json(): unknown }, status = 200): Promise<any> {
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  assertReferenceShape(method, url.split('?')[0], status, body);
  return body;
}

describe('QUARRY_WORLD_SIZE=none', () => {
  test('is accepted by the configuration; ensureWorld creates an empty, ready store in well under a build', async () => {
    assert.equal(loadConfig({ QUARRY_WORLD_SIZE: 'none' }).worldSize, 'none');
    const dir = fs.mkdtempSync(path.join('.test-data', 'none-'));
    try {
      const built = await ensureWorld({ dataDir: dir, size: 'none', seed: 1, clock: new FakeClock() });
      assert.ok(built);
      assert.deepEqual([built.keywords, built.rootDomains, built.pages, built.links], [0, 0, 0, 0]);
      const file = researchStoreFile(dir);
      assert.equal(worldOrigin(file), 'none');
      const engine = await openEngine({ file, clock: new FakeClock() });
      try {
        assert.equal(engine.isBuilt(), true);
        assert.deepEqual(engine.counts(), { keywords: 0, rootDomains: 0, hosts: 0, pages: 0, links: 0 });
        assert.equal(engine.metadata().origin, 'none');
      } finally {
        await engine.close();
      }
      // A second start finds it ready and builds nothing.
      assert.equal(await ensureWorld({ dataDir: dir, size: 'none', seed: 1, clock: new FakeClock() }), null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the walkthrough without providers', () => {
    before(async () => {
      t = await testApp({ world: 'none' });
      ({ key } = await t.account('premium'));
    });
    after(async () => t.close());

    test('keyword tool: the seed alone with null figures, no SERP rows, no ranking keywords', async () => {
      const related = await shaped(
        'GET',
        '/keyword-tool/related-keywords',
        await get(`/keyword-tool/related-keywords?${query({ kw: 'running shoes', location_id: 2840 })}`),
      );
      assert.equal(related.keywords.length, 1);
      const seed = related.keywords[0];
      assert.equal(seed.kw, 'running shoes');
      assert.deepEqual([seed.sv, seed.cpc, seed.ppc, seed.seo, seed.msv], [null, null, null, null, []]);
      pace(t);
      const serps = await shaped('GET', '/keyword-tool/serps', await get(`/keyword-tool/serps?${query({ kw: 'running shoes', location_id: 2840 })}`));
      assert.equal(JSON.stringify(serps).includes('openpedia'), false);
      pace(t);
      const ranking = await shaped(
        'GET',
        '/keyword-tool/competitor-keywords',
        await get(`/keyword-tool/competitor-keywords?${query({ url: 'openpedia.org', location_id: 2840 })}`),
      );
      assert.deepEqual(ranking.keywords, []);
      assert.equal(ranking.totalCount, 0);
      pace(t);
      const imported = await shaped(
        'POST',
        '/keyword-tool/keyword-imports',
        await post('/keyword-tool/keyword-imports', { keywords: ['trail running shoes', 'running socks'], location_id: 2840, language_id: 1000 }),
      );
      assert.deepEqual(
        imported.keywords.map((k: { kw: string; sv: unknown; cpc: unknown; msv: unknown[] }) => [k.kw, k.sv, k.cpc, k.msv.length]),
        [
          ['trail running shoes', null, null, 0],
          ['running socks', null, null, 0],
        ],
      );
    });

    test('SERP tool: a SERP without organic results from the empty store', async () => {
      const serp = await shaped('GET', '/serp-tool/serps', await get(`/serp-tool/serps?${query({ kw: 'running shoes', location_id: 2840 })}`));
      assert.equal(serp.items.filter((i: { type: string }) => i.type === 'ORGANIC').length, 0);
    });

    test('link and site tools: nothing known of a domain, in the reference’s shapes', async () => {
      const metrics = await get(`/link-tool/url-metrics?${query({ url: 'openpedia.org' })}`);
      assert.ok(metrics.statusCode < 500, metrics.body);
      assertReferenceShape('GET', '/link-tool/url-metrics', metrics.statusCode, metrics.json());
      pace(t);
      const links = await get(`/link-tool/links?${query({ url: 'openpedia.org', source: 0, page: 0, links_per_domain: 0 })}`);
      assert.ok(links.statusCode < 500, links.body);
      assertReferenceShape('GET', '/link-tool/links', links.statusCode, links.json());
      pace(t);
      const overview = await get(`/site-tool/overview?${query({ url: 'openpedia.org' })}`);
      assert.equal(overview.statusCode, 200, overview.body);
      // `social` null means "never fetched" (the reference's nullable allOf: see test/tools/site/referenceShapes.test.ts).
      const { social, ...rest } = overview.json();
      assert.equal(social, null);
      assert.equal(rest.linkindex.Status, 'NotFound');
      assertReferenceShape('GET', '/site-tool/overview', 200, rest);
    });

    test('rank tracking: a tracking is created; its keyword has no figures', async () => {
      const res = await post('/rank-tool/trackings', { domain: 'openpedia.org', location_id: 2840, platform_id: 1, keywords: ['encyclopedia'] });
      assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
      assertReferenceShape('POST', '/rank-tool/trackings', res.statusCode, res.json());
    });
  });
});
