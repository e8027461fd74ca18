/**
 * Chromium for browser tests: playwright-core driving the system's Chromium (`apt-get install
 * chromium`; QUARRY_CHROMIUM to point elsewhere), with a fresh profile each launch, no GPU,
 * no sandbox (containers), nothing talking to the network on its own. Screenshots go to
 * test-results/screenshots (gitignored).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOT_DIR = path.join(ROOT, 'test-results', 'screenshots');

export const CHROMIUM = process.env.QUARRY_CHROMIUM ?? '/usr/bin/chromium';

/** Builds the dashboard when dist/web has none (npm run test:browser builds it before the tests). */
export function ensureDashboardBuilt(): void {
  if (fs.existsSync(path.join(ROOT, 'dist', 'web', 'index.html'))) return;
  const res = spawnSync('npm', ['run', 'build:web'], { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`npm run build:web failed:\n${res.stdout}\n${res.stderr}`);
}

/** A browser with its own fresh profile, and its page, which records script errors. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  errors: string[];
  /** 429 answers the page received (method, URL, content type), for the test's output. */
  refusals: string[];
  close(): Promise<void>;
}

/**
 * Launches Chromium on a fresh user-data-dir (one per account under test: nothing is shared
 * between them) with the flags of a quiet headless run.
 */
export async function launchProfile(origin: string): Promise<WatchedPage> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set QUARRY_CHROMIUM)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-chromium-'));
  // Playwright passes the profile as --user-data-dir itself; the other flags are ours.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    baseURL: origin,
    acceptDownloads: true,
    viewport: { width: 1360, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const refusals: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('response', (r) => {
    if (r.status() === 429) refusals.push(`${r.request().method()} ${new URL(r.url()).pathname} (${r.headers()['content-type'] ?? ''})`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return {
    page,
    context,
    errors,
    refusals,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a screenshot named after the step and fails on a blank page, an error page (a
 * server's error document instead of the app) or a script error.
 */
export async function checkpoint(w: WatchedPage, name: string, options: { allowProblem?: boolean } = {}): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await w.page.screenshot({ path: file, fullPage: true });
  // A page that shows an expected problem (a 404 of another account's object) logs its failed request.
  // A 429 the page's client waited out and resent, as the contract tells clients, is logged by
  // the browser too; it is no error of the page (one it could not recover from shows as a
  // problem below and fails the step). The refusals are printed for the record. Both lists are
  // emptied here, so that a failed step does not fail the next ones with its errors.
  const errors = w.errors.filter(
    (e) => !(options.allowProblem && e.startsWith('console: Failed to load resource')) && !/^console: Failed to load resource: .*status of 429\b/.test(e),
  );
  if (w.refusals.length > 0) console.log(`${name}: 429 answers the page received: ${w.refusals.join(', ')}`);
  w.errors.length = 0;
  w.refusals.length = 0;
  const text = (await w.page.locator('body').innerText()).trim();
  assert.ok(text.length > 20, `${name}: the page is blank`);
  assert.ok((await w.page.locator('#root').count()) === 1, `${name}: not the dashboard (an error document?): ${text.slice(0, 200)}`);
  assert.doesNotMatch(text, /^(\{"error"|429 Too Many Requests|The dashboard is not built)/, `${name}: an error page`);
  if (!options.allowProblem) {
    const problems = await w.page.locator('.state.problem').allInnerTexts();
    assert.deepEqual(problems, [], `${name}: the page shows a problem`);
  }
  assert.deepEqual(errors, [], `${name}: script errors`);
  return file;
}
