/**
 * `npm run contract:diff`: every difference between the served OpenAPI document and the
 * published reference, marked `excused` where the allow-list (test/support/referenceDeviations.ts)
 * names it, and a count per operation.
 */
import { compareDocuments, unexcused } from '../test/support/reference.js';
import { servedOpenApi } from '../test/support/openapi.js';

const differences = compareDocuments(await servedOpenApi());
const open = new Set(unexcused(differences));
for (const d of differences) console.log(`${open.has(d) ? '  ' : 'excused '}${d}`);
const operations = new Set([...open].map((d) => d.split(' ').slice(0, 2).join(' ')));
console.log(`\n${differences.length} differences, ${open.size} not excused, in ${operations.size} operations`);
process.exit(0);
