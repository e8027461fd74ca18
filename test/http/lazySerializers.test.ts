/**
 * Response serialisers compiled on first use (src/http/lazySerializers.ts): the same bytes as
 * Fastify's own eager serialisers, nothing compiled while the app gets ready, and every
 * response schema of the whole app compiling when asked (what start-up used to check).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { lazySerializers } from '../../src/http/lazySerializers.js';
import { testApp, type TestApp } from '../support/app.js';

const shared = { $id: 'Item', type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } };
const response = { 200: { type: 'object', properties: { items: { type: 'array', items: { $ref: 'Item#' } }, total: { type: 'number' } } } };
const answer = {
  items: [
    { name: 'a "quoted" é', n: 3, dropped: true },
    { name: 'b', n: '7' },
  ],
  total: 2.5,
  extra: 'not in the schema',
};

async function toyApp(lazy: boolean): Promise<{ app: FastifyInstance; compileAll?: () => number }> {
  const serializers = lazySerializers();
  const app = Fastify(lazy ? { schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } } } : {});
  app.addSchema(shared);
  app.get('/items', { schema: { response } }, async () => answer);
  return { app, compileAll: lazy ? serializers.compileAll : undefined };
}

describe('lazy response serialisers', () => {
  test('write the same bytes as Fastify’s eager ones, shared schemas included', async () => {
    const eager = await toyApp(false);
    const lazy = await toyApp(true);
    const [a, b] = await Promise.all([eager.app.inject({ url: '/items' }), lazy.app.inject({ url: '/items' })]);
    assert.equal(a.statusCode, 200);
    assert.equal(b.body, a.body);
    assert.deepEqual(JSON.parse(b.body), {
      items: [
        { name: 'a "quoted" é', n: 3 },
        { name: 'b', n: 7 },
      ],
      total: 2.5,
    });
    await Promise.all([eager.app.close(), lazy.app.close()]);
  });

  test('compile nothing while the app gets ready: a broken schema fails its first answer and compileAll, not the start', async () => {
    const broken = { 200: { $ref: 'Missing#' } };
    const eager = Fastify();
    eager.get('/broken', { schema: { response: broken } }, async () => ({}));
    await assert.rejects(
      async () => {
        await eager.ready();
      },
      /Missing/,
      'Fastify alone compiles at start-up',
    );

    const serializers = lazySerializers();
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } } });
    app.get('/broken', { schema: { response: broken } }, async () => ({}));
    await app.ready();
    assert.equal((await app.inject({ url: '/broken' })).statusCode, 500);
    assert.throws(() => serializers.compileAll(), /200 response schema of GET \/broken does not compile/);
    await app.close();
  });
});

describe('the whole app’s response serialisers', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(async () => {
    await t.close();
  });

  test('all compile', () => {
    const count = t.app.compileAllSerializers();
    assert.ok(count > 50, `${count} serialisers`);
  });

  test('all its request validators compile too (they are lazy as well: src/http/validation.ts)', () => {
    const count = t.app.compileAllValidators();
    assert.ok(count > 50, `${count} validators`);
  });
});
