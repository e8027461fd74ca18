/**
 * `npm run contract:diff`: every difference between the served OpenAPI document and the
 * published reference, marked `excused` where the allow-list (test/support/referenceDeviations.ts)
 * names it, and a count per operation.
 */
import { compareDocuments, referenceOperations, unexcused } from '../test/support/reference.js';
import { servedOpenApi } from '../test/support/openapi.js';

const ours = await servedOpenApi();
const differences = compareDocuments(ours);
const open = new Set(unexcused(differences));
for (const d of differences) console.log(`${open.has(d) ? '  ' : 'excused '}${d}`);
const operations = new Set([...open].map((d) => d.split(' ').slice(0, 2).join(' ')));
const published = referenceOperations();
const served = published.filter(({ method, path, op }) => ours.paths[path]?.[method]?.operationId === op.operationId);
console.log(`\n${served.length} of ${published.length} published operations served under the reference's operationIds`);
console.log(`${differences.length} differences, ${open.size} not excused, in ${operations.size} operations`);
process.exit(0);
