/**
 * The TypeScript SDK's generated files are what the served OpenAPI document generates now:
 * a route schema changed without `npm run sdk:generate` fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { servedOpenApi } from '../support/openapi.js';
import { GENERATED_DIR, sdkFiles } from '../../scripts/sdkTypes.js';

test('the SDK types committed under clients/typescript/src/generated match the served OpenAPI document', async () => {
  const files = await sdkFiles(await servedOpenApi());
  for (const [name, expected] of Object.entries(files)) {
    const file = path.join(GENERATED_DIR, name);
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    assert.ok(
      committed === expected,
      `clients/typescript/src/generated/${name} is out of date with the served /v3/openapi.json: run \`npm run sdk:generate\` and commit the result`,
    );
  }
});
