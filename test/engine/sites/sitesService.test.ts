import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openEngine, type Engine } from '../../../src/engine/index.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { tinyWorldFile, TINY_WORLD_AS_OF } from '../../support/world.js';

let engine: Engine;
before(async () => {
  engine = await openEngine({ file: await tinyWorldFile(1), clock: new FakeClock(TINY_WORLD_AS_OF) });
});
after(() => engine.close());

test('overview with monthly history since 2016 that ends at today’s counters', () => {
  const o = engine.sites.overview('openpedia.org')!;
  assert.equal(o.urlType, 'RootDomain');
  const months = Object.keys(o.topRankHistory);
  assert.equal(months[0], '2016-01');
  assert.equal(months.at(-1), '2026-11');
  const last = o.linkindexHistory['2026-11'];
  assert.equal(last.refIps, o.linkindex.RefIPs);
  assert.equal(last.refSubnets, o.linkindex.RefSubNets);
  assert.equal(o.topRankHistory['2026-11'], o.topRank);
  assert.equal(o.socialHistory['2026-11'], o.social!.l);
  assert.equal(o.linkindexHistory['2026-11'].rank, o.topRank);
  assert.ok(o.linkindexHistory['2017-01'].refIps <= last.refIps * 2);
  assert.ok(o.authority.pda > 50);
});

test('competitors share referring domains and exclude the site itself', () => {
  const domain = engine.store.raw
    .prepare(
      "SELECT r.domain FROM root_domains r JOIN entity_metrics m ON m.level = 2 AND m.entity_id = r.id WHERE r.kind = 'blog' ORDER BY m.ref_domains DESC LIMIT 1",
    )
    .pluck()
    .get() as string;
  const competitors = engine.sites.competitors(domain, 10)!;
  assert.ok(competitors.length > 0);
  for (const c of competitors) {
    assert.notEqual(c.domain, domain);
    assert.ok(c.score > 0 && c.score <= 100);
    assert.match(c.domainId, /^[0-9a-f]{24}$/);
  }
  for (let i = 1; i < competitors.length; i++) assert.ok(competitors[i].score <= competitors[i - 1].score);
});

test('authority for known pages and domains; a deterministic low value for unknown ones', () => {
  const known = engine.authority.forUrl('openpedia.org')!;
  assert.equal(known.known, true);
  assert.ok(known.topRank! >= 1);
  const page = engine.store.raw.prepare('SELECT url FROM pages WHERE root_domain_id = 1 AND is_homepage = 0 LIMIT 1').pluck().get() as string;
  const p = engine.authority.forUrl(page)!;
  assert.equal(p.lps, Math.round(0.6 * p.upa + 0.4 * p.pda));
  const unknown = engine.authority.forUrl('https://some-unknown-site.net/page')!;
  assert.equal(unknown.known, false);
  assert.ok(unknown.pda >= 1 && unknown.pda <= 8);
  assert.deepEqual(engine.authority.forUrl('some-unknown-site.net')!.pda, unknown.pda);
  assert.equal(engine.authority.lps('http://www.openpedia.org/nope'), Math.round(0.4 * known.pda));
});
