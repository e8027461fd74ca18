/**
 * The dashboard's AI answers page in a real browser against a real `quarry serve` on the tiny
 * world: a monitor created from the form, its visibility chart per model, the figures per
 * model and the most cited URLs, and a prompt's answers with the brand's mentions highlighted.
 * Each step saves a screenshot (test-results/screenshots) and fails on a blank or error page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { runQuarry } from '../support/cli.js';
import { checkpoint, ensureDashboardBuilt, launchProfile, type WatchedPage } from '../support/browser.js';

let server: ServeProcess;
let w: WatchedPage;

before(async () => {
  ensureDashboardBuilt();
  server = await startServe();
  const res = runQuarry(['accounts', 'create', '--email', 'answers@example.test', '--plan', 'premium'], server.env);
  assert.equal(res.code, 0, res.stderr);
  const key = /qry_[A-Za-z0-9_-]{43}/.exec(res.stdout)?.[0];
  assert.ok(key, res.stdout);
  w = await launchProfile(server.origin);
  await w.page.goto('/app/answers');
  await w.page.waitForURL(/\/app\/sign-in\?next=/);
  await w.page.getByLabel('API key').fill(key);
  await w.page.getByRole('button', { name: 'Sign in' }).click();
  await w.page.waitForURL('**/app/answers');
});

after(async () => {
  await w?.close();
  await server?.stop();
});

test('create a monitor, see its visibility per model, its cited URLs and a prompt’s answers with the mentions marked', async () => {
  await w.page.getByRole('heading', { name: 'AI answers' }).waitFor();
  await w.page.getByText('Sandbox Answer Engine').waitFor();
  await w.page.getByLabel('Brand').fill('Openpedia');
  await w.page.getByLabel('Domain').fill('openpedia.org');
  await w.page.getByLabel('Prompts, one per line').fill('What are the best running shoes?\nWhat is the history of running shoes?');
  await checkpoint(w, 'answers-01-form');
  await w.page.waitForTimeout(1100);
  await w.page.getByRole('button', { name: 'Monitor' }).click();
  await w.page.waitForURL(/\/app\/answers\/[0-9a-f]{24}$/);
  // The first check runs as the monitor is created; reload until its answers are in.
  const figures = w.page.getByRole('table', { name: 'Figures per model' });
  for (let i = 0; i < 20 && (await w.page.locator('.chart').count()) === 0; i++) {
    await w.page.waitForTimeout(1100);
    await w.page.reload();
    await figures.waitFor();
  }
  await w.page.locator('.chart canvas').first().waitFor();
  assert.match(await w.page.locator('.chart figcaption').innerText(), /Visibility per model/);
  const rows = await figures.locator('tbody tr').allInnerTexts();
  assert.equal(rows.length, 3, rows.join(' | '));
  assert.ok(
    rows.every((r) => /\s2\s/.test(r)),
    `each model answered both prompts: ${rows.join(' | ')}`,
  );
  assert.ok((await w.page.getByRole('list', { name: 'Most cited URLs' }).locator('li').count()) > 0);
  await checkpoint(w, 'answers-02-monitor');
  await w.page.waitForTimeout(1100);
  await w.page.getByRole('button', { name: 'What are the best running shoes?' }).click();
  const answers = w.page.locator('article.answer');
  await answers.first().waitFor();
  assert.equal(await answers.count(), 3);
  await w.page.waitForTimeout(1100);
  await w.page.getByRole('button', { name: 'What is the history of running shoes?' }).click();
  await answers.nth(5).waitFor();
  const marks = await w.page.locator('article.answer mark').allInnerTexts();
  assert.ok(marks.length > 0 && marks.every((m) => /openpedia/i.test(m)), marks.join(', '));
  await checkpoint(w, 'answers-03-prompt');
  // The list shows the monitor.
  await w.page.waitForTimeout(1100);
  await w.page.getByRole('link', { name: '← All monitors' }).click();
  await w.page.getByRole('table', { name: 'Monitors' }).getByRole('link', { name: 'Openpedia' }).waitFor();
  await checkpoint(w, 'answers-04-list');
});
