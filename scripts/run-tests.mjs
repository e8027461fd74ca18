// Runs every test file under test/ with Node's built-in runner (TypeScript through tsx).
// Node 20's runner does not expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? find(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

// `--slow` runs the slow suites alone (`*.slow.test.ts`: real processes killed in a loop, …);
// without it they are left out, so that `npm test` stays well under ten minutes on 2 cores.
// `--browser` runs the browser suites alone (`*.browser.test.ts`: the dashboard in Chromium,
// `npm run test:browser`, which builds the dashboard first).
// `--scale` runs the fast suite in the scale mode (`npm run test:scale`: QUARRY_TEST_SCALE=1,
// the state store on PostgreSQL and the hot state on Redis, see test/support/app.ts), plus the
// scale-only suites of test/scale whatever their kind (its multi-process test is slow).
const args = process.argv.slice(2);
const slow = args.includes('--slow');
const browser = args.includes('--browser');
const scale = args.includes('--scale');
const only = args.filter((a) => a !== '--slow' && a !== '--browser' && a !== '--scale');
const found = (only.length ? only.flatMap((p) => (fs.statSync(p).isDirectory() ? find(p) : [p])) : find('test')).sort();
const kind = (f) => (f.endsWith('.slow.test.ts') ? 'slow' : f.endsWith('.browser.test.ts') ? 'browser' : 'fast');
const wanted = slow ? 'slow' : browser ? 'browser' : 'fast';
const scaleOnly = (f) => f.split(path.sep).slice(0, 2).join('/') === 'test/scale' && kind(f) !== 'browser';
const files = only.length && !slow && !browser ? found : found.filter((f) => kind(f) === wanted || (scale && !slow && !browser && scaleOnly(f)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test', ...(scale ? { QUARRY_TEST_SCALE: '1' } : {}) },
});
process.exit(result.status ?? 1);
