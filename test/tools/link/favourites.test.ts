/**
 * Favourite links (link-tool rule 2, DESIGN.md §5 "Favourites"): PATCH true/false adds and
 * removes and answers the list, an unknown link id answers 200 null; GET /favorites newest
 * update first; GET /favorites/{id} with the full data of every link, unknown → null;
 * DELETE 204 then gone, and 204 again for an unknown or already deleted list (idempotent).
 * Another account can neither read nor delete a list: its DELETE answers 204 and touches nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';
import { SECOND } from '../../../src/lib/clock.js';
import { newLinkClient, q, type LinkClient } from './helpers.js';

let t: TestApp;
/** Backlinks of two root domains, as GET /link-tool/links shows them. */
let wiki: Record<string, unknown>[];
let bot: Record<string, unknown>[];

const LIST_FIELDS = ['_id', 'created_at', 'domain', 'link_ids', 'updated_at', 'user_id'];
const fav = (c: LinkClient, id: string, favorite: unknown) => c.patch(`/favorite-links/${encodeURIComponent(id)}`, { favorite });
const ids = (links: Record<string, unknown>[]) => links.map((l) => l._id as string);

describe('link tool: favourites', () => {
  before(async () => {
    t = await testApp();
    const c = await newLinkClient(t);
    wiki = (await c.get(`/links?${q({ url: 'openpedia.org', source: 0, page: 0, links_per_domain: 0 })}`)).json().links;
    bot = (await c.get(`/links?${q({ url: 'cleanbot.fr', source: 0, page: 0, links_per_domain: 0 })}`)).json().links;
  });
  after(async () => t.close());

  test('PATCH favorite true adds the link to the list of its target root domain, false removes it; both answer the list', async () => {
    const c = await newLinkClient(t);
    const links = (await c.pool()).remaining;
    const first = await fav(c, wiki[0]._id as string, true);
    assert.equal(first.statusCode, 200, first.body);
    const list = first.json();
    assert.deepEqual(Object.keys(list).sort(), LIST_FIELDS);
    assert.equal(list.domain, 'openpedia.org');
    assert.equal(list.user_id, c.id);
    assert.deepEqual(list.link_ids, [wiki[0]._id]);
    assert.ok(Number.isInteger(list.created_at) && Number.isInteger(list.updated_at));
    t.clock.advance(SECOND);
    const second = (await fav(c, wiki[1]._id as string, true)).json();
    assert.equal(second._id, list._id, 'one list per root domain');
    assert.deepEqual(second.link_ids, ids(wiki.slice(0, 2)));
    assert.ok(second.updated_at > list.updated_at);
    // Marking it again changes nothing.
    assert.deepEqual((await fav(c, wiki[1]._id as string, true)).json().link_ids, ids(wiki.slice(0, 2)));
    const removed = await fav(c, wiki[0]._id as string, false);
    assert.equal(removed.statusCode, 200);
    assert.equal(removed.json()._id, list._id);
    assert.deepEqual(removed.json().link_ids, [wiki[1]._id]);
    // A link of another domain goes to another list.
    const other = (await fav(c, bot[0]._id as string, true)).json();
    assert.equal(other.domain, 'cleanbot.fr');
    assert.notEqual(other._id, list._id);
    assert.equal((await c.pool()).remaining, links, 'favourites are free');
  });

  test('GET /favorites is newest update first also for updates within one second', async () => {
    const c = await newLinkClient(t);
    const linksOf = async (url: string) =>
      (await c.get(`/links?${q({ url, source: 0, page: 0, links_per_domain: 0 })}`)).json().links as Record<string, unknown>[];
    const [learn, west] = [await linksOf('learnhub.com'), await linksOf('westwire.fr')];
    const domains = () => c.get('/favorites').then((r) => r.json().map((l: { domain: string }) => l.domain));
    // The fake clock stands still: every update below falls in one second.
    for (const links of [wiki, bot, learn, west]) await fav(c, links[0]._id as string, true);
    assert.deepEqual(await domains(), ['westwire.fr', 'learnhub.com', 'cleanbot.fr', 'openpedia.org']);
    await fav(c, learn[1]._id as string, true);
    await fav(c, wiki[1]._id as string, true);
    await fav(c, bot[0]._id as string, false);
    assert.deepEqual(await domains(), ['cleanbot.fr', 'openpedia.org', 'learnhub.com', 'westwire.fr']);
    const lists = (await c.get('/favorites')).json() as { updated_at: number }[];
    assert.equal(new Set(lists.map((l) => l.updated_at)).size, 1, 'all in one second');
  });

  test('an unknown or malformed link id answers 200 null and creates nothing', async () => {
    const c = await newLinkClient(t);
    for (const id of ['ffffffffffffffffffffffff', '000000000000000000000000', 'not-a-link', 'zz']) {
      for (const favorite of [true, false]) {
        const res = await fav(c, id, favorite);
        assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
        assert.equal(res.body, 'null');
      }
    }
    assert.deepEqual((await c.get('/favorites')).json(), []);
  });

  test('un-marking a link of a domain without a list answers null and creates no empty list', async () => {
    const c = await newLinkClient(t);
    const res = await fav(c, wiki[6]._id as string, false);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'null');
    assert.deepEqual((await c.get('/favorites')).json(), []);
    // Removing the last link of an existing list keeps the (now empty) list.
    const list = (await fav(c, wiki[6]._id as string, true)).json();
    const emptied = (await fav(c, wiki[6]._id as string, false)).json();
    assert.equal(emptied._id, list._id);
    assert.deepEqual(emptied.link_ids, []);
  });

  test('GET /favorites: every list, most recently updated first', async () => {
    const c = await newLinkClient(t);
    const a = (await fav(c, wiki[0]._id as string, true)).json();
    t.clock.advance(SECOND);
    const b = (await fav(c, bot[0]._id as string, true)).json();
    let res = await c.get('/favorites');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().map((l: { _id: string }) => l._id),
      [b._id, a._id],
    );
    for (const l of res.json()) assert.deepEqual(Object.keys(l).sort(), LIST_FIELDS);
    t.clock.advance(SECOND);
    await fav(c, wiki[2]._id as string, true);
    res = await c.get('/favorites');
    assert.deepEqual(
      res.json().map((l: { _id: string }) => l._id),
      [a._id, b._id],
      'an update moves a list to the front',
    );
    assert.deepEqual(res.json()[0].link_ids, [wiki[0]._id, wiki[2]._id]);
  });

  test('GET /favorites/{id}: the list with the full data of every link; an unknown id answers null', async () => {
    const c = await newLinkClient(t);
    await fav(c, wiki[3]._id as string, true);
    // Added a second apart: a list keeps the order links were added in (links added in the
    // same second are ordered by id, which need not be the order GET /links shows them in).
    t.clock.advance(SECOND);
    const list = (await fav(c, wiki[4]._id as string, true)).json();
    const res = await c.get(`/favorites/${list._id}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body._id, list._id);
    assert.deepEqual(body.link_ids, ids(wiki.slice(3, 5)));
    assert.deepEqual(body.links, wiki.slice(3, 5), 'the links exactly as GET /link-tool/links shows them');
    for (const id of ['ffffffffffffffffffffffff', 'nope']) {
      const unknown = await c.get(`/favorites/${id}`);
      assert.equal(unknown.statusCode, 200);
      assert.equal(unknown.body, 'null');
    }
  });

  test('DELETE /favorites/{id}: 204 empty, then the list is gone; deleting again, or an unknown id, is 204 too', async () => {
    const c = await newLinkClient(t);
    const list = (await fav(c, bot[1]._id as string, true)).json();
    const res = await c.del(`/favorites/${list._id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await c.get(`/favorites/${list._id}`)).body, 'null');
    assert.deepEqual((await c.get('/favorites')).json(), []);
    for (const id of [list._id, 'ffffffffffffffffffffffff', 'nope']) {
      const again = await c.del(`/favorites/${id}`);
      assert.equal(again.statusCode, 204, `DELETE ${id}`);
      assert.equal(again.body, '');
    }
    // Favouriting the link again starts a new, empty-but-one list.
    const fresh = (await fav(c, bot[1]._id as string, true)).json();
    assert.notEqual(fresh._id, list._id);
    assert.deepEqual(fresh.link_ids, [bot[1]._id]);
  });

  test('isolation: another account cannot read (null), list or delete (204, nothing touched) a list, and its own favourites stay apart', async () => {
    const a = await newLinkClient(t);
    const b = await newLinkClient(t);
    const list = (await fav(a, wiki[5]._id as string, true)).json();
    assert.equal((await b.get(`/favorites/${list._id}`)).body, 'null');
    assert.deepEqual((await b.get('/favorites')).json(), []);
    const del = await b.del(`/favorites/${list._id}`);
    // Answered like an unknown id: nothing tells B the list exists.
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    const { links, ...kept } = (await a.get(`/favorites/${list._id}`)).json();
    assert.deepEqual(kept, list, 'intact for its owner');
    assert.deepEqual(ids(links), [wiki[5]._id]);
    assert.deepEqual((await a.get('/favorites')).json(), [list]);
    // B favouriting the same link gets B's own list; A's is untouched, also by B's unfavouring.
    const mine = (await fav(b, wiki[5]._id as string, true)).json();
    assert.notEqual(mine._id, list._id);
    assert.equal(mine.user_id, b.id);
    await fav(b, wiki[5]._id as string, false);
    assert.deepEqual((await a.get(`/favorites/${list._id}`)).json().link_ids, [wiki[5]._id]);
    assert.deepEqual(
      (await a.get('/favorites')).json().map((l: { _id: string }) => l._id),
      [list._id],
    );
  });
});
