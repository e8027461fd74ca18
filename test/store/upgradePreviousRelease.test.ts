/**
 * A data directory written by the previous release (test/fixtures/previous-release, made at
 * c04d61f) opens with this one and loses nothing: the account and its key, request
 * histories, the keyword list, favourite links, the finished export and its file, rank
 * trackings with their checks, and reports with their types converted to the reference's
 * numbers (0 alert, 1 weekly, 2 monthly), their alert threshold kept and their sent
 * periods not sent again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import type { QuarryContext } from '../../src/context.js';
import { FakeClock } from '../../src/lib/clock.js';
import { rankServices } from '../../src/rank/rankService.js';
import { closeContext, createContext } from '../../src/service.js';
import { copyTinyWorld } from '../support/world.js';
import { embeddedOnly } from '../support/postgres.js';

const FIXTURE = new URL('../fixtures/previous-release/', import.meta.url);
const meta = JSON.parse(fs.readFileSync(new URL('account.json', FIXTURE), 'utf8')) as { id: string; key: string; list_id: string; export_id: string };
const refs = JSON.parse(fs.readFileSync(new URL('research-refs.json', FIXTURE), 'utf8')) as {
  id: string;
  kw: string;
  location_id: number;
  language_id: number;
}[];
/** What the fixture holds beside the data directory's own files. */
const NOT_DATA = new Set(['README.md', 'account.json', 'research-refs.json']);

let dataDir: string;
let ctx: QuarryContext;
let app: FastifyInstance;
let clock: FakeClock;

async function get(url: string): Promise<any> {
  const res = await app.inject({ method: 'GET', url: `/v3${url}`, headers: { 'x-access-token': meta.key } });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json();
}

describe('upgrading a data directory of the previous release', { skip: embeddedOnly("the previous release's SQLite files") }, () => {
  before(async () => {
    fs.mkdirSync(path.resolve('.test-data'), { recursive: true });
    dataDir = fs.mkdtempSync(path.join(path.resolve('.test-data'), 'previous-release-'));
    const source = new URL('.', FIXTURE).pathname;
    for (const entry of fs.readdirSync(source, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || NOT_DATA.has(entry.name)) continue;
      const rel = path.relative(source, path.join(entry.parentPath, entry.name));
      fs.mkdirSync(path.dirname(path.join(dataDir, rel)), { recursive: true });
      fs.copyFileSync(path.join(source, rel), path.join(dataDir, rel));
    }
    // The research store of that directory: the test world plus the keyword ids it had issued
    // (written once the engine has made its tables).
    const research = await copyTinyWorld(1, dataDir);
    clock = new FakeClock();
    ctx = await createContext(loadConfig({ QUARRY_GATEWAY_RPS: '0', QUARRY_DATA_DIR: dataDir, QUARRY_PUBLIC_URL: 'http://quarry.test' }), { clock });
    const db = new SqliteDatabase(research);
    const insert = db.prepare('INSERT OR IGNORE INTO search_keyword_refs (id, kw, location_id, language_id) VALUES (?, ?, ?, ?)');
    for (const r of refs) insert.run(r.id, r.kw, r.location_id, r.language_id);
    db.close();
    app = await buildApp(ctx);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    if (ctx) {
      await rankServices(ctx).reports.close();
      await closeContext(ctx);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the account, its key and its request histories', async () => {
    const keyword = await get('/keyword-tool/requests');
    assert.ok(JSON.stringify(keyword).includes('running shoes'), JSON.stringify(keyword));
    const serp = await get('/serp-tool/requests');
    assert.ok(JSON.stringify(serp).includes('running shoes'), JSON.stringify(serp));
  });

  test('the keyword list and the favourite links', async () => {
    const list = await get(`/keyword-tool/lists/${meta.list_id}`);
    assert.equal(list.list.name, 'Shoes');
    assert.deepEqual(list.keywords.map((k: { _id: string }) => k._id).sort(), refs.map((r) => r.id).sort());
    const favourites = await get('/link-tool/favorites');
    const lists = Array.isArray(favourites) ? favourites : favourites.lists;
    assert.equal(lists.length, 1);
    assert.equal(lists[0].domain, 'cleanbot.fr');
    assert.equal(lists[0].link_ids.length, 2);
  });

  test('the finished export and its file', async () => {
    const jobs = (await get('/link-tool/exports')) as { _id: string; downloadURL?: string; request: { url: string } }[];
    const job = jobs.find((j) => j._id === meta.export_id);
    assert.ok(job?.downloadURL, JSON.stringify(jobs));
    assert.equal(job.request.url, 'cleanbot.fr');
    const u = new URL(job.downloadURL);
    const file = await app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
    assert.equal(file.statusCode, 200);
    assert.equal(file.body, fs.readFileSync(new URL(`exports/${meta.export_id}.csv`, FIXTURE), 'utf8'));
  });

  test('rank trackings with their keywords and checks; reports with the reference’s type numbers', async () => {
    const trackings = (await get('/rank-tool/trackings?is_with_deleted=true')) as any[];
    assert.deepEqual(trackings.map((t) => [t.domain, t.platform_id, t.count, t.is_deleted]).sort(), [
      ['cleanbot.fr', 1, 3, false],
      ['learnhub.com', 1, 1, true],
      ['openpedia.org', 1, 2, false],
      ['openpedia.org', 2, 2, false],
    ]);
    const main = trackings.find((t) => t.domain === 'cleanbot.fr');
    const paused = trackings.find((t) => t.domain === 'openpedia.org' && t.platform_id === 1);
    assert.deepEqual(main.reports_active, [0, 1, 2]);
    assert.deepEqual(paused.reports_active, [], 'reports paused before the upgrade stay paused');
    assert.deepEqual(main.tracking_config, { address: null, ludocid: null, name: null, place_id: null });

    const reports = (await get(`/rank-tool/trackings/${main._id}/reports`)) as any[];
    const summary = reports
      .map((r) => [r.type, r.name, r.emails.join(), r.triggers, r.min_change])
      .sort((a, b) => a[0] - b[0] || String(a[1]).localeCompare(String(b[1])));
    assert.deepEqual(summary, [
      [0, 'Big moves', 'alerts@example.test', [], 1],
      [1, '', 'team@example.test,boss@example.test', [], null],
      [1, 'Weekly report', 'previous-release@example.test', [], null],
      [2, 'Monthly report', 'previous-release@example.test', [], null],
    ]);

    // Eight days of checks, 2026-11-09 to 2026-11-16.
    const keywords = (await get(`/rank-tool/trackings/${main._id}/tracked-keywords`)) as any[];
    assert.equal(keywords.length, 3);
    for (const k of keywords) {
      const detail = await get(`/rank-tool/trackings/${main._id}/tracked-keywords/${k._id}`);
      assert.deepEqual(
        detail.history.map((h: { date: string }) => h.date),
        ['2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15', '2026-11-16'],
      );
    }
    const stats = (
      await app.inject({
        method: 'POST',
        url: `/v3/rank-tool/trackings/${main._id}/stats?from=2026-11-09&to=2026-11-16`,
        headers: { 'x-access-token': meta.key },
        payload: {},
      })
    ).json();
    assert.equal(stats.history_dates.length, 8);
    assert.ok(Object.values(stats.stats.timeframes).every((f: any) => f.keywords_with_history === 3));
  });

  test('reports sent before the upgrade are not sent again; the next period goes to the converted weekly reports', async () => {
    const { reports } = rankServices(ctx);
    // Sunday 2026-11-22: the week of 11-09 was sent before the upgrade, nothing else is due.
    assert.deepEqual(await reports.runDueReports(clock.now()), { sent: 0, failed: 0 });
    // Monday: the week of 11-16 ends; each active weekly report sends it (two of cleanbot.fr, openpedia.org mobile).
    clock.set(Date.UTC(2026, 10, 23, 0, 5));
    assert.deepEqual(await reports.runDueReports(clock.now()), { sent: 3, failed: 0 });
    const sent = fs.readdirSync(path.join(dataDir, 'outbox')).filter((f) => f.startsWith('2026-11-16-'));
    assert.equal(sent.length, 3);
  });

  test('tags and annotations work on the old trackings', async () => {
    const [tracking] = (await get('/rank-tool/trackings')) as { _id: string }[];
    const res = await app.inject({
      method: 'POST',
      url: `/v3/rank-tool/trackings/${tracking._id}/tags`,
      headers: { 'x-access-token': meta.key },
      payload: { name: 'After the upgrade', color: '#000000' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      ((await get('/rank-tool/tags')) as { name: string }[]).map((t) => t.name),
      ['After the upgrade'],
    );
  });
});
