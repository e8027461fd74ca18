import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { openResearchStore } from '../../../src/engine/researchStore.js';
import { extractWatPage, importWat } from '../../../src/engine/import/watImport.js';
import { WarcFormatError } from '../../../src/engine/import/warcReader.js';
import { copyTinyWorld, TINY_WORLD_AS_OF } from '../../support/world.js';
import { assertSameMetrics } from '../../support/linkMetricsCompare.js';
import { warcRecord, writeWat, type WatPage } from '../../support/watFiles.js';

const PAGES: WatPage[] = [
  {
    url: 'https://www.crawled-blog.com/posts/one',
    date: '2026-10-05T10:00:00Z',
    links: [
      { path: 'A@/href', url: '/posts/two', text: '  Second   post ' },
      { path: 'A@/href', url: 'https://www.partner-shop.com/', text: 'Partner shop', rel: 'nofollow noopener' },
      { path: 'A@/href', url: 'https://forum.partner-shop.com/t/1', text: 'user comment', rel: 'ugc' },
      { path: 'IMG@/src', url: '/img/banner.png', alt: 'Banner of the shop' },
      { path: 'A@/href', url: 'https://www.partner-shop.com/sale', text: '' },
      { path: 'IMG@/src', url: '/img/alone.png', alt: 'not a link' },
      { path: 'IFRAME@/src', url: '//video.example-tube.com/embed/1' },
      { path: 'A@/href', url: 'mailto:me@crawled-blog.com', text: 'mail' },
      { path: 'A@/href', url: '#top', text: 'top' },
      { path: 'FORM@/action', url: '/search' },
      { path: 'A@/href', url: 'javascript:void(0)', text: 'js' },
    ],
  },
  {
    url: 'https://www.crawled-blog.com/posts/two',
    date: '2026-10-06T10:00:00Z',
    base: 'https://cdn.crawled-blog.com/base/',
    links: [{ path: 'A@/href', url: 'relative/page', text: 'via base' }],
  },
  { url: 'http://old.crawled-blog.com/', date: '2026-10-07T10:00:00Z', status: 301, location: 'https://www.crawled-blog.com/', links: [] },
  // The same page crawled again later: last seen moves, first seen stays; the links it no longer has are lost.
  {
    url: 'https://www.crawled-blog.com/posts/one',
    date: '2026-11-20T10:00:00Z',
    links: [{ path: 'A@/href', url: '/posts/two', text: 'Second post' }],
  },
];

test('WAT links: relative and base URLs resolved, nofollow/ugc, image, frame and redirect types, crawl dates', () => {
  const page = extractWatPage(
    JSON.stringify({
      Envelope: {
        'WARC-Header-Metadata': { 'WARC-Type': 'response', 'WARC-Target-URI': PAGES[0].url, 'WARC-Date': PAGES[0].date },
        'Payload-Metadata': { 'HTTP-Response-Metadata': { 'HTML-Metadata': { Links: PAGES[0].links } } },
      },
    }),
  )!;
  assert.equal(page.date, '2026-10-05');
  assert.deepEqual(page.links, [
    { url: 'https://www.crawled-blog.com/posts/two', anchor: 'Second post', alt: '', type: 'text', nofollow: false },
    { url: 'https://www.partner-shop.com/', anchor: 'Partner shop', alt: '', type: 'text', nofollow: true },
    { url: 'https://forum.partner-shop.com/t/1', anchor: 'user comment', alt: '', type: 'text', nofollow: true },
    { url: 'https://www.partner-shop.com/sale', anchor: 'Banner of the shop', alt: 'Banner of the shop', type: 'image', nofollow: false },
    { url: 'https://video.example-tube.com/embed/1', anchor: '', alt: '', type: 'frame', nofollow: false },
  ]);
  for (const hostile of [
    '',
    'not json',
    '[]',
    '{"Envelope": 5}',
    '{"Envelope":{"WARC-Header-Metadata":{"WARC-Type":"response","WARC-Target-URI":"ftp://x/","WARC-Date":"2026-01-01"}}}',
  ]) {
    assert.equal(extractWatPage(hostile), null, hostile);
  }
  const weird = extractWatPage(
    JSON.stringify({
      Envelope: {
        'WARC-Header-Metadata': { 'WARC-Type': 'response', 'WARC-Target-URI': 'https://a-site.com/', 'WARC-Date': '2026-01-01T00:00:00Z' },
        'Payload-Metadata': {
          'HTTP-Response-Metadata': { 'HTML-Metadata': { Links: [null, 5, { path: 'A@/href', url: 42 }, { path: 'A@/href', url: 'http://[bad' }] } },
        },
      },
    }),
  )!;
  assert.deepEqual(weird.links, []);
});

test('a WAT import stores the links with crawl dates and types, and serves them with metrics', async () => {
  const file = await copyTinyWorld(1);
  const dir = path.dirname(file);
  const wat = path.join(dir, 'CC-MAIN-test.warc.wat.gz');
  writeWat(wat, PAGES, [warcRecord('metadata', 'https://x.com/', 'application/json', '{broken json')]);
  const store = await openResearchStore(file);
  try {
    const stages = new Set<string>();
    const result = await importWat(wat, { store, asOf: TINY_WORLD_AS_OF, onProgress: (stage) => stages.add(stage) });
    assert.deepEqual([...stages], ['check WAT (bytes)', 'read WAT (bytes)', 'update metrics']);
    assert.equal(result.pages, 4);
    assert.equal(result.metrics?.mode, 'incremental');
    const link = (source: string, target: string) =>
      store.raw
        .prepare(
          `SELECT l.anchor, l.alt, l.type, l.nofollow, l.first_seen, l.last_seen, l.internal FROM links l JOIN pages s ON s.id = l.source_page_id
            JOIN pages t ON t.id = l.target_page_id WHERE s.url = ? AND t.url = ?`,
        )
        .all(source, target) as { anchor: string; alt: string; type: string; nofollow: number; first_seen: string; last_seen: string; internal: number }[];
    assert.deepEqual(link(PAGES[0].url, 'https://www.crawled-blog.com/posts/two'), [
      { anchor: 'Second post', alt: '', type: 'text', nofollow: 0, first_seen: '2026-10-05', last_seen: '2026-11-20', internal: 1 },
    ]);
    assert.equal(link(PAGES[0].url, 'https://www.partner-shop.com/')[0].nofollow, 1);
    assert.equal(result.lost, 4, 'the later crawl of post one lost its shop, forum and video links');
    assert.equal(link(PAGES[0].url, 'https://www.partner-shop.com/sale')[0].type, 'image');
    assert.equal(link(PAGES[0].url, 'https://video.example-tube.com/embed/1')[0].type, 'frame');
    assert.equal(link(PAGES[1].url, 'https://cdn.crawled-blog.com/base/relative/page').length, 1);
    assert.equal(link('http://old.crawled-blog.com/', 'https://www.crawled-blog.com/')[0].type, 'redirect');
    const shop = store.raw.prepare('SELECT id FROM root_domains WHERE domain = ?').pluck().get('partner-shop.com') as number;
    const metrics = store.raw
      .prepare('SELECT ext_backlinks, nu_nofollow, nu_image, ref_domains FROM entity_metrics WHERE level = 2 AND entity_id = ?')
      .get(shop);
    // Lost links leave the live counts and stay in the non-unique ones.
    assert.deepEqual(metrics, { ext_backlinks: 0, nu_nofollow: 2, nu_image: 1, ref_domains: 0 });

    // A file read without a metrics update leaves its domains to the next update.
    const later = path.join(dir, 'later.warc.wat.gz');
    writeWat(later, [
      {
        url: 'https://www.crawled-blog.com/posts/three',
        date: '2026-11-21T00:00:00Z',
        links: [{ path: 'A@/href', url: 'https://www.partner-shop.com/', text: 'again' }],
      },
    ]);
    const read = await importWat(later, { store, asOf: TINY_WORLD_AS_OF, updateMetrics: false });
    assert.equal(read.metrics, null);
    assert.equal(store.raw.prepare('SELECT ext_backlinks FROM entity_metrics WHERE level = 2 AND entity_id = ?').pluck().get(shop), 0);
    const pendingRun = await importWat(later, { store, asOf: TINY_WORLD_AS_OF });
    assert.equal(pendingRun.records, 0);
    assert.equal(store.raw.prepare('SELECT ext_backlinks FROM entity_metrics WHERE level = 2 AND entity_id = ?').pluck().get(shop), 1);

    // Importing the finished file again does nothing.
    const again = await importWat(wat, { store, asOf: TINY_WORLD_AS_OF });
    assert.equal(again.alreadyImported, true);
    assert.equal(again.records, 0);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("re-crawls mark the links a page no longer has as lost, with the link tool's reasons, and revive links found again", async () => {
  const file = await copyTinyWorld(1);
  const dir = path.dirname(file);
  const page = 'https://www.recrawled-site.com/article';
  const crawl = (n: number, date: string, links: string[], status?: number) => {
    const wat = path.join(dir, `crawl-${n}.warc.wat.gz`);
    writeWat(wat, [{ url: page, date, status, links: links.map((url) => ({ path: 'A@/href', url, text: `to ${url}` })) }]);
    return wat;
  };
  const store = await openResearchStore(file);
  try {
    const state = () =>
      Object.fromEntries(
        (
          store.raw
            .prepare(
              `SELECT t.url, l.deleted, l.deleted_on, l.reason_lost, l.last_seen FROM links l JOIN pages s ON s.id = l.source_page_id
                JOIN pages t ON t.id = l.target_page_id WHERE s.url = ? ORDER BY t.url`,
            )
            .all(page) as { url: string; deleted: number; deleted_on: string | null; reason_lost: string; last_seen: string }[]
        ).map((r) => [r.url, [r.deleted, r.deleted_on, r.reason_lost, r.last_seen]]),
      );
    const a = 'https://www.site-a.com/';
    const b = 'https://www.site-b.com/';
    const c = 'https://www.site-c.com/';
    await importWat(crawl(1, '2026-09-01T00:00:00Z', [a, b]), { store, asOf: TINY_WORLD_AS_OF });
    const second = await importWat(crawl(2, '2026-10-01T00:00:00Z', [a, c]), { store, asOf: TINY_WORLD_AS_OF });
    assert.equal(second.lost, 1);
    assert.deepEqual(state(), {
      [a]: [0, null, '', '2026-10-01'],
      [b]: [1, '2026-10-01', 'Link removed from page', '2026-09-01'],
      [c]: [0, null, '', '2026-10-01'],
    });
    // The lost link appears in the link tool's lost links of its target.
    const siteB = store.raw.prepare("SELECT id FROM root_domains WHERE domain = 'site-b.com'").pluck().get() as number;
    assert.deepEqual(store.raw.prepare('SELECT ext_backlinks, nu_deleted FROM entity_metrics WHERE level = 2 AND entity_id = ?').get(siteB), {
      ext_backlinks: 0,
      nu_deleted: 1,
    });
    // Found again: live, last seen moves.
    await importWat(crawl(3, '2026-10-15T00:00:00Z', [a, b, c]), { store, asOf: TINY_WORLD_AS_OF });
    assert.deepEqual(state()[b], [0, null, '', '2026-10-15']);
    // An older crawl imported late takes nothing back.
    await importWat(crawl(4, '2026-08-01T00:00:00Z', [a]), { store, asOf: TINY_WORLD_AS_OF });
    assert.deepEqual(state()[c], [0, null, '', '2026-10-15']);
    // A server error says nothing; a 404 loses every link, whatever its error page links to.
    const failed = await importWat(crawl(5, '2026-10-20T00:00:00Z', [], 503), { store, asOf: TINY_WORLD_AS_OF });
    assert.equal(failed.lost, 0);
    const gone = await importWat(crawl(6, '2026-11-01T00:00:00Z', ['https://www.recrawled-site.com/'], 404), { store, asOf: TINY_WORLD_AS_OF });
    assert.equal(gone.lost, 3);
    assert.deepEqual(state(), {
      [a]: [1, '2026-11-01', 'Page not found (404)', '2026-10-15'],
      [b]: [1, '2026-11-01', 'Page not found (404)', '2026-10-15'],
      [c]: [1, '2026-11-01', 'Page not found (404)', '2026-10-15'],
    });
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an import stopped after a batch resumes where it stopped and ends with the metrics of an uninterrupted one', async () => {
  const fileA = await copyTinyWorld(1);
  const dir = path.dirname(fileA);
  const fileB = path.join(dir, 'b.db');
  fs.copyFileSync(fileA, fileB);
  const wat = path.join(dir, 'resume.warc.wat.gz');
  writeWat(wat, PAGES);
  const a = await openResearchStore(fileA);
  const b = await openResearchStore(fileB);
  try {
    await importWat(wat, { store: a, asOf: TINY_WORLD_AS_OF, batchSize: 2 });
    const controller = new AbortController();
    await assert.rejects(
      importWat(wat, { store: b, asOf: TINY_WORLD_AS_OF, batchSize: 2, signal: controller.signal, onProgress: () => controller.abort(new Error('crash')) }),
      /crash/,
    );
    const resumed = await importWat(wat, { store: b, asOf: TINY_WORLD_AS_OF, batchSize: 2 });
    assert.equal(resumed.resumedFrom, 2);
    assert.equal(resumed.records, 7);
    assertSameMetrics(a.raw, b.raw);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('files that are not WARC, truncated or oversized records fail with a clear error and change nothing', async () => {
  const file = await copyTinyWorld(1);
  const dir = path.dirname(file);
  const store = await openResearchStore(file);
  try {
    const links = store.raw.prepare('SELECT COUNT(*) FROM links').pluck();
    const before = links.get();
    const cases: [string, Buffer][] = [
      ['html.gz', zlib.gzipSync('<html>not a warc</html>\r\n\r\n')],
      ['truncated.gz', zlib.gzipSync(warcRecord('metadata', 'https://a.com/', 'application/json', '{"a":1}').subarray(0, 150))],
      ['no-length.warc', Buffer.from('WARC/1.0\r\nWARC-Type: metadata\r\n\r\n{}\r\n\r\n')],
      ['huge.warc', Buffer.from('WARC/1.0\r\nWARC-Type: metadata\r\nContent-Length: 99999999999\r\n\r\n')],
      ['empty.warc', Buffer.alloc(0)],
      ['cut-gzip.gz', zlib.gzipSync(warcRecord('metadata', 'https://a.com/', 'application/json', '{"a":1}')).subarray(0, 60)],
    ];
    for (const [name, bytes] of cases) {
      const p = path.join(dir, name);
      fs.writeFileSync(p, bytes);
      if (name === 'empty.warc') await assert.rejects(importWat(p, { store, asOf: TINY_WORLD_AS_OF }), /the file is empty/);
      else await assert.rejects(importWat(p, { store, asOf: TINY_WORLD_AS_OF }), WarcFormatError, name);
    }
    // Issue 24: whole records before the cut are not written either (the file is read through
    // before the first write); a WET file of the same crawl (conversion records) is no WAT file.
    const cut = path.join(dir, 'cut-late.warc.wat.gz');
    writeWat(cut, PAGES);
    const whole = fs.readFileSync(cut);
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 30));
    await assert.rejects(
      importWat(cut, { store, asOf: TINY_WORLD_AS_OF, batchSize: 1 }),
      (e: unknown) => e instanceof WarcFormatError && /nothing was imported/.test(e.message),
    );
    const wet = path.join(dir, 'crawl.warc.wet.gz');
    fs.writeFileSync(wet, zlib.gzipSync(warcRecord('conversion', 'https://a.com/', 'text/plain', 'Plain text of the page')));
    await assert.rejects(importWat(wet, { store, asOf: TINY_WORLD_AS_OF }), /not a WAT file/);
    assert.equal(links.get(), before);
    assert.equal(store.raw.prepare('SELECT COUNT(*) FROM import_runs').pluck().get(), 0, 'a refused file leaves no run to resume');
    await assert.rejects(importWat(path.join(dir, 'missing.gz'), { store, asOf: TINY_WORLD_AS_OF }), /no such file/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
