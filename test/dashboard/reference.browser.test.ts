/**
 * The interactive reference (/docs, Swagger UI) on a 1.6 MB answer, in a real browser against a
 * real `quarry serve` on the tiny world (issue 27: a 1.6 MB related-keywords answer froze the
 * tab for minutes). "Try it out" on related keywords: the answer is shown cut to its first
 * 128 KB with a link that downloads the whole answer as the server sent it.
 *
 * The tiny world's related-keywords answers are ~40 KB, so the browser's request goes to the
 * server and its real answer is grown to 1.6 MB (its own keyword items repeated, each with its
 * own id and keyword) before the page gets it; the page's side is what is under test. The time
 * from the answer's arrival to its display is printed (with the load), not asserted: the
 * machine's load makes wall-clock limits flaky (the figure and its goal, 5 s, are in the note).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { startServe, type ServeProcess } from '../support/serveProcess.js';
import { runQuarry } from '../support/cli.js';
import path from 'node:path';
import { launchProfile, SCREENSHOT_DIR, type WatchedPage } from '../support/browser.js';

const TARGET = 1_600_000;
const LIMIT = 128 * 1024;

let server: ServeProcess;
let w: WatchedPage;
let key = '';

before(async () => {
  server = await startServe();
  const res = runQuarry(['accounts', 'create', '--email', 'reference@example.test', '--plan', 'custom'], server.env);
  assert.equal(res.code, 0, res.stderr);
  key = /qry_[A-Za-z0-9_-]{43}/.exec(res.stdout)?.[0] ?? '';
  assert.ok(key, res.stdout);
  w = await launchProfile(server.origin);
});

after(async () => {
  await w?.close();
  await server?.stop();
});

/** The real answer's keyword items repeated until its JSON is `TARGET` characters long. */
function grown(answer: { keywords: Record<string, unknown>[] }): string {
  const base = answer.keywords;
  const perItem = JSON.stringify(base).length / base.length;
  const wanted = Math.ceil((TARGET - JSON.stringify(answer).length) / perItem) + 1;
  for (let n = 0; n < wanted; n++) {
    const item = structuredClone(base[n % base.length]);
    answer.keywords.push({ ...item, _id: `${String(item._id)}-${n}`, kw: `${String(item.kw)} ${n}` });
  }
  return JSON.stringify(answer);
}

test('a 1.6 MB related-keywords answer is shown cut, with a download of the whole answer', async () => {
  let arrived = 0;
  let sent = '';
  await w.page.route('**/v3/keyword-tool/related-keywords?**', async (route) => {
    const real = await route.fetch();
    assert.equal(real.status(), 200);
    sent = grown(await real.json());
    arrived = Date.now();
    await route.fulfill({ response: real, body: sent });
  });
  await w.page.goto('/docs');
  assert.equal(await w.page.title(), 'Quarry API reference');
  await w.page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click();
  await w.page.locator('.modal-ux input').fill(key);
  await w.page.locator('.modal-ux button.authorize').click();
  await w.page.locator('.modal-ux .btn-done').click();
  const op = w.page.locator('#operations-keyword-tool-get-keyword-tool-related-keywords');
  await op.locator('.opblock-summary').click();
  await op.getByRole('button', { name: 'Try it out' }).click();
  await op.locator('[data-param-name="kw"] input').fill('running shoes');
  await op.locator('[data-param-name="location_id"] input').fill('2840');
  await op.getByRole('button', { name: 'Execute' }).click();
  const download = op.locator('.live-responses-table a.quarry-download');
  await download.waitFor({ timeout: 300_000 });
  const shownAfter = Date.now() - arrived;
  assert.ok(sent.length >= TARGET, `${sent.length} characters`);
  console.log(
    `reference page: a ${(sent.length / 1e6).toFixed(2)} MB answer shown ${shownAfter} ms after it arrived (goal 5000 ms; load ${os.loadavg()[0].toFixed(1)})`,
  );
  const shown = await op.locator('.quarry-cut-answer pre').innerText();
  assert.ok(shown.length <= LIMIT + 2, `${shown.length} characters shown`);
  assert.match(shown, /^\{\n {2}"keywords": \[/);
  assert.match(await op.locator('.quarry-cut-note').innerText(), /This answer is 1\.\d MB; the first 128 KB are shown/);
  const [file] = await Promise.all([w.page.waitForEvent('download'), download.click()]);
  const whole = fs.readFileSync(await file.path(), 'utf8');
  assert.equal(whole, sent, 'the download is the whole answer as sent');
  assert.equal(file.suggestedFilename(), 'related-keywords.json');
  assert.deepEqual(w.errors, [], 'script errors');
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await w.page.screenshot({ path: path.join(SCREENSHOT_DIR, 'reference-large-answer.png') });
});
