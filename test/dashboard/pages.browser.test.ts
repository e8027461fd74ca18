/**
 * The dashboard's backlink, site-profile and rank-tracking extras in a real browser against a
 * real `quarry serve` on the tiny world: URL metrics and paged, filtered backlinks, a favourite
 * added and removed, an export followed to its CSV download, a site profile with its charts,
 * a tracking's tags (created, put on a keyword, taken off, deleted), annotations and a report
 * with its e-mail preview; a 10,000-row keyword table that keeps only the rows in view in the
 * DOM; and the RateLimit and CreditLimit states.
 * Each step saves a screenshot (test-results/screenshots) and fails on a blank or error page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Route } from 'playwright-core';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { runQuarry } from '../support/cli.js';
import { checkpoint, ensureDashboardBuilt, launchProfile, type WatchedPage } from '../support/browser.js';

let server: ServeProcess;
let w: WatchedPage;

/**
 * The web class admits 3 calls per pool in 1 s and the gateway 4 per second per address; a step
 * that opens a page right after another one's calls starts in a fresh second, as the contract
 * tells clients to, so that the test holds on a fast, quiet machine as on a loaded one.
 */
const freshWindow = () => w.page.waitForTimeout(1100);

before(async () => {
  ensureDashboardBuilt();
  server = await startServe();
  const res = runQuarry(['accounts', 'create', '--email', 'pages@example.test', '--plan', 'custom'], server.env);
  assert.equal(res.code, 0, res.stderr);
  const key = /qry_[A-Za-z0-9_-]{43}/.exec(res.stdout)?.[0];
  assert.ok(key, res.stdout);
  w = await launchProfile(server.origin);
  await w.page.goto('/app/backlinks');
  await w.page.waitForURL(/\/app\/sign-in\?next=/);
  await w.page.getByLabel('API key').fill(key);
  await w.page.getByRole('button', { name: 'Sign in' }).click();
  await w.page.waitForURL('**/app/backlinks');
});

after(async () => {
  await w?.close();
  await server?.stop();
});

describe('backlinks', () => {
  test('URL metrics and backlinks page by page, with the links filters', async () => {
    await w.page.getByRole('heading', { name: 'Backlinks' }).waitFor();
    await w.page.getByLabel('Target').fill('openpedia.org');
    await w.page.getByRole('button', { name: 'Look up' }).click();
    const metrics = w.page.getByRole('definition').first();
    await metrics.waitFor();
    const cards = await w.page.locator('[aria-label="Link metrics"] > div').allInnerTexts();
    assert.ok(
      cards.some((c) => /Referring domains\s+[\d,]+/.test(c)),
      cards.join(' | '),
    );
    const table = w.page.getByRole('table', { name: 'Backlinks' });
    await table.waitFor();
    const available = Number(await w.page.locator('[data-available]').getAttribute('data-available'));
    const rows = Number(await table.getAttribute('data-rows'));
    assert.ok(rows > 0 && rows <= 500 && rows <= available, `${rows} rows of ${available}`);
    // One link per referring domain: no more rows than before, each from another domain.
    await freshWindow();
    await w.page.getByLabel('Per referring domain').selectOption('1');
    await w.page.waitForURL(/lpd=1/);
    await w.page.locator('[data-available]').waitFor();
    const perDomain = Number(await w.page.locator('[data-available]').getAttribute('data-available'));
    assert.ok(perDomain <= available, `${perDomain} ≤ ${available}`);
    // Lost links only: a table or the empty state, never a problem.
    await freshWindow();
    await w.page.getByLabel('Links', { exact: true }).selectOption('2');
    await w.page.waitForURL(/source=2/);
    await w.page.locator('[data-available], .state.empty').first().waitFor();
    await freshWindow();
    await w.page.getByLabel('Links', { exact: true }).selectOption('0');
    await w.page.getByLabel('Per referring domain').selectOption('0');
    await table.waitFor();
    await checkpoint(w, '21-backlinks');
  });

  test('stars a backlink, sees it in the favourite list of the domain, removes it', async () => {
    const table = w.page.getByRole('table', { name: 'Backlinks' });
    const star = table.locator('.vt-body [role=row]').first().locator('button.star');
    assert.equal(await star.getAttribute('aria-pressed'), 'false');
    const source = await table.locator('.vt-body [role=row]').first().locator('[role=cell]').nth(1).innerText();
    await star.click();
    await table.locator('.vt-body [role=row]').first().locator('button.star[aria-pressed=true]').waitFor();
    await w.page.getByRole('button', { name: 'Favourites', exact: true }).click();
    const lists = w.page.getByRole('table', { name: 'Favourite lists' });
    await lists.waitFor();
    await lists.getByRole('link', { name: 'openpedia.org' }).click();
    const favourites = w.page.getByRole('table', { name: 'Favourite backlinks of openpedia.org' });
    await favourites.waitFor();
    assert.equal(await favourites.locator('tbody tr').count(), 1);
    assert.ok(source.includes(await favourites.locator('tbody td.url').innerText()), 'the starred link is in the list');
    await checkpoint(w, '22-favourites');
    await favourites.getByRole('button', { name: 'Remove' }).click();
    await w.page.getByText('No links left in the list of openpedia.org').waitFor();
  });

  test('exports backlinks, follows the job to its end and downloads the CSV', async () => {
    await freshWindow();
    await w.page.goto('/app/backlinks?tab=exports&url=openpedia.org');
    await w.page.getByRole('heading', { name: 'New export' }).waitFor();
    await w.page.getByText('No exports yet.').waitFor();
    await w.page.getByLabel('At most').fill('40');
    await w.page.getByRole('button', { name: 'Export', exact: true }).click();
    const row = w.page.locator('tr[data-export]').first();
    await row.waitFor();
    // Live progress: the page polls the export list until the job has its download link.
    await w.page.locator('tr[data-export][data-stage=ready]').waitFor({ timeout: 90_000 });
    await checkpoint(w, '23-export-done');
    const [download] = await Promise.all([w.page.waitForEvent('download'), row.getByRole('link', { name: 'Download CSV' }).click()]);
    const lines = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    assert.ok(lines.length > 1 && lines.length <= 41, `${lines.length} lines`);
    assert.match(lines[0], /,/);
  });
});

describe('site profile', () => {
  test('authority overview with history charts, backlink profile, top content and competitors', async () => {
    await freshWindow();
    await w.page.getByRole('link', { name: 'Site profile' }).click();
    await w.page.getByLabel('Site').fill('openpedia.org');
    await w.page.getByRole('button', { name: 'Profile' }).click();
    await w.page.locator('[aria-label="Authority"]').waitFor();
    await w.page.locator('.overview .chart canvas').first().waitFor();
    assert.ok((await w.page.locator('.overview .chart').count()) >= 2, 'TopRank and link-index history charts');
    await w.page.getByRole('table', { name: 'Top referring domains' }).waitFor();
    await w.page.getByRole('table', { name: 'Top pages' }).waitFor();
    await w.page.locator('[aria-label="Competitors"] table, [aria-label="Competitors"] .state.empty').first().waitFor();
    assert.ok((await w.page.getByRole('table', { name: 'Top pages' }).locator('tbody tr').count()) > 0);
    await checkpoint(w, '24-site-profile');
  });
});

describe('rank tracking extras', () => {
  test('tags and annotations: create, list, delete; the annotation is marked on the chart', async () => {
    await freshWindow();
    await w.page.getByRole('link', { name: 'Rank tracking' }).click();
    await w.page.getByLabel('Domain').fill('openpedia.org');
    await w.page.getByLabel('Keywords, one per line').fill('running shoes\nhiking boots');
    await w.page.getByRole('button', { name: 'Track' }).click();
    await w.page.waitForURL(/\/app\/tracking\/[0-9a-f]{24}$/);
    await w.page.getByRole('table', { name: 'Tracked keywords' }).waitFor();
    await w.page.getByRole('button', { name: 'Tags', exact: true }).waitFor();

    await w.page.getByText('No tags yet').waitFor();
    await w.page.getByLabel('Tag name').fill('brand');
    await w.page.getByRole('button', { name: 'Add tag' }).click();
    await w.page.getByRole('list', { name: 'Tags' }).getByText('brand').waitFor();
    await w.page.getByLabel('Tag name').fill('priority');
    await w.page.getByRole('button', { name: 'Add tag' }).click();
    await w.page.getByRole('list', { name: 'Tags' }).getByText('priority').waitFor();
    await w.page.getByRole('button', { name: 'Delete tag brand' }).click();
    await w.page.locator('.tag-list .chip', { hasText: 'brand' }).waitFor({ state: 'detached' });
    assert.equal(await w.page.locator('.tag-list .chip').count(), 1);
    // Tag a keyword: its row shows the tag; untag it: gone.
    const rankTable = w.page.getByRole('table', { name: 'Tracked keywords' });
    await rankTable.getByLabel('Select running shoes').check();
    await w.page.getByRole('button', { name: 'Tag 1 selected', exact: true }).click();
    const chip = rankTable.locator('tr', { hasText: 'running shoes' }).locator('.chip.tag', { hasText: 'priority' });
    await chip.waitFor();
    await checkpoint(w, '25-tracking-tags');
    await rankTable.getByLabel('Select running shoes').check();
    await w.page.getByRole('button', { name: 'Untag 1 selected' }).click();
    await chip.waitFor({ state: 'detached' });

    await w.page.getByRole('button', { name: 'Annotations' }).click();
    await w.page.getByLabel('Annotation text').fill('New title tags');
    await w.page.getByRole('button', { name: 'Add annotation' }).click();
    const notes = w.page.getByRole('table', { name: 'Annotations' });
    await notes.getByText('New title tags').waitFor();
    await w.page.locator('.chart-marks li', { hasText: 'New title tags' }).waitFor();
    await checkpoint(w, '26-tracking-annotations');
    await notes.getByRole('button', { name: 'Delete annotation New title tags' }).click();
    await notes.getByText('New title tags').waitFor({ state: 'detached' });
    await w.page.locator('.chart-marks li', { hasText: 'New title tags' }).waitFor({ state: 'detached' });
  });

  test('reports: the default weekly and monthly, one added, the e-mail preview, one deleted', async () => {
    await w.page.getByRole('button', { name: 'Reports' }).click();
    const reports = w.page.getByRole('table', { name: 'Reports' });
    await reports.waitFor();
    assert.equal(await reports.locator('tbody tr').count(), 2, 'a new tracking has a weekly and a monthly report');
    await w.page.getByLabel('Report type').selectOption('0');
    await w.page.getByLabel('Recipients').fill('alerts@example.test');
    await w.page.getByLabel('Report name').fill('Big moves');
    await w.page.getByRole('button', { name: 'Add report' }).click();
    await reports.getByText('Big moves').waitFor();
    await reports.getByRole('button', { name: 'Preview Weekly report' }).click();
    const frame = w.page.frameLocator('iframe.mail-body');
    await frame.getByText('openpedia.org').first().waitFor();
    assert.match(await w.page.locator('[data-subject]').innerText(), /^Weekly rank report: openpedia\.org/);
    // The chart is inlined in the mail (cid: replaced by a data URL), and it has loaded.
    const chart = frame.locator('img[src^="data:image/png;base64,"]');
    await chart.waitFor();
    for (let i = 0; ; i++) {
      const width = await chart.evaluate((img) =>
        (img as unknown as { complete: boolean }).complete ? (img as unknown as { naturalWidth: number }).naturalWidth : 0,
      );
      if (width > 300) break;
      assert.ok(i < 100, `the chart image in the mail did not load (width ${width})`);
      await w.page.waitForTimeout(100);
    }
    // The mail is in a frame of its own (sandboxed, another origin): give it a moment to paint.
    await w.page.locator('iframe.mail-body').scrollIntoViewIfNeeded();
    await w.page.waitForTimeout(500);
    const shot = await checkpoint(w, '27-report-preview');
    await w.page.locator('iframe.mail-body').screenshot({ path: shot.replace(/\.png$/, '-mail.png') });
    await reports.getByRole('button', { name: 'Delete Big moves' }).click();
    await reports.getByText('Big moves').waitFor({ state: 'detached' });
  });
});

describe('keyword table and states', () => {
  test('a 10,000-row keyword table scrolls with only the rows in view in the DOM', async () => {
    // The tiny test world has 2,500 keywords; the answer of the real API is padded to 10,000
    // rows in the browser so that the table gets the size the dashboard is built for.
    await w.page.route('**/v3/keyword-tool/related-keywords?*', async (route: Route) => {
      const response = await route.fetch();
      const body = await response.json();
      const real = body.keywords as { _id: string; kw: string }[];
      const keywords = [...real];
      for (let i = 0; keywords.length < 10_000; i++) {
        const from = real[1 + (i % (real.length - 1))];
        keywords.push({ ...from, _id: `pad${i}`, kw: `${from.kw} ${i}` });
      }
      await route.fulfill({ response, json: { ...body, keywords, countKeywordsBeforeLimit: keywords.length } });
    });
    try {
      await freshWindow();
      await w.page.goto('/app/keywords?kw=running+shoes&loc=2840');
      const table = w.page.getByRole('table', { name: 'Related keywords' });
      // A seed's first lookup computes its related keywords; on a loaded machine that takes a while.
      await table.waitFor({ timeout: 120_000 });
      assert.equal(await table.getAttribute('data-rows'), '10000');
      const body = table.locator('.vt-body');
      const counts: number[] = [];
      for (const at of [0, 0.25, 0.5, 0.75, 1]) {
        await body.evaluate((el, f) => (el.scrollTop = f * (el.scrollHeight - el.clientHeight)), at);
        await w.page.waitForTimeout(50);
        counts.push(await table.locator('.vt-body [role=row]').count());
      }
      assert.ok(
        counts.every((c) => c > 0 && c < 60),
        `rendered rows while scrolling: ${counts.join(', ')}`,
      );
      await table.locator('.vt-body [aria-rowindex="10001"]').waitFor();
      assert.equal(await table.locator('.vt-body [aria-rowindex="2"]').count(), 0, 'the first rows left the DOM');
      await checkpoint(w, '28-keywords-10000-rows');
    } finally {
      await w.page.unroute('**/v3/keyword-tool/related-keywords?*');
    }
  });

  test('a RateLimit shows the wait and counts it down; a CreditLimit names the pool', async () => {
    // The contract's error bodies, answered in the browser: a pool that refuses twice (the SDK
    // waits retry_after and resends once), then a spent quota.
    await w.page.route('**/v3/site-tool/overview?*', (route: Route) =>
      route.fulfill({
        status: 429,
        json: { error: { type: 'RateLimit', message: 'Too many requests in a short period', retry_after: 3 } },
      }),
    );
    try {
      await freshWindow();
      await w.page.goto('/app/site?url=example.org');
      const box = w.page.locator('.state.problem-RateLimit');
      await box.waitFor({ timeout: 20_000 });
      const wait = Number(await box.locator('[data-wait]').getAttribute('data-wait'));
      assert.ok(wait >= 1 && wait <= 3, `wait shown: ${wait}`);
      assert.equal(await box.getByRole('button', { name: /Retry in \d s/ }).isDisabled(), true);
      await checkpoint(w, '29-state-rate-limit', { allowProblem: true });
      await box.getByRole('button', { name: 'Retry', exact: true }).waitFor({ timeout: 10_000 });
    } finally {
      await w.page.unroute('**/v3/site-tool/overview?*');
    }
    await w.page.route('**/v3/link-tool/url-metrics?*', (route: Route) =>
      route.fulfill({ status: 429, json: { error: { type: 'CreditLimit', message: 'Credit limit reached for lm-url-metrics' } } }),
    );
    try {
      await freshWindow();
      await w.page.goto('/app/backlinks?url=example.org');
      const box = w.page.locator('.state.problem-CreditLimit');
      await box.waitFor();
      assert.match(await box.innerText(), /lm-url-metrics quota of your plan is used up/);
      await checkpoint(w, '30-state-credit-limit', { allowProblem: true });
    } finally {
      await w.page.unroute('**/v3/link-tool/url-metrics?*');
    }
  });
});
