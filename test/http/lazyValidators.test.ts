/**
 * Request validators compiled on first use (src/http/validation.ts lazyValidators): nothing
 * compiled while the app gets ready, the same answers as the eager validator (coercion,
 * defaults, the contract's 422s), and compileAll naming a route that does not compile. The
 * whole app's request validators all compiling is tested beside its serialisers
 * (lazySerializers.test.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { compileValidator, lazyValidators } from '../../src/http/validation.js';

const querystring = {
  type: 'object',
  properties: { n: { type: 'integer', default: 5 }, kw: { type: 'string' } },
  required: ['kw'],
};
const body = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };

async function toyApp(lazy: boolean) {
  const validators = lazyValidators();
  const app = Fastify();
  app.setValidatorCompiler(lazy ? validators.compile : compileValidator);
  app.get('/q', { schema: { querystring } }, async (req) => req.query);
  app.post('/b', { schema: { body } }, async (req) => req.body);
  await app.ready();
  return { app, validators };
}

const requests = [
  { method: 'GET' as const, url: '/q?kw=a&n=7&extra=1' },
  { method: 'GET' as const, url: '/q?kw=a' },
  { method: 'GET' as const, url: '/q?n=7' },
  { method: 'GET' as const, url: '/q?kw=a&n=1e3' },
  { method: 'GET' as const, url: '/q?kw=a%0Ab' },
  { method: 'POST' as const, url: '/b', payload: { name: 'x' } },
  { method: 'POST' as const, url: '/b', payload: { name: 1 } },
  { method: 'POST' as const, url: '/b', payload: { name: 'x', more: true } },
  { method: 'POST' as const, url: '/b', payload: { name: 'bidi \u202e' } },
];

describe('lazy request validators', () => {
  test('none is compiled before its first request, then each once', async () => {
    const { app, validators } = await toyApp(true);
    assert.equal(validators.compiled(), 0);
    await app.inject({ method: 'GET', url: '/q?kw=a' });
    assert.equal(validators.compiled(), 1);
    await app.inject({ method: 'GET', url: '/q?kw=b' });
    assert.equal(validators.compiled(), 1);
    // GET /q, its HEAD twin (Fastify adds one with the same schema) and POST /b.
    assert.equal(validators.compileAll(), 3);
    assert.equal(validators.compiled(), 3);
    await app.close();
  });

  test('the same answers as the validator compiled at start', async () => {
    const eager = await toyApp(false);
    const lazy = await toyApp(true);
    for (const request of requests) {
      const [a, b] = [await eager.app.inject(request), await lazy.app.inject(request)];
      assert.equal(b.statusCode, a.statusCode, request.url);
      assert.equal(b.body, a.body, request.url);
    }
    await eager.app.close();
    await lazy.app.close();
  });

  test('compileAll names the route whose schema does not compile', async () => {
    const validators = lazyValidators();
    const app = Fastify();
    app.setValidatorCompiler(validators.compile);
    app.get('/broken', { schema: { querystring: { type: 'object', properties: { a: { $ref: 'Missing#' } } } } }, async () => ({}));
    await app.ready();
    assert.throws(() => validators.compileAll(), /querystring schema of GET \/broken does not compile/);
    await app.close();
  });
});
