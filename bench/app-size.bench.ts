/**
 * bench:app-size — the JavaScript a browser downloads to show /app the first time, gzipped,
 * against the 300 KB target: the entry script with its static imports, plus the chunks of the
 * page a signed-in user lands on (keyword research) with theirs. Other pages and uPlot load
 * when first needed and are reported apart. Run by `npm run bench:app-size`, which builds the
 * dashboard first; the figures follow from the build (the machine's load does not matter).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const TARGET_KB = 300;
const LANDING_PAGE = 'src/pages/Keywords.tsx';
const web = path.resolve('dist', 'web');

interface Chunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}
const manifest = JSON.parse(fs.readFileSync(path.join(web, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;

/** A chunk and everything it imports statically (what the browser fetches before running it). */
function closure(key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const dep of manifest[key].imports ?? []) closure(dep, seen);
  return seen;
}

const entry = Object.keys(manifest).find((k) => manifest[k].isEntry)!;
const firstKeys = new Set([...closure(entry), ...closure(LANDING_PAGE)]);
const gz = (file: string) => {
  const raw = fs.readFileSync(path.join(web, file));
  return { file, raw: raw.length, gz: zlib.gzipSync(raw, { level: 9 }).length };
};
const first = [...firstKeys].map((k) => gz(manifest[k].file));
const css = [...new Set([...firstKeys].flatMap((k) => manifest[k].css ?? []))].map(gz);
const later = Object.keys(manifest)
  .filter((k) => !firstKeys.has(k) && manifest[k].file.endsWith('.js'))
  .map((k) => ({ key: k, ...gz(manifest[k].file) }));
const kb = (n: number) => (n / 1024).toFixed(1);
const total = first.reduce((s, f) => s + f.gz, 0);

for (const f of first) console.log(`first load  ${f.file}  ${kb(f.raw)} KB raw, ${kb(f.gz)} KB gzipped`);
for (const f of css) console.log(`first load  ${f.file}  ${kb(f.raw)} KB raw, ${kb(f.gz)} KB gzipped (CSS, not counted)`);
for (const f of later) console.log(`on demand   ${f.file}  ${kb(f.gz)} KB gzipped (${f.key})`);
console.log(
  `first-load JavaScript of /app: ${kb(total)} KB gzipped in ${first.length} files (target ≤ ${TARGET_KB} KB): ${total <= TARGET_KB * 1024 ? 'met' : 'NOT MET'}`,
);
if (total > TARGET_KB * 1024) process.exitCode = 1;
