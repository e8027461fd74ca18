/**
 * Bought once, for everyone (issue 24): the link-index and authority answers against the
 * Majestic and Moz fakes (test/support/fakes: Majestic's and Moz's documented formats, each
 * file cites its genuine sample answers), kept in the state store with a freshness per kind.
 * Two LinkData over one state store stand for two processes (nothing shared in memory): on
 * SQLite one state.db opened twice, in the scale mode (QUARRY_TEST_SCALE=1) one PostgreSQL
 * database with two pools. Values traced from the fake's web to what is answered; batches of
 * 100 (Majestic) and 50 (Moz); a failed call is refunded and nothing is stored.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock, DAY } from '../../../src/lib/clock.js';
import { openPostgresStateStore, openStateStore, type StateStore } from '../../../src/store/database.js';
import { ProviderLedger } from '../../../src/engine/sources/providerLedger.js';
import { loadSourcesConfig } from '../../../src/engine/sources/sourceConfig.js';
import { createLinkData, type LinkData } from '../../../src/engine/sources/links/linkData.js';
import { linkTarget } from '../../../src/engine/sources/links/linkTypes.js';
import { SourceError } from '../../../src/engine/sources/types.js';
import {
  coffeeWeb,
  linkProviderEnv,
  majesticError,
  startFakeMajestic,
  startFakeMoz,
  FAKE_MAJESTIC_KEY,
  FAKE_MOZ_TOKEN,
  type FakeMajestic,
  type FakeUpstream,
} from '../../support/fakes/index.js';
import { createTestDatabase, scaleMode } from '../../support/postgres.js';

const web = coffeeWeb();
let majestic: FakeMajestic;
let moz: FakeUpstream;
let stores: StateStore[] = [];
let cleanup: () => Promise<void>;
let clock: FakeClock;
const t = (s: string, type?: 'URL') => linkTarget(s, type)!;

/** Two state stores on one database: two processes' views of the shared state. */
async function twoProcesses(): Promise<[StateStore, StateStore]> {
  if (scaleMode) {
    const db = await createTestDatabase();
    const a = await openPostgresStateStore(db.url, { max: 2 });
    const b = await openPostgresStateStore(db.url, { max: 2 });
    cleanup = async () => {
      await a.close();
      await b.close();
      await db.drop();
    };
    return [a, b];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-linkdata-'));
  const a = await openStateStore(path.join(dir, 'state.db'));
  const b = await openStateStore(path.join(dir, 'state.db'), { busyTimeoutMs: 5_000 });
  cleanup = async () => {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return [a, b];
}

function linkData(store: StateStore, extra: Record<string, string> = {}): LinkData {
  const config = loadSourcesConfig({ ...linkProviderEnv({ majestic, moz }), ...extra });
  return createLinkData(config, { state: store.db, clock, ledger: new ProviderLedger(store.db), sleep: () => Promise.resolve() })!;
}

before(async () => {
  majestic = await startFakeMajestic(web, FAKE_MAJESTIC_KEY);
  moz = await startFakeMoz(web, FAKE_MOZ_TOKEN);
});
after(async () => {
  await majestic.close();
  await moz.close();
});
beforeEach(async () => {
  if (stores.length > 0) await cleanup();
  stores = await twoProcesses();
  clock = new FakeClock();
});
after(async () => {
  if (stores.length > 0) await cleanup();
});

describe('link data from the providers', () => {
  test('item info and authority come as the fakes give them; an item no provider knows is null', async () => {
    const data = linkData(stores[0]);
    const [sb, unknown] = await data.itemInfo([t('starbucks.com'), t('never-linked.example')]);
    const item = web.items['starbucks.com'];
    assert.equal(sb!.Status, 'Found');
    assert.equal(sb!.CitationFlow, item.CitationFlow);
    assert.equal(sb!.TrustFlow, item.TrustFlow);
    assert.equal(sb!.ExtBackLinks, item.ExtBackLinks);
    assert.equal(sb!.RefDomains, item.RefDomains);
    assert.notEqual(unknown?.Status, 'Found');
    const [page] = await data.authority([t('https://www.starbucks.com/menu', 'URL')]);
    assert.deepEqual(page, { pda: web.authority['starbucks.com'].da, upa: web.authority['https://www.starbucks.com/menu'].pa, spam: 1 });
    assert.equal(data.linkSource, 'majestic');
    assert.equal(data.authoritySource, 'moz');
  });

  test('batches: 120 URLs are two GetIndexItemInfo calls (100 + 20) and three url_metrics calls (50 + 50 + 20)', async () => {
    const data = linkData(stores[0]);
    const urls = Array.from({ length: 120 }, (_, i) => t(`https://www.starbucks.com/page-${i}`, 'URL'));
    const mj = majestic.calls('GetIndexItemInfo').length;
    const mz = moz.requests.length;
    await Promise.all([data.itemInfo(urls), data.authority(urls)]);
    const items = majestic
      .calls('GetIndexItemInfo')
      .slice(mj)
      .map((r) => Number(r.url.searchParams.get('items')));
    assert.deepEqual(
      items.sort((a, b) => b - a),
      [100, 20],
    );
    const targets = moz.requests.slice(mz).map((r) => (JSON.parse(r.body) as { targets: string[] }).targets.length);
    assert.deepEqual(
      targets.sort((a, b) => b - a),
      [50, 50, 20],
    );
  });

  test('a datum is bought once for two processes, one after the other or at the same time', async () => {
    const [one, two] = [linkData(stores[0]), linkData(stores[1])];
    const mj = majestic.calls('GetIndexItemInfo').length;
    await one.itemInfo([t('peets.com')]);
    const [again] = await two.itemInfo([t('peets.com')]);
    assert.equal(again!.CitationFlow, web.items['peets.com'].CitationFlow);
    assert.equal(majestic.calls('GetIndexItemInfo').length - mj, 1, 'the second process read what the first bought');
    const mz = moz.requests.length;
    const target = [t('https://www.peets.com/', 'URL')];
    const [a, b] = await Promise.all([one.authority(target), two.authority(target)]);
    assert.deepEqual(a, b);
    assert.equal(moz.requests.length - mz, 1, 'asked at once by two processes, bought once');
    const [c, d] = await Promise.all([one.itemInfo([t('wikipedia.org')]), one.itemInfo([t('wikipedia.org')])]);
    assert.deepEqual(c, d);
    assert.equal(majestic.calls('GetIndexItemInfo').length - mj, 2, 'asked twice at once in one process, bought once');
  });

  test('freshness: link metrics are held a week, the new/lost calendar a day', async () => {
    const data = linkData(stores[0]);
    const mj = () => majestic.calls('GetIndexItemInfo').length;
    const cal = () => majestic.calls('GetNewLostBackLinkCalendar').length;
    const [i0, c0] = [mj(), cal()];
    await data.itemInfo([t('starbucks.com')]);
    await data.calendar(t('starbucks.com'), 30);
    clock.advance(6 * DAY);
    await data.itemInfo([t('starbucks.com')]);
    assert.equal(mj() - i0, 1, 'six days later the item info is still the one bought');
    clock.advance(DAY + 1);
    await data.itemInfo([t('starbucks.com')]);
    assert.equal(mj() - i0, 2, 'a week later it is bought again');
    await data.calendar(t('starbucks.com'), 30);
    assert.equal(cal() - c0, 2, 'the calendar is bought again the next day');
  });

  test('a failed call charges nothing, stores nothing, and the next ask buys again', async () => {
    const data = linkData(stores[0]);
    const ledger = new ProviderLedger(stores[0].db);
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    const before = await ledger.spend('majestic', day);
    majestic.script(majesticError('InvalidAPIKey', 'The API key is not valid'));
    await assert.rejects(data.itemInfo([t('starbucks.com')]), (err: unknown) => err instanceof SourceError && /InvalidAPIKey/.test(err.message));
    assert.deepEqual(await ledger.spend('majestic', day), before, 'refunded');
    const [sb] = await data.itemInfo([t('starbucks.com')]);
    assert.equal(sb!.CitationFlow, web.items['starbucks.com'].CitationFlow);
    assert.equal((await ledger.spend('majestic', day)).calls, before.calls + 1);
  });

  test('the daily budget stops calls; what is held is still answered', async () => {
    const data = linkData(stores[0], { QUARRY_LINK_DAILY_BUDGET_USD: '0.01', QUARRY_MAJESTIC_COST_USD: '0.01' });
    await data.itemInfo([t('starbucks.com')]);
    const calls = majestic.requests.length;
    await assert.rejects(data.itemInfo([t('peets.com')]), (err: unknown) => err instanceof SourceError && err.reason === 'budget');
    assert.equal(majestic.requests.length, calls, 'no call over budget');
    assert.equal((await data.itemInfo([t('starbucks.com')]))[0]!.Status, 'Found');
  });
});
