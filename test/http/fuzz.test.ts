/**
 * Property tests of the whole edge: whatever a client sends — paths, query strings, bodies,
 * content types, headers, with or without a key — Quarry never answers 5xx, and every
 * error is the contract's JSON error object (the gateway's HTML 429 being the only
 * non-JSON error). Routes are read from the app itself (its OpenAPI document plus the
 * hidden ones), so operations added later are fuzzed too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { testApp, type TestApp } from '../support/app.js';
import { SECOND } from '../../src/lib/clock.js';

const RUNS = 500;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface Route {
  method: string;
  /** Path template with `{param}` placeholders, under the server root. */
  path: string;
  params: string[];
  query: string[];
  hasBody: boolean;
  /** JSON schemas from the OpenAPI document, to build requests the operation would accept. */
  paramSchemas: Record<string, any>;
  querySchemas: Record<string, any>;
  bodySchema: any;
}

let t: TestApp;
let validKey: string;
let routes: Route[];

/** Every documented route, from the app's OpenAPI document, plus the undocumented ones. */
function discoverRoutes(doc: any): Route[] {
  const out: Route[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method.toUpperCase() as (typeof METHODS)[number])) continue;
      const parameters: any[] = op.parameters ?? [];
      const path_ = parameters.filter((p) => p.in === 'path');
      const query = parameters.filter((p) => p.in === 'query');
      out.push({
        method: method.toUpperCase(),
        path: `/v3${path}`, // the document's paths are relative to its server, /v3
        params: path_.map((p) => p.name),
        query: query.map((p) => p.name),
        hasBody: op.requestBody !== undefined,
        paramSchemas: Object.fromEntries(path_.map((p) => [p.name, p.schema ?? {}])),
        querySchemas: Object.fromEntries(query.map((p) => [p.name, { ...(p.schema ?? {}), required: p.required === true }])),
        bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  for (const path of ['/healthz', '/v3/openapi.json', '/docs', '/docs/json']) {
    out.push({ method: 'GET', path, params: [], query: [], hasBody: false, paramSchemas: {}, querySchemas: {}, bodySchema: null });
  }
  return out;
}

/** The contract's error object: `{error:{type,message,retry_after?}}`; ValidationError adds `errors`. */
function assertErrorObject(body: unknown, where: string): void {
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `${where}: error body is an object`);
  const keys = Object.keys(body as object);
  assert.deepEqual(keys, ['error'], `${where}: only "error" at the top`);
  const e = (body as { error: Record<string, unknown> }).error;
  assert.equal(typeof e.type, 'string', `${where}: error.type`);
  assert.equal(typeof e.message, 'string', `${where}: error.message`);
  for (const k of Object.keys(e)) {
    assert.ok(['type', 'message', 'retry_after', 'errors'].includes(k), `${where}: unexpected error.${k}`);
  }
  if (e.retry_after !== undefined) {
    assert.equal(e.type, 'RateLimit', `${where}: retry_after only on RateLimit`);
    assert.ok(Number.isInteger(e.retry_after) && (e.retry_after as number) > 0, `${where}: retry_after integer`);
  }
  if (e.errors !== undefined) {
    assert.equal(e.type, 'ValidationError', `${where}: errors only on ValidationError`);
    assert.ok(Array.isArray(e.errors) && e.errors.every((m) => typeof m === 'string'), `${where}: errors are strings`);
  }
}

function checkResponse(req: InjectOptions, res: LightMyRequestResponse): void {
  const where = `${req.method} ${String(req.url).slice(0, 200)} → ${res.statusCode}`;
  assert.ok(res.statusCode < 500, `${where}: no 5xx\n${res.body.slice(0, 500)}`);
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 400) {
    if (res.statusCode === 429 && type.startsWith('text/html')) return;
    assert.match(type, /^application\/json/, `${where}: JSON error content type (got "${type}")`);
    if (req.method === 'HEAD') return;
    let body: unknown;
    assert.doesNotThrow(() => (body = JSON.parse(res.body)), `${where}: JSON error body\n${res.body.slice(0, 300)}`);
    assertErrorObject(body, where);
  } else if (type.startsWith('application/json') && req.method !== 'HEAD' && res.body !== '') {
    assert.doesNotThrow(() => JSON.parse(res.body), `${where}: JSON success body`);
  }
}

async function send(req: InjectOptions): Promise<void> {
  // Vary the clock so burst windows open and close between runs.
  t.clock.advance(7 * SECOND);
  const res = await t.app.inject(req);
  checkResponse(req, res);
}

// ---- Arbitraries -------------------------------------------------------------------

const keyHeader = () =>
  fc.oneof(
    fc.constant<Record<string, string>>({ 'x-access-token': validKey }),
    fc.constant<Record<string, string>>({ 'X-Access-Token': validKey }),
    fc.constant<Record<string, string>>({}),
    fc.constant<Record<string, string>>({ authorization: `Bearer ${validKey}` }),
    fc.string({ maxLength: 80 }).map((k) => ({ 'x-access-token': k.replace(/[^\x20-\x7e]/g, '') })),
  );

const SPECIAL_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'kw', 'location_id', 'page'];

/** Text that is already valid in a URL, including percent-encoding garbage and unicode. */
const urlText = fc.oneof(
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom('%', '%%', '%zz', '%E2%82', '%C0%AF', '%00', '%FF%FE', '%2F', '%252F', '..', '.', '%2e%2e', '+', '%20', '\u00e9', 'ü'),
  fc.integer().map(String),
  fc.constantFrom('1e3', '0x10', '-0', '1.5', 'NaN', 'Infinity', '99999999999999999999', '-2147483649', 'true', 'null', '[]', '{}'),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
);

const queryString = (known: string[]) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...SPECIAL_NAMES, ...(known.length ? known : ['q'])), urlText),
        fc.oneof(urlText, fc.constantFrom('shoes', 'running shoes', '2840', '0', '1', '2')),
        fc.constantFrom('=', '', '[]=', '[0]=', '[a]='),
      ),
      { maxLength: 8 },
    )
    .map((pairs) => pairs.map(([k, v, sep]) => (sep === '' ? k : `${k}${sep}${v}`)).join('&'));

const pathValue = fc.oneof(urlText, fc.constantFrom('2840', '0', '1023191', 'abc'));

function fillPath(route: Route, values: string[]): string {
  let i = 0;
  return route.path.replace(/\{[^}]+\}/g, () => values[i++ % Math.max(values.length, 1)] || 'x');
}

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'text/csv',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/json; charset=latin1',
    'application/vnd.api+json',
    ';;;',
    '',
  ),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
);

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .dictionary(fc.constantFrom(...SPECIAL_NAMES, 'keywords', 'keyword_ids', 'name', 'url', 'domain'), fc.jsonValue({ maxDepth: 2 }))
    .map((v) => JSON.stringify(v)),
  fc.constantFrom('{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"x":1}}}', '{', '[', 'null', '""', '{"a":1}{"b":2}', '\u0000'),
  fc.string({ maxLength: 200 }),
  fc.nat({ max: 10_000 }).map((n) => JSON.stringify({ keywords: Array.from({ length: n }, (_, i) => `k${i}`) })),
);

const headerName = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,30}$/)
  .filter((n) => !['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade'].includes(n));
const headerValue = fc.string({ maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));

/**
 * Values a schema accepts (mostly) — realistic ones, so that requests get past validation
 * into the handlers and the research engine — with edge values mixed in.
 */
function fromSchema(schema: any, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return fc.oneof(...variants.map((v: any) => fromSchema(v, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer': {
      const min = Math.max(schema.minimum ?? -3, -3);
      const max = Math.min(schema.maximum ?? 3000, 3000);
      return fc.oneof(
        fc
          .constantFrom(0, 1, 2, 2840, 2276, 2826, 1023191, 21167, 1000, 1001)
          .filter((v) => v >= (schema.minimum ?? -Infinity) && v <= (schema.maximum ?? Infinity)),
        fc.integer({ min, max: Math.max(min, max) }),
        fc.constantFrom(schema.minimum ?? 0, schema.maximum ?? 0),
      );
    }
    case 'number':
      return fc.oneof(fc.integer({ min: 0, max: 100 }), fc.double({ min: -1, max: 1e6, noNaN: true }));
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.oneof(
        fc.constantFrom(
          'shoes',
          'running shoes',
          'best running shoes for beginners',
          'how to bake bread',
          'example.com',
          'www.example.com',
          'blog.example.com',
          'https://example.com/some/page?x=1',
          'http://localhost',
          'kw,sv,msv',
          'csv',
          'true',
          '2026-01-01',
          '0123456789abcdef0123456789abcdef',
          '000000000000000000000000',
        ),
        fc.string({ maxLength: 30 }),
        fc.string({ unit: 'grapheme', maxLength: 10 }),
      );
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 6, 6) });
    case 'object': {
      const props: Record<string, any> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const members = Object.keys(props).map((name) =>
        fc.option(
          fromSchema(props[name], depth + 1).map((v) => [name, v] as const),
          { freq: required.has(name) ? 20 : 3, nil: undefined },
        ),
      );
      return fc.tuple(...members).map((pairs) => Object.fromEntries(pairs.filter((p) => p !== undefined) as (readonly [string, unknown])[]));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A request an operation would (mostly) accept, built from its schemas. */
function shapedRequest(route: Route): fc.Arbitrary<InjectOptions> {
  const pathValues = fc.tuple(...route.params.map((name) => fromSchema(route.paramSchemas[name])));
  const queryValues = fc.tuple(
    ...route.query.map((name) => fc.option(fromSchema(route.querySchemas[name]), { freq: route.querySchemas[name].required ? 20 : 2, nil: undefined })),
  );
  const bodyValue = route.bodySchema ? fromSchema(route.bodySchema) : fc.constant(undefined);
  return fc.tuple(pathValues, queryValues, bodyValue).map(([pv, qv, bv]) => {
    let i = 0;
    const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(String(pv[i++])));
    const query = route.query
      .map((name, j) => (qv[j] === undefined ? null : `${name}=${encodeURIComponent(String(qv[j]))}`))
      .filter((x) => x !== null)
      .join('&');
    return {
      method: route.method as InjectOptions['method'],
      url: query ? `${path}?${query}` : path,
      headers: { 'x-access-token': validKey, ...(bv !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload: bv === undefined ? undefined : JSON.stringify(bv),
    };
  });
}

// ---- Properties ----------------------------------------------------------------------

describe('edge fuzzing', () => {
  before(async () => {
    t = await testApp({ env: { QUARRY_BODY_LIMIT: '8192' } });
    ({ key: validKey } = await t.account('premium'));
    const doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
    routes = discoverRoutes(doc);
  });
  after(async () => t.close());

  test('the route list covers the operations that exist', () => {
    const paths = routes.map((r) => r.path);
    for (const p of ['/v3/keyword-tool/limits', '/v3/keyword-tool/trends', '/v3/shared/locations/{location}', '/v3/shared/locations']) {
      assert.ok(paths.includes(p), p);
    }
  });

  test('arbitrary paths and methods, under /v3 and elsewhere', async () => {
    const path = fc.oneof(
      fc.array(urlText, { maxLength: 6 }).map((s) => '/v3/' + s.join('/')),
      fc.array(urlText, { maxLength: 6 }).map((s) => '/' + s.join('/')),
      fc
        .tuple(fc.constantFrom(...routes.map((r) => r.path)), fc.array(urlText, { maxLength: 2 }))
        .map(([p, extra]) => p.replace(/\{[^}]+\}/g, '2840') + (extra.length ? '/' + extra.join('/') : '')),
      fc.constantFrom(
        '/v3',
        '/v3/',
        '//v3//keyword-tool//limits',
        '/v3/./keyword-tool/limits',
        '/v3/keyword-tool/../shared/locations/2840',
        '/V3/KEYWORD-TOOL/LIMITS',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), path, keyHeader(), async (method, url, headers) => {
        await send({ method, url, headers });
      }),
      { numRuns: RUNS },
    );
  });

  test('query strings on every route: prototype names, huge values, repeats, unicode, bad escapes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(pathValue, { minLength: 1, maxLength: 2 }),
        fc.constantFrom(...routes).chain((r) => queryString(r.query)),
        keyHeader(),
        async (route, values, query, headers) => {
          await send({ method: route.method as InjectOptions['method'], url: `${fillPath(route, values)}?${query}`, headers });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('query strings shaped like the operation expects, with a valid key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes.filter((r) => r.path.startsWith('/v3/'))),
        fc.array(pathValue, { minLength: 1, maxLength: 2 }),
        async (route, values) => {
          const query = route.query.map((name, i) => `${name}=${values[i % values.length]}`).join('&');
          await send({ method: route.method as InjectOptions['method'], url: `${fillPath(route, values)}?${query}`, headers: { 'x-access-token': validKey } });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('requests shaped by each operation’s own schemas reach the handlers without a 5xx', async () => {
    const apiRoutes = routes.filter((r) => r.path.startsWith('/v3/'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...apiRoutes).chain(shapedRequest), async (req) => {
        // Past the 30-second burst window, so most requests execute rather than being refused.
        t.clock.advance(31 * SECOND);
        const res = await t.app.inject(req);
        checkResponse(req, res);
      }),
      { numRuns: RUNS },
    );
  });

  test('bodies: arbitrary JSON and non-JSON, any content type, on every route and method', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET'),
        body,
        contentType,
        keyHeader(),
        async (route, method, payload, type, headers) => {
          // The route's own method most of the time, any method otherwise.
          const m = route.hasBody || method === 'GET' ? route.method : method;
          await send({
            method: m as InjectOptions['method'],
            url: fillPath(route, ['2840']),
            headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
            payload: m === 'GET' || m === 'HEAD' ? undefined : payload,
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('arbitrary headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.dictionary(
          fc.oneof(
            headerName,
            fc.constantFrom('accept', 'accept-encoding', 'x-forwarded-for', 'origin', 'if-none-match', 'range', 'cookie', 'accept-language'),
          ),
          headerValue,
          { maxKeys: 6 },
        ),
        keyHeader(),
        async (route, extra, key) => {
          const url = fillPath(route, ['2840']) + (route.query.length ? `?${route.query.map((q) => `${q}=shoes`).join('&')}` : '');
          await send({ method: route.method as InjectOptions['method'], url, headers: { ...extra, ...key } });
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('with the gateway on, its refusals are the only non-JSON errors', async () => {
    const g = await testApp({ env: { QUARRY_GATEWAY_RPS: '4' } });
    try {
      const key = (await g.account('premium')).key;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...routes), fc.constantFrom('10.1.0.1', '10.1.0.2'), fc.nat({ max: 600 }), async (route, ip, waitMs) => {
          g.clock.advance(waitMs);
          const req: InjectOptions = {
            method: route.method as InjectOptions['method'],
            url: fillPath(route, ['2840']) + (route.query.length ? `?${route.query.map((q) => `${q}=1`).join('&')}` : ''),
            headers: { 'x-access-token': key },
            remoteAddress: ip,
          };
          const res = await g.app.inject(req);
          checkResponse(req, res);
          if (String(res.headers['content-type']).startsWith('text/html') && route.path.startsWith('/v3/')) {
            assert.equal(res.statusCode, 429);
          }
        }),
        { numRuns: 200 },
      );
    } finally {
      await g.close();
    }
  });
});
