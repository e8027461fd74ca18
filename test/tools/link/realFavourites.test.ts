/**
 * Favourites of provider links in real mode (issue 24; link-tool rule 2 and the PATCH row of
 * the contract's link tool: `link_id` is "the `_id` of a link from `/link-tool/links`"). The
 * favourite operation looked a link id up in the sandbox index, so a link the provider served
 * could not be marked (200 null). Now the links an account was served are kept for it
 * (store/servedLinks.ts): it can mark, list, read with full data and remove them, across a
 * restart (SQLite file, or PostgreSQL under npm run test:scale); an id it was never served —
 * another account's, the sandbox's, anything else — answers null and changes nothing.
 * Providers: the Majestic and Moz fakes and the DataForSEO fake (test/support/fakes, each
 * built from its provider's documented format; the samples are cited there).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedTestState, type SharedTestState } from '../../support/app.js';
import { linksTo } from '../../support/fakes/index.js';
import { startRealMode, type RealMode } from '../../support/realMode.js';
import { DAY, SECOND } from '../../../src/lib/clock.js';
import { linkClient, pace, q, type LinkClient } from './helpers.js';

type Link = Record<string, unknown> & { _id: string };

const fav = (c: LinkClient, id: string, favorite: boolean) => c.patch(`/favorite-links/${encodeURIComponent(id)}`, { favorite });
const linksOf = async (c: LinkClient, url: string): Promise<Link[]> => {
  const res = await c.get(`/links?${q({ url, source: 0, page: 0, links_per_domain: 0 })}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().links;
};

describe('favourites of Majestic links (world none), across a restart', () => {
  let state: SharedTestState;
  let real: RealMode;
  let keys: { a: { id: string; key: string }; b: { id: string; key: string } };
  const client = (who: 'a' | 'b') => linkClient(real.t, keys[who].id, keys[who].key);
  let served: Link[];

  before(async () => {
    state = await sharedTestState();
    real = await startRealMode({ links: 'majestic', world: 'none', state });
    keys = { a: await real.t.account(), b: await real.t.account() };
    served = await linksOf(client('a'), 'starbucks.com');
    assert.equal(served.length, linksTo(real.web, 'starbucks.com').length);
    assert.ok(served.length >= 3, 'the fake serves several links of starbucks.com');
  });
  after(async () => {
    await real.close();
    await state.close();
  });

  test('a served link is marked, listed and read with the data it was served with; unmarked; the list deleted', async () => {
    const a = client('a');
    const first = await fav(a, served[0]._id, true);
    assert.equal(first.statusCode, 200, first.body);
    const list = first.json();
    assert.equal(list.domain, 'starbucks.com');
    assert.equal(list.user_id, keys.a.id);
    assert.deepEqual(list.link_ids, [served[0]._id]);
    real.t.clock.advance(SECOND);
    assert.deepEqual((await fav(a, served[1]._id, true)).json().link_ids, [served[0]._id, served[1]._id]);
    // Marking it again changes nothing.
    assert.deepEqual((await fav(a, served[1]._id, true)).json().link_ids, [served[0]._id, served[1]._id]);

    const lists = (await a.get('/favorites')).json();
    assert.deepEqual(
      lists.map((l: { _id: string }) => l._id),
      [list._id],
    );
    const detail = (await a.get(`/favorites/${list._id}`)).json();
    assert.deepEqual(detail.links, [served[0], served[1]], 'the full data of each link, as the provider served it');

    const removed = (await fav(a, served[0]._id, false)).json();
    assert.deepEqual(removed.link_ids, [served[1]._id]);
    assert.equal((await a.del(`/favorites/${list._id}`)).statusCode, 204);
    assert.equal((await a.get(`/favorites/${list._id}`)).json(), null);
    assert.deepEqual((await a.get('/favorites')).json(), []);
  });

  test('another account cannot mark a link it was not served, nor see or delete the list of the account that was', async () => {
    const a = client('a');
    const b = client('b');
    const mine = (await fav(a, served[2]._id, true)).json();
    const theirs = await fav(b, served[2]._id, true);
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(theirs.json(), null, 'a link served to another account is unknown to this one');
    assert.equal((await fav(b, served[2]._id, false)).json(), null);
    assert.deepEqual((await b.get('/favorites')).json(), []);
    assert.equal((await b.get(`/favorites/${mine._id}`)).json(), null);
    assert.equal((await b.del(`/favorites/${mine._id}`)).statusCode, 204);
    assert.deepEqual((await a.get(`/favorites/${mine._id}`)).json().link_ids, [served[2]._id], 'untouched by the other account');

    // Once served to it, the other account marks the link in a list of its own.
    pace(real.t);
    await linksOf(b, 'starbucks.com');
    const own = (await fav(b, served[2]._id, true)).json();
    assert.equal(own.user_id, keys.b.id);
    assert.notEqual(own._id, mine._id);
    assert.equal((await b.del(`/favorites/${own._id}`)).statusCode, 204);
    assert.equal((await a.del(`/favorites/${mine._id}`)).statusCode, 204);
  });

  test('hostile and unknown link ids answer null and create nothing', async () => {
    const a = client('a');
    const id = served[0]._id;
    const hostile = [
      id.toUpperCase(),
      `${id} `,
      `${id}0`,
      id.slice(0, 23),
      '0'.repeat(24),
      "' OR '1'='1",
      `${id}' OR link_id LIKE '%`,
      '%',
      '../favorites',
      'a\u0000b',
      'é'.repeat(24),
      'f'.repeat(100),
    ];
    for (const linkId of hostile) {
      const res = await fav(a, linkId, true);
      assert.equal(res.statusCode, 200, `${JSON.stringify(linkId)}: ${res.body}`);
      assert.equal(res.json(), null, JSON.stringify(linkId));
    }
    assert.deepEqual((await a.get('/favorites')).json(), []);
  });

  test('served links and favourites survive a restart; a link served too long ago can no longer be marked, but is still listed and can be unmarked', async () => {
    const a = client('a');
    const list = (await fav(a, served[0]._id, true)).json();
    await real.restart();
    const again = client('a');
    assert.deepEqual((await again.get(`/favorites/${list._id}`)).json().links, [served[0]], 'the favourite and its data after a restart');
    const marked = await fav(again, served[1]._id, true);
    assert.deepEqual(marked.json().link_ids, [served[0]._id, served[1]._id], 'a link served before the restart is marked after it');

    // 31 days on: another answer prunes the served links of starbucks.com; the favourites keep their copies.
    real.t.clock.advance(31 * DAY);
    await linksOf(again, 'peets.com');
    assert.equal((await fav(again, served[2]._id, true)).json(), null, 'served too long ago');
    assert.deepEqual((await again.get(`/favorites/${list._id}`)).json().links, [served[0], served[1]]);
    assert.deepEqual((await fav(again, served[0]._id, false)).json().link_ids, [served[1]._id], 'still unmarked');
    assert.equal((await again.del(`/favorites/${list._id}`)).statusCode, 204);
  });
});

describe('favourites of DataForSEO Backlinks links (sandbox world beside it)', () => {
  let real: RealMode;
  before(async () => {
    real = await startRealMode({ links: 'dataforseo' });
  });
  after(async () => real.close());

  test('a link from backlinks/backlinks/live is marked and read back as served; a sandbox link id is not a link of real mode', async () => {
    const { id, key } = await real.t.account();
    const c = linkClient(real.t, id, key);
    const served = await linksOf(c, 'starbucks.com');
    assert.ok(served.length > 0);
    const list = (await fav(c, served[0]._id, true)).json();
    assert.equal(list.domain, 'starbucks.com');
    assert.deepEqual((await c.get(`/favorites/${list._id}`)).json().links, [served[0]]);

    // Marked again after the link was served anew with other data: the list shows it as last served.
    const link = real.web.links.find((l) => served[0].source === l.source && served[0].target === l.target)!;
    assert.ok(link, 'the fake link behind the served one');
    assert.notEqual(served[0].last_seen, '2026-11-27');
    link.lastSeen = '2026-11-27';
    real.t.clock.advance(8 * DAY);
    const fresh = (await linksOf(c, 'starbucks.com')).find((l) => l._id === served[0]._id)!;
    assert.equal(fresh.last_seen, '2026-11-27', 'served anew with the provider’s new data');
    assert.deepEqual((await fav(c, served[0]._id, true)).json().link_ids, [served[0]._id]);
    assert.deepEqual((await c.get(`/favorites/${list._id}`)).json().links, [fresh], 'the copy refreshed by marking it again');

    // The sandbox world's links are not what GET /link-tool/links answers in real mode.
    const sandbox = real.t.ctx.engine.links.backlinks('openpedia.org', { source: 0, linksPerDomain: 0 }, { offset: 0, limit: 1 });
    const sandboxId = sandbox!.links[0]._id;
    assert.equal((await fav(c, sandboxId, true)).json(), null);
    assert.deepEqual(
      (await c.get('/favorites')).json().map((l: { domain: string }) => l.domain),
      ['starbucks.com'],
    );
  });
});
