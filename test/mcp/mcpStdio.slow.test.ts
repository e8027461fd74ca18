/**
 * `quarry mcp` over stdio, relaying to a listening test app (fake clock): each test starts
 * `quarry mcp` processes (seconds of CPU each), so this is a slow suite (npm run test:slow);
 * the server itself over Streamable HTTP is in mcp.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../support/app.js';
import type { OpenApiDoc } from '../support/reference.js';
import { operationsOf } from '../support/operationExamples.js';
import { assertEveryToolAnswered, call, callEveryTool, stdioClient as mcpStdioClient } from '../support/mcp.js';
import { runQuarry } from '../support/cli.js';

let t: TestApp;
let base: string;
let doc: OpenApiDoc;

const stdioClient = (key: string) => mcpStdioClient(base, key);

describe('quarry mcp', { timeout: 240_000 }, () => {
  before(async () => {
    t = await testApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    doc = (await t.app.inject({ method: 'GET', url: '/v3/openapi.json' })).json();
  });
  after(async () => {
    await t.close();
  });

  test('quarry mcp over stdio: the same tools, each answering once, with the mcp window', async () => {
    const { key } = await t.account('premium');
    const client = await stdioClient(key);
    // Closed whatever happens: a child process left running would keep this test file from ending.
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((x) => x.name).sort(),
        operationsOf(doc)
          .map((o) => o.operationId)
          .sort(),
      );
      assertEveryToolAnswered(await callEveryTool(client, doc, t.clock), doc);
      t.clock.advance(5000);
      for (let i = 0; i < 3; i++) assert.equal((await call(client, 'get-keyword-tool-trends', { kw: `stdio ${i}` })).isError, undefined);
      const refused = await call(client, 'get-keyword-tool-trends', { kw: 'stdio 3' });
      assert.equal(refused.structuredContent.error.retry_after, 1);
    } finally {
      await client.close();
    }
  });

  test('quarry mcp refuses to start without a key, and a wrong key reaches no tool', async () => {
    const res = runQuarry(['mcp'], { QUARRY_API_KEY: '', QUARRY_URL: base });
    assert.equal(res.code, 2);
    assert.match(res.stderr, /QUARRY_API_KEY/);
    await assert.rejects(stdioClient('not-a-key'));
  });
});
