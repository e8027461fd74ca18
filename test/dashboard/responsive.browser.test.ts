/**
 * Every dashboard page on a phone (390 px) and on a desktop (1400 px), in a real browser against
 * a real `quarry serve` on the tiny world (issue 27): no horizontal page scroll at 390 px (the
 * top navigation wraps, tables scroll inside their box), a document title of its own per page,
 * and no script error and no 429 (the per-IP gateway's HTML one above all) during the walk. A screenshot of each page at both widths is saved
 * (test-results/screenshots/walk-<page>-<width>.png).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { runQuarry } from '../support/cli.js';
import { checkpoint, ensureDashboardBuilt, launchProfile, SCREENSHOT_DIR, type WatchedPage } from '../support/browser.js';

let server: ServeProcess;
let w: WatchedPage;
let listPath = '';
let trackingPath = '';

before(async () => {
  ensureDashboardBuilt();
  server = await startServe();
  const res = runQuarry(['accounts', 'create', '--email', 'walk@example.test', '--plan', 'custom'], server.env);
  assert.equal(res.code, 0, res.stderr);
  const key = /qry_[A-Za-z0-9_-]{43}/.exec(res.stdout)?.[0];
  assert.ok(key, res.stdout);
  w = await launchProfile(server.origin);
  await w.page.goto('/app/keywords?kw=running+shoes&loc=2840');
  await w.page.waitForURL(/\/app\/sign-in\?next=/);
  assert.equal(await w.page.title(), 'Sign in · Quarry');
  await w.page.getByLabel('API key').fill(key);
  await w.page.getByRole('button', { name: 'Sign in' }).click();
  await w.page.waitForURL('**/app/keywords?kw=running+shoes&loc=2840');
  // The objects the list and tracking pages show: a list of two keywords, a tracking.
  const related = w.page.getByRole('table', { name: 'Related keywords' });
  // A seed's first lookup computes its related keywords; on a loaded machine that takes a while.
  await related.waitFor({ timeout: 120_000 });
  await related.locator('.vt-body [role=row] input[type=checkbox]').nth(1).check();
  await related.locator('.vt-body [role=row] input[type=checkbox]').nth(2).check();
  await w.page.getByLabel('New list name').fill('Shoes');
  await w.page.getByRole('button', { name: 'Add 2 to list' }).click();
  await w.page.getByText('Added 2 keywords to “Shoes”.').waitFor();
  await w.page.goto('/app/lists');
  await w.page.getByRole('link', { name: 'Shoes' }).click();
  await w.page.waitForURL(/\/app\/lists\/[^/?]+$/);
  listPath = new URL(w.page.url()).pathname;
  await w.page.getByRole('link', { name: 'Rank tracking' }).click();
  await w.page.getByLabel('Domain').fill('openpedia.org');
  await w.page.getByLabel('Keywords, one per line').fill('running shoes\nhiking boots');
  await w.page.getByRole('button', { name: 'Track' }).click();
  await w.page.waitForURL(/\/app\/tracking\/[0-9a-f]{24}$/);
  trackingPath = new URL(w.page.url()).pathname;
});

after(async () => {
  await w?.close();
  await server?.stop();
});

/** A page of the walk: where it is, what shows that it has loaded, the words its title has. */
interface Stop {
  name: string;
  path: () => string;
  ready: string;
  title: RegExp;
}

const STOPS: Stop[] = [
  {
    name: 'keywords',
    path: () => '/app/keywords?kw=running+shoes&loc=2840',
    ready: '[role=table][aria-label="Related keywords"]',
    title: /^“running shoes” · Keyword research · Quarry$/,
  },
  { name: 'serp', path: () => '/app/serp?kw=running+shoes&loc=2840', ready: '.serp-items', title: /^“running shoes” · SERP analysis · Quarry$/ },
  { name: 'lists', path: () => '/app/lists', ready: 'table.plain', title: /^Keyword lists · Quarry$/ },
  { name: 'list', path: () => listPath, ready: '[role=table]', title: /Keyword lists · Quarry$/ },
  {
    name: 'backlinks',
    path: () => '/app/backlinks?url=openpedia.org',
    ready: '[role=table][aria-label="Backlinks"]',
    title: /^“openpedia\.org” · Backlinks · Quarry$/,
  },
  { name: 'site', path: () => '/app/site?url=openpedia.org', ready: '[aria-label="Top pages"]', title: /^“openpedia\.org” · Site profile · Quarry$/ },
  { name: 'trackings', path: () => '/app/tracking', ready: 'table.plain', title: /^Rank tracking · Quarry$/ },
  { name: 'tracking', path: () => trackingPath, ready: '[aria-label="Tracked keywords"]', title: /Rank tracking · Quarry$/ },
  { name: 'answers', path: () => '/app/answers', ready: 'h1', title: /^AI answers · Quarry$/ },
  { name: 'account', path: () => '/app/account', ready: '[data-plan]', title: /^Account · Quarry$/ },
];

/** How much wider than the window the page is (0: no horizontal scroll). */
const overflow = () =>
  w.page.evaluate(`Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth`) as Promise<number>;

/** The elements that stick out past the window's right edge (for the failure message). */
const wideElements = () =>
  w.page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .slice(0, 8)
    .map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().width) + 'px')`) as Promise<
    string[]
  >;

for (const width of [1400, 390]) {
  describe(`every page at ${width} px`, () => {
    before(async () => {
      await w.page.setViewportSize({ width, height: 900 });
    });

    for (const stop of STOPS) {
      test(`${stop.name}: fits the width, has its own title`, async () => {
        await w.page.goto(stop.path());
        await w.page.locator(stop.ready).first().waitFor({ timeout: 60_000 });
        await w.page.locator('.state.loading').first().waitFor({ state: 'detached', timeout: 60_000 });
        assert.match(await w.page.title(), stop.title);
        const extra = await overflow();
        assert.ok(extra <= 0, `${stop.name} at ${width} px is ${extra} px wider than the window: ${(await wideElements()).join(', ')}`);
        // The session is the limit: the page's own calls never meet the per-IP gateway.
        assert.deepEqual(w.refusals, [], `${stop.name} at ${width} px: 429 answers`);
        await checkpoint(w, `walk-${stop.name}-${width}`);
      });
    }
  });
}

test('the pages have distinct titles', async () => {
  const titles = new Set<string>();
  for (const stop of STOPS.filter((s) => s.name !== 'list' && s.name !== 'tracking')) {
    await w.page.goto(stop.path());
    await w.page.locator(stop.ready).first().waitFor({ timeout: 60_000 });
    titles.add(await w.page.title());
  }
  assert.deepEqual(w.refusals, [], '429 answers');
  assert.equal(titles.size, STOPS.length - 2, [...titles].join(' | '));
});

describe('tables: sorting, filters, keyboard (1400 px)', () => {
  before(async () => {
    await w.page.setViewportSize({ width: 1400, height: 900 });
  });

  /** The texts of one column of a virtual table's rendered rows. */
  const column = (table: string, n: number) =>
    w.page
      .locator(`[role=table][aria-label="${table}"] .vt-body [role=row]`)
      .evaluateAll((rows, i) => rows.map((r) => (r.querySelectorAll('[role=cell]')[i as number] as unknown as { textContent: string }).textContent.trim()), n);
  const numbers = (texts: string[]) => texts.map((t) => Number(t.replace(/[$,]/g, '')));

  test('related keywords: sort by volume, include / exclude words and word count, a row opened by keyboard shows its SERP', async () => {
    await w.page.goto('/app/keywords?kw=running+shoes&loc=2840');
    const table = w.page.getByRole('table', { name: 'Related keywords' });
    await table.waitFor({ timeout: 60_000 });
    await table.getByRole('button', { name: /^Volume/ }).click();
    const volumes = numbers(await column('Related keywords', 2)).slice(1);
    assert.deepEqual(
      volumes,
      [...volumes].sort((a, b) => b - a),
      'volume, highest first (the seed stays on top)',
    );
    await w.page.getByLabel('Include').fill('running');
    await w.page.getByLabel('Exclude').fill('best');
    await w.page.getByLabel('Words ≥').fill('3');
    const words = (await column('Related keywords', 1)).slice(1);
    assert.ok(words.length > 0, 'some keywords match');
    for (const k of words) {
      assert.ok(/\brunning/.test(k) && !/\bbest/.test(k) && k.split(/\s+/).length >= 3, k);
    }
    // Keyboard: Tab to the first row, down one, Enter: the SERP panel shows that keyword.
    const first = table.locator('.vt-body [role=row]').first();
    await first.focus();
    await w.page.keyboard.press('ArrowDown');
    // The focus may move on the next frame (a row outside the rendered window): wait for it.
    await w.page.waitForFunction(`document.activeElement?.getAttribute('aria-rowindex') === '3'`, undefined, { timeout: 10_000 });
    const target = await table.locator('.vt-body [aria-rowindex="3"] [role=cell]').nth(1).innerText();
    await w.page.keyboard.press('Enter');
    await w.page.locator(`section.serp-panel[aria-label="SERP for ${target}"] .serp-items`).waitFor({ timeout: 60_000 });
    assert.deepEqual(w.refusals, []);
    await checkpoint(w, 'tables-keywords-filtered-1400');
  });

  test('competitor keywords: best position first, KD and CPC, sortable, kept in the URL across a tab switch, added to a list', async () => {
    await w.page.goto('/app/keywords?tab=competitor&loc=2840');
    await w.page.getByLabel('Competitor domain').fill('openpedia.org');
    await w.page.getByRole('button', { name: 'Find keywords' }).click();
    await w.page.waitForURL(/site=openpedia\.org/);
    const table = w.page.getByRole('table', { name: 'Competitor keywords' });
    await table.waitFor({ timeout: 60_000 });
    const headers = await table.locator('.vt-head [role=columnheader]').allInnerTexts();
    for (const h of ['KD', 'CPC', 'Volume'])
      assert.ok(
        headers.some((x) => x.startsWith(h)),
        headers.join(' | '),
      );
    const positions = numbers(await column('Competitor keywords', 2));
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'best position first',
    );
    await table.getByRole('button', { name: /^KD/ }).click();
    const kds = numbers((await column('Competitor keywords', 4)).filter((t) => t !== '–'));
    assert.deepEqual(
      kds,
      [...kds].sort((a, b) => b - a),
      'KD, highest first',
    );
    await w.page.getByRole('button', { name: 'Related keywords' }).click();
    await w.page.getByRole('button', { name: 'Competitor keywords' }).click();
    await table.waitFor();
    assert.match(w.page.url(), /site=openpedia\.org/);
    await table.locator('.vt-body [role=row] input[type=checkbox]').first().check();
    await w.page.getByLabel('New list name').fill('From a competitor');
    await w.page.getByRole('button', { name: 'Add 1 to list' }).click();
    await w.page.getByText('Added 1 keyword to “From a competitor”.').waitFor();
    assert.deepEqual(w.refusals, []);
    await checkpoint(w, 'tables-competitor-1400');
  });

  test('backlinks: dofollow only, anchor / URL search, sortable by TF', async () => {
    await w.page.goto('/app/backlinks?url=openpedia.org');
    const table = w.page.getByRole('table', { name: 'Backlinks' });
    await table.waitFor({ timeout: 60_000 });
    const all = Number(await table.getAttribute('data-rows'));
    await w.page.getByLabel('Follow').selectOption('dofollow');
    assert.equal(await table.locator('.vt-body .chip', { hasText: 'nofollow' }).count(), 0);
    const followed = Number(await table.getAttribute('data-rows'));
    assert.ok(followed <= all, `${followed} ≤ ${all}`);
    await table.getByRole('button', { name: /^TF/ }).click();
    const tfs = numbers(await column('Backlinks', 6));
    assert.deepEqual(
      tfs,
      [...tfs].sort((a, b) => b - a),
      'TF, highest first',
    );
    const someSource = (await column('Backlinks', 1))[0];
    const host = new URL(someSource.split(/\s+/).find((p) => /^https?:/.test(p)) ?? `http://${someSource}`).hostname;
    await w.page.getByLabel('Search anchors and URLs').fill(host);
    const sources = await column('Backlinks', 1);
    assert.ok(sources.length > 0 && sources.length <= followed, `${sources.length} rows for ${host}`);
    await checkpoint(w, 'tables-backlinks-1400');
  });

  /** The texts of one column of a plain table's body. */
  const plainColumn = (table: string, n: number) =>
    w.page
      .locator(`table[aria-label="${table}"] tbody tr`)
      .evaluateAll((rows, i) => rows.map((r) => (r.querySelectorAll('td')[i as number] as unknown as { textContent: string }).textContent.trim()), n);

  test('site profile: the referring domains and top pages tables sort by a figure, highest first then lowest', async () => {
    await w.page.goto('/app/site?url=openpedia.org');
    const domains = w.page.getByRole('table', { name: 'Top referring domains' });
    await domains.waitFor({ timeout: 60_000 });
    await domains.getByRole('button', { name: /^Links/ }).click();
    assert.equal(await domains.locator('th[aria-sort=descending]').innerText(), 'Links ▼');
    const links = numbers(await plainColumn('Top referring domains', 1));
    assert.ok(links.length > 1, `${links.length} referring domains`);
    assert.deepEqual(
      links,
      [...links].sort((a, b) => b - a),
      'links, most first',
    );
    await domains.getByRole('button', { name: /^Links/ }).click();
    await domains.locator('th[aria-sort=ascending]').waitFor();
    assert.deepEqual(
      numbers(await plainColumn('Top referring domains', 1)),
      [...links].sort((a, b) => a - b),
      'a second click: fewest first',
    );
    const pages = w.page.getByRole('table', { name: 'Top pages' });
    await pages.waitFor({ timeout: 60_000 });
    await pages.getByRole('button', { name: /^Ref\. domains/ }).click();
    await pages.locator('th[aria-sort=descending]').waitFor();
    const refDomains = numbers((await plainColumn('Top pages', 2)).filter((t) => t !== '–'));
    assert.deepEqual(
      refDomains,
      [...refDomains].sort((a, b) => b - a),
      'referring domains, most first',
    );
    assert.deepEqual(w.refusals, []);
    await checkpoint(w, 'tables-site-1400');
  });

  test('tracked keywords: filtered by words, sorted by volume', async () => {
    await w.page.goto(trackingPath);
    const table = w.page.getByRole('table', { name: 'Tracked keywords' });
    await table.waitFor({ timeout: 60_000 });
    assert.equal(await table.locator('tbody tr').count(), 2);
    await table.getByRole('button', { name: /^Volume/ }).click();
    await table.locator('th[aria-sort=descending]').waitFor();
    const volumes = numbers(await plainColumn('Tracked keywords', 2));
    assert.deepEqual(
      volumes,
      [...volumes].sort((a, b) => b - a),
      'volume, highest first',
    );
    await w.page.getByLabel('Keyword contains').fill('hiking');
    await w.page.waitForFunction(`document.querySelectorAll('table[aria-label="Tracked keywords"] tbody tr').length === 1`);
    assert.deepEqual(
      (await plainColumn('Tracked keywords', 1)).map((t) => t.trim()),
      ['hiking boots'],
    );
    assert.deepEqual(w.refusals, []);
  });

  test('keyword import: pasted keywords looked up and shown in the filterable table', async () => {
    await w.page.goto('/app/keywords?tab=import&loc=2840');
    await w.page.getByLabel('Keywords to import, one per line').fill('running shoes\nhiking boots\nrunning shoes');
    await w.page.getByRole('button', { name: 'Import 2 keywords' }).click();
    const table = w.page.getByRole('table', { name: 'Imported keywords' });
    await table.waitFor({ timeout: 60_000 });
    assert.ok(Number(await table.getAttribute('data-rows')) >= 1);
    assert.deepEqual(w.refusals, []);
    await checkpoint(w, 'tables-import-1400');
  });
});

test('the list CSV: readable headers, one column per month, no JSON cell', async () => {
  await w.page.goto(listPath);
  await w.page.getByRole('button', { name: 'Download CSV' }).waitFor({ timeout: 60_000 });
  const [download] = await Promise.all([w.page.waitForEvent('download'), w.page.getByRole('button', { name: 'Download CSV' }).click()]);
  const lines = fs
    .readFileSync(await download.path(), 'utf8')
    .trim()
    .split(/\r?\n/);
  assert.equal(lines.length, 3, lines.join('\n'));
  const header = lines[0].split(',');
  assert.deepEqual(header.slice(0, 6), ['Keyword', 'Location', 'Search volume', 'Keyword difficulty', 'CPC (USD)', 'PPC competition']);
  const months = header.slice(6);
  assert.ok(months.length >= 12, `${months.length} month columns`);
  for (const m of months) assert.match(m, /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}$/);
  for (const line of lines.slice(1)) {
    assert.doesNotMatch(line, /\[/, 'no JSON in a cell');
    assert.equal(line.split(',').length, header.length, line);
  }
  fs.copyFileSync(await download.path(), path.join(SCREENSHOT_DIR, 'walk-list.csv'));
});
