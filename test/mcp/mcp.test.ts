/**
 * The MCP server, driven by the MCP SDK's own Client over Streamable HTTP at /mcp on a
 * listening test app (fake clock). `quarry mcp` over stdio, which starts processes, is in
 * mcpStdio.slow.test.ts (npm run test:slow).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import type { OpenApiDoc } from '../support/reference.js';
import { operationsOf } from '../support/operationExamples.js';
import { assertEveryToolAnswered, call, callEveryTool, httpClient as mcpHttpClient } from '../support/mcp.js';

let t: TestApp;
let base: string;
let doc: OpenApiDoc;
let keyA: string;
let keyB: string;

const httpClient = (headers: Record<string, string>) => mcpHttpClient(base, headers);

describe('MCP server', { timeout: 240_000 }, () => {
  before(async () => {
    t = await testApp();
    keyA = (await t.account('premium')).key;
    keyB = (await t.account('premium')).key;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
  });
  after(async () => {
    await t.close();
  });

  test('tools/list names one tool per operation of the OpenAPI document, with its pool, input schema and trim arguments', async () => {
    const client = await httpClient({ authorization: `Bearer ${keyA}` });
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name).sort();
    assert.deepEqual(
      names,
      operationsOf(doc)
        .map((o) => o.operationId)
        .sort(),
    );
    const related = tools.find((x) => x.name === 'get-keyword-tool-related-keywords')!;
    assert.match(related.description!, /"related-keywords" quota pool/);
    assert.ok(related.inputSchema.required?.includes('kw'));
    assert.equal((related.inputSchema.properties as any).limit.type, 'integer');
    assert.match(tools.find((x) => x.name === 'get-shared-locations')!.description!, /Free/);
    // A body's fields are arguments of their own; an operation that has a `limit` of its own keeps it and trims with result_limit.
    const lists = tools.find((x) => x.name === 'post-keyword-tool-lists')!;
    assert.ok(lists.inputSchema.required?.includes('name'));
    const exports = tools.find((x) => x.name === 'post-link-tool-exports')!;
    if ('limit' in (exports.inputSchema.properties ?? {})) assert.ok('result_limit' in exports.inputSchema.properties!);
    await client.close();
  });

  test('every tool answers once over Streamable HTTP: a result, or a tool error with the contract type', async () => {
    const client = await httpClient({ 'x-access-token': keyA });
    assertEveryToolAnswered(await callEveryTool(client, doc, t.clock), doc);
    await client.close();
  });

  test('the mcp class has its 1-second window: a 4th paid call within 1 s is refused with retry_after 1, and admitted after it', async () => {
    const { key } = await t.account('premium');
    const client = await httpClient({ 'x-access-token': key });
    for (let i = 0; i < 3; i++) assert.equal((await call(client, 'get-keyword-tool-trends', { kw: `window ${i}` })).isError, undefined);
    t.clock.advance(999);
    const refused = await call(client, 'get-keyword-tool-trends', { kw: 'window 3' });
    assert.equal(refused.isError, true);
    assert.deepEqual(refused.structuredContent.error, { type: 'RateLimit', message: refused.structuredContent.error.message, retry_after: 1 });
    assert.match(refused.content[0].text!, /^RateLimit: .*retry_after 1/);
    t.clock.advance(2);
    assert.equal((await call(client, 'get-keyword-tool-trends', { kw: 'window 3' })).isError, undefined);
    // Same pools as the REST API: four trends lookups charged.
    const limits = await call(client, 'get-keyword-tool-limits');
    assert.equal(limits.structuredContent.resources.trends.remaining, limits.structuredContent.resources.trends.limit - 4);
    await client.close();
  });

  test('an outside request cannot claim the mcp class: REST requests keep the 30-second window', async () => {
    const { key } = await t.account('premium');
    const headers = { 'x-access-token': key, 'x-quarry-internal-client': 'mcp:guess' };
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base}/v3/keyword-tool/trends?kw=rest%20${i}`, { headers })).status, 200);
    t.clock.advance(2000);
    const refused = await fetch(`${base}/v3/keyword-tool/trends?kw=rest%203`, { headers });
    assert.equal(refused.status, 429);
    assert.equal(((await refused.json()) as any).error.retry_after, 30);
  });

  test('a trimmed answer is charged and cached in full, as the same REST request', async () => {
    const { key } = await t.account('premium');
    const client = await httpClient({ 'x-access-token': key });
    const trimmed = await call(client, 'get-keyword-tool-related-keywords', { kw: 'trail shoes', location_id: 2840, limit: 2, fields: ['kw', 'sv'] });
    assert.equal(trimmed.isError, undefined);
    const body = trimmed.structuredContent;
    const list = Object.entries(body).find(([, v]) => Array.isArray(v)) as [string, any[]];
    assert.equal(list[1].length, 2);
    for (const row of list[1]) assert.deepEqual(Object.keys(row).sort(), ['kw', 'sv']);
    const full = await fetch(`${base}/v3/keyword-tool/related-keywords?kw=trail%20shoes&location_id=2840`, { headers: { 'x-access-token': key } });
    assert.equal(full.headers.get('x-cache'), 'HIT');
    const fullBody = (await full.json()) as any;
    assert.equal(body._trimmed[list[0]].total, fullBody[list[0]].length);
    assert.ok(fullBody[list[0]].length > 2);
    const limits = (await (await fetch(`${base}/v3/keyword-tool/limits`, { headers: { 'x-access-token': key } })).json()) as any;
    assert.equal(limits.resources['related-keywords'].remaining, limits.resources['related-keywords'].limit - 1);
    // Fields that are the answer's own properties pick those.
    const picked = await call(client, 'get-keyword-tool-limits', { fields: ['plan', 'resources'] });
    assert.deepEqual(Object.keys(picked.structuredContent).sort(), ['plan', 'resources']);
    await client.close();
  });

  test("two keys see only their own objects: a list made through one key's tools is not the other's", async () => {
    const a = await httpClient({ 'x-access-token': keyA });
    const b = await httpClient({ authorization: `Bearer ${keyB}` });
    const created = await call(a, 'post-keyword-tool-lists', { name: 'only mine', keyword_ids: [] });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const listId = created.structuredContent._id;
    const theirs = await call(b, 'get-keyword-tool-lists');
    assert.ok(!JSON.stringify(theirs.structuredContent).includes(listId));
    const read = await call(b, 'get-keyword-tool-lists-by-list-id', { list_id: listId });
    assert.equal(read.isError, true);
    assert.equal(read.structuredContent.status, 404);
    const mine = await call(a, 'get-keyword-tool-lists');
    assert.ok(JSON.stringify(mine.structuredContent).includes(listId));
    await a.close();
    await b.close();
  });

  test("a path argument is checked against its parameter's pattern: `.`, `..` or a slash in an id reaches no other operation", async () => {
    const a = await httpClient({ 'x-access-token': keyA });
    const cases: [string, Record<string, unknown>, string][] = [
      // Before: `.` made GET /keyword-tool/lists/ — the listing of every list, another operation.
      ['get-keyword-tool-lists-by-list-id', { list_id: '.' }, 'list_id'],
      ['get-keyword-tool-lists-by-list-id', { list_id: '..' }, 'list_id'],
      ['delete-keyword-tool-lists-by-list-id', { list_id: '..' }, 'list_id'],
      ['get-rank-tool-trackings-by-tracking-id-detail', { tracking_id: '.' }, 'tracking_id'],
      ['get-rank-tool-trackings-by-tracking-id-detail', { tracking_id: 'x/../..' }, 'tracking_id'],
      ['get-rank-tool-trackings-by-tracking-id-detail', { tracking_id: 'a\\b' }, 'tracking_id'],
      ['get-rank-tool-trackings-by-tracking-id-detail', { tracking_id: 'abc\u0000' }, 'tracking_id'],
      ['get-rank-tool-trackings-by-tracking-id-detail', { tracking_id: { id: 1 } }, 'tracking_id'],
      ['get-shared-locations-by-location', { location: '..' }, 'location'],
      ['post-rank-tool-trackings-by-tracking-id-stats', { tracking_id: '0123456789abcdef01234567/..' }, 'tracking_id'],
    ];
    for (const [name, args, param] of cases) {
      const result = await call(a, name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
      assert.deepEqual(result.structuredContent?.error, { type: 'InvalidInput', message: `Parameter ${param} is invalid` }, `${name} ${JSON.stringify(args)}`);
    }
    // The pattern is the served one: the tool's input schema carries it.
    const listed = await a.listTools();
    const schema = listed.tools.find((tool) => tool.name === 'get-rank-tool-trackings-by-tracking-id-detail')!.inputSchema.properties!.tracking_id as {
      pattern?: string;
    };
    assert.equal(schema.pattern, '^[A-Za-z0-9_-]+$');
    // A well-formed id still reaches its operation.
    const lists = await call(a, 'get-keyword-tool-lists-by-list-id', { list_id: '0123456789abcdef01234567' });
    assert.equal(lists.structuredContent.status, 404);
    await a.close();
  });

  test('no tool is reachable without a valid key', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-key' }, { 'x-access-token': 'not-a-key' }, { authorization: `Basic ${keyA}` }] as Record<
      string,
      string
    >[]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-keyword-tool-limits', arguments: {} } }),
      });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.deepEqual(await res.json(), { error: { type: 'AuthError', message: 'Invalid API Key' } });
    }
    await assert.rejects(httpClient({ authorization: 'Bearer not-a-key' }));
    assert.equal((await fetch(`${base}/mcp`)).status, 405);
  });
});
