/**
 * Prints the served OpenAPI document (as GET /v3/openapi.json answers it) without starting a
 * server: `npx tsx scripts/openapi-document.ts > openapi.json`.
 */
import { servedOpenApi } from '../test/support/openapi.js';

process.stdout.write(JSON.stringify(await servedOpenApi(), null, 2) + '\n');
process.exit(0);
