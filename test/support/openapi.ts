/** The OpenAPI document exactly as GET /v3/openapi.json serves it, from a test app. */
import type { OpenApiDoc } from './reference.js';
import { testApp } from './app.js';

export async function servedOpenApi(): Promise<OpenApiDoc> {
  const t = await testApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/v3/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /v3/openapi.json answered ${res.statusCode}`);
    return res.json() as OpenApiDoc;
  } finally {
    await t.close();
  }
}
