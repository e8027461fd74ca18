/**
 * Regenerates the TypeScript SDK's types from the served OpenAPI document:
 * `npm run sdk:generate` (see scripts/sdkTypes.ts). Run it after changing a route schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { servedOpenApi } from '../test/support/openapi.js';
import { GENERATED_DIR, sdkFiles } from './sdkTypes.js';

const files = await sdkFiles(await servedOpenApi());
fs.mkdirSync(GENERATED_DIR, { recursive: true });
for (const [name, contents] of Object.entries(files)) {
  fs.writeFileSync(path.join(GENERATED_DIR, name), contents);
  console.log(`wrote ${path.relative(process.cwd(), path.join(GENERATED_DIR, name))}`);
}
process.exit(0);
