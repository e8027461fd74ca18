/** GET /shared/locations/{location} and the picker search GET /shared/locations?query=. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../../support/app.js';

let t: TestApp;
let key: string;

function get(url: string) {
  return t.app.inject({ method: 'GET', url: `/v3/shared${url}`, headers: { 'x-access-token': key } });
}

const LOCATION_FIELDS = [
  '_id',
  'active',
  'canonical_name',
  'code',
  'country_code',
  'created_at',
  'engine_domain',
  'label',
  'name',
  'parent_id',
  'status',
  'target_type',
  'tld',
  'type',
].sort();

describe('GET /shared/locations/{location}', () => {
  before(async () => {
    t = await testApp();
    ({ key } = await t.account('entry'));
  });
  after(async () => t.close());

  test('a country: the full location object', async () => {
    const res = await get('/locations/2840');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const loc = res.json();
    assert.deepEqual(Object.keys(loc).sort(), LOCATION_FIELDS);
    assert.equal(loc._id, 2840);
    assert.equal(loc.name, 'United States');
    assert.equal(loc.canonical_name, 'United States');
    assert.equal(loc.engine_domain, 'google.com');
    assert.equal(loc.tld, 'com');
    assert.equal(loc.country_code, 'US');
    assert.equal(loc.code, 'us');
    assert.equal(loc.type, 1);
    assert.equal(loc.target_type, 'Country');
    assert.equal(loc.parent_id, null);
    assert.equal(loc.active, true);
    assert.equal(typeof loc.status, 'string');
    assert.equal(typeof loc.label, 'string');
    assert.ok(Number.isInteger(loc.created_at) && loc.created_at > 1_000_000_000 && loc.created_at < 10_000_000_000);
  });

  test('another country has its own engine domain', async () => {
    const de = (await get('/locations/2276')).json();
    assert.equal(de.name, 'Germany');
    assert.equal(de.engine_domain, 'google.de');
    assert.equal(de.tld, 'de');
    assert.equal(de.code, 'de');
    assert.equal(de.country_code, 'DE');
    const uk = (await get('/locations/2826')).json();
    assert.equal(uk.code, 'gb');
    assert.match(uk.engine_domain, /^google\.co\.uk$/);
  });

  test('a city with its parent chain up to its country', async () => {
    const city = (await get('/locations/1023191')).json();
    assert.equal(city.name, 'New York');
    assert.equal(city.type, 5);
    assert.equal(city.target_type, 'City');
    assert.equal(city.parent_id, 21167);
    assert.equal(city.code, 'us');
    assert.equal(city.engine_domain, 'google.com');
    const state = (await get('/locations/21167')).json();
    assert.equal(state.name, 'New York');
    assert.equal(state.type, 2);
    assert.equal(state.parent_id, 2840);
    const country = (await get(`/locations/${state.parent_id}`)).json();
    assert.equal(country.parent_id, null);
    assert.equal(country.type, 1);
  });

  test('location 0 is the global scope', async () => {
    const res = await get('/locations/0');
    assert.equal(res.statusCode, 200);
    const loc = res.json();
    assert.equal(loc._id, 0);
    assert.equal(loc.type, 0);
    assert.equal(loc.parent_id, null);
  });

  test('an unknown id → 404 Location not found, exactly', async () => {
    for (const id of ['1', '9999999', '-5', '2147483647']) {
      const res = await get(`/locations/${id}`);
      assert.equal(res.statusCode, 404, id);
      assert.equal(res.body, '{"error":{"type":"Error","message":"Location not found"}}');
    }
  });

  test('a non-integer → 422 Parameter location is invalid', async () => {
    for (const id of ['abc', '1.5', '2840abc', '99999999999999999999', '%E2%9C%93', '-']) {
      const res = await get(`/locations/${id}`);
      assert.equal(res.statusCode, 422, id);
      assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: 'Parameter location is invalid' } });
    }
  });

  test('a trailing slash is the same location', async () => {
    assert.equal((await get('/locations/2840/')).json()._id, 2840);
  });
});

describe('GET /shared/locations?query=', () => {
  before(async () => {
    t = await testApp();
    ({ key } = await t.account('entry'));
  });
  after(async () => t.close());

  test('countries come first, then narrower places', async () => {
    const res = await get('/locations?query=united');
    assert.equal(res.statusCode, 200);
    const found = res.json() as { _id: number; type: number; name: string; active: boolean }[];
    assert.ok(found.length > 3);
    assert.ok(found.some((l) => l._id === 2840));
    assert.ok(found.some((l) => l._id === 2826));
    for (let i = 1; i < found.length; i++) assert.ok(found[i - 1].type <= found[i].type, 'ordered by type');
    for (const l of found) assert.equal(l.active, true);
    assert.deepEqual(Object.keys(found[0]).sort(), LOCATION_FIELDS);
  });

  test('at most 100 results, every one matching', async () => {
    const found = (await get('/locations?query=a')).json() as { name: string; canonical_name: string }[];
    assert.equal(found.length, 100);
    for (const l of found) assert.ok(/a/i.test(l.name + l.canonical_name));
  });

  test('case and accents do not matter; surrounding spaces are ignored', async () => {
    const lower = (await get('/locations?query=germany')).json();
    const upper = (await get('/locations?query=%20GERMANY%20')).json();
    assert.deepEqual(upper, lower);
    assert.equal(lower[0]._id, 2276);
    const accented = (await get(`/locations?query=${encodeURIComponent('Zürich')}`)).json() as { _id: number }[];
    const plain = (await get('/locations?query=zurich')).json() as { _id: number }[];
    assert.deepEqual(
      accented.map((l) => l._id),
      plain.map((l) => l._id),
    );
    assert.ok(plain.length > 0);
  });

  test('a city is found by name and carries its parent', async () => {
    const found = (await get('/locations?query=new%20york')).json() as { _id: number; parent_id: number | null }[];
    const city = found.find((l) => l._id === 1023191);
    assert.ok(city, 'New York city is among the results');
    assert.equal(city.parent_id, 21167);
    const state = found.findIndex((l) => l._id === 21167);
    assert.ok(state >= 0 && state < found.findIndex((l) => l._id === 1023191), 'the state before the city');
  });

  test('no match → an empty array', async () => {
    const res = await get('/locations?query=qqqqzzzzxxxx');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  test('a missing or empty query → 422', async () => {
    for (const url of ['/locations', '/locations?query=', '/locations?q=germany']) {
      const res = await get(url);
      assert.equal(res.statusCode, 422, url);
      assert.deepEqual(res.json(), { error: { type: 'InvalidInput', message: 'Parameter query is invalid' } });
    }
  });

  test('needs a key like every operation but limits', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v3/shared/locations?query=germany' });
    assert.equal(res.statusCode, 401);
  });
});
