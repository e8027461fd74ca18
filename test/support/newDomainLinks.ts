/**
 * A links CSV (the `quarry import links` format) of links to a domain the tiny world lacks:
 * the reload tests import it and look for the domain afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NEW_DOMAIN = 'brand-new-target.com';

const ROWS = [
  `https://www.importedsite-one.com/review,https://www.${NEW_DOMAIN}/,brand new,false,2026-11-02,2026-11-20`,
  `https://blog.importedsite-two.org/post,https://www.${NEW_DOMAIN}/shop,the shop,false,2026-11-03,2026-11-21`,
];

/** Writes `dir/links.csv` with the first `rows` links (default both) and returns its path. */
export function writeNewDomainLinks(dir: string, rows = ROWS.length): string {
  const csv = path.join(dir, 'links.csv');
  fs.writeFileSync(csv, ['Source URL,Target URL,Anchor,NoFollow,First Seen,Last Seen', ...ROWS.slice(0, rows)].join('\n'));
  return csv;
}
