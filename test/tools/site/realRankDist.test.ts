/**
 * The site overview's `rankDist` in real mode (issue 24): it was empty; with a DataForSEO
 * account configured it is DataForSEO Labs' `domain_rank_overview` of the site in the default
 * market (2840, `en`): `metrics_absolute[<month bought>].organic` ← the answer's
 * `items[0].metrics.organic` counters as given (docs/decisions.md, "rankDist in real mode").
 * The fake (fakes/dataForSeoBacklinks.ts) answers in the shape of DataForSEO's documented
 * result (dataforseo/TypeScriptClient docs/DataforseoLabsGoogleDomainRankOverviewLiveItem.md and
 * DataforseoLabsMetricsInfo.md: `se_type`, `location_code`, `language_code`, `metrics.organic`
 * with `pos_1` … `pos_91_100`, `etv`, `count`, `estimated_paid_traffic_cost`, `is_new`, `is_up`,
 * `is_down`, `is_lost`), figures from the fake web (fakes/linkWeb.ts `rankOverview`). Majestic is
 * the link index here, so the only DataForSEO call an overview makes is this one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dfsError } from '../../support/fakes/index.js';
import { assertReferenceShape } from '../../support/reference.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { newClient, pace, qs, type ToolClient } from '../serp/serpClient.js';

const RANK_OVERVIEW = '/v3/dataforseo_labs/google/domain_rank_overview/live';

describe('site overview rankDist from DataForSEO Labs (Majestic and Moz for links)', () => {
  let real: RealMode;
  let c: ToolClient;
  const overview = async (client: ToolClient, url: string) => {
    pace(real.t);
    return client.get(`/site-tool/overview?${qs({ url })}`);
  };
  const labsTasks = () =>
    real.dataforseo!.requests.filter((r) => r.url.pathname === RANK_OVERVIEW).map((r) => (JSON.parse(r.body) as Record<string, unknown>[])[0]);

  before(async () => {
    real = await startRealMode({ links: 'majestic', dataforseo: true, world: 'none' });
    c = await newClient(real.t);
  });
  after(async () => real.close());

  test('starbucks.com: Labs’ organic counters as given, for the month bought; bought once for two accounts', async () => {
    const res = await overview(c, 'starbucks.com');
    assert.equal(res.statusCode, 200, res.body);
    const [dist, ...rest] = res.json().rankDist;
    assert.deepEqual(rest, []);
    const day = new Date(real.t.clock.now()).toISOString().slice(0, 10);
    assert.match(dist._id, /^[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...dist, _id: undefined },
      {
        _id: undefined,
        domain: 'starbucks.com',
        bucket: 0,
        lid: 2840,
        visibility: {},
        rank: {},
        updated_at: Date.parse(`${day}T00:00:00Z`) / 1000,
        metrics_absolute: { [day.slice(0, 7)]: { organic: real.web.rankOverview['starbucks.com'] } },
      },
    );
    assert.deepEqual(labsTasks(), [{ target: 'starbucks.com', location_code: 2840, language_code: 'en' }]);
    // `social` null ("never fetched") aside, as the other real-mode shape checks do (test/e2e/noSandbox.test.ts).
    const { social: _social, ...shaped } = res.json();
    assertReferenceShape('GET', '/site-tool/overview', 200, shaped);

    const other = await newClient(real.t);
    const again = await overview(other, 'starbucks.com');
    assert.deepEqual(again.json().rankDist, [dist]);
    assert.equal(labsTasks().length, 1, 'bought once for both accounts');
  });

  test('a URL’s statistics are its host’s (without www.); a domain Labs ranks nothing of has none', async () => {
    const url = await overview(c, 'https://www.starbucks.com/menu');
    assert.equal(url.statusCode, 200, url.body);
    assert.equal(url.json().rankDist[0].domain, 'starbucks.com');
    const none = await overview(c, 'peets.com');
    assert.equal(none.statusCode, 200, none.body);
    assert.deepEqual(none.json().rankDist, []);
    assert.equal(labsTasks().at(-1)!.target, 'peets.com');
  });

  test('Labs failing: 424 UpstreamError, the overview not charged', async () => {
    const before = (await c.pool('sp-overview')).remaining;
    real.dataforseo!.script(dfsError(40501, "Invalid Field: 'target'."));
    const res = await overview(c, 'wikipedia.org');
    assert.equal(res.statusCode, 424, res.body);
    assert.equal(res.json().error.type, 'UpstreamError');
    assert.equal((await c.pool('sp-overview')).remaining, before);
  });
});
