/**
 * The answer tool's operations as MCP tools (derived from the OpenAPI document like every
 * other), called over Streamable HTTP by the MCP SDK's own client: the models, a new monitor,
 * its dashboard, its prompts and a prompt's answers, its settings; another account's monitor
 * is a tool error with the contract's 404.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { testApp, type TestApp } from '../support/app.js';
import { answerServices } from '../../src/answers/answerService.js';

let t: TestApp;
let base: string;

before(async () => {
  t = await testApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
after(() => t.close());

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };

async function client(key: string) {
  const c = new Client({ name: 'quarry-answer-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return { call: (name: string, args: Record<string, unknown> = {}) => c.callTool({ name, arguments: args }) as Promise<Result>, close: () => c.close() };
}

test('the answer tool’s MCP tools: models, create, dashboard, prompts, a prompt’s answers, settings; isolation', async () => {
  const a = await client((await t.account('premium')).key);
  const b = await client((await t.account('premium')).key);
  try {
    const listed = await (async () => {
      const c = new Client({ name: 'lister', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${(await t.account()).key}` } } }),
      );
      const { tools } = await c.listTools();
      await c.close();
      return tools.map((x) => x.name).filter((n) => n.includes('answer-tool'));
    })();
    assert.equal(listed.length, 12);
    const models = await a.call('get-answer-tool-models');
    assert.equal(models.isError, undefined);
    assert.deepEqual(
      models.structuredContent.models.map((m: { id: number }) => m.id),
      [1, 2, 3],
    );
    const created = await a.call('post-answer-tool-monitor', {
      brand: 'Openpedia',
      domain: 'openpedia.org',
      location_id: 2840,
      platform_id: 1,
      models: [1, 2],
      prompts: ['What are the best running shoes?'],
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const id = created.structuredContent._id;
    await answerServices(t.ctx).checks.idle();
    const dashboard = await a.call('get-answer-tool-monitor-by-id', { id });
    assert.equal(dashboard.structuredContent.models.length, 2);
    assert.equal(dashboard.structuredContent.models[0].answers, 1);
    const prompts = await a.call('get-answer-tool-monitor-by-id-prompts', { id });
    const promptId = prompts.structuredContent.prompts[0]._id;
    const detail = await a.call('get-answer-tool-prompt-by-id', { id: promptId, limit: 1 });
    assert.equal(detail.structuredContent.answers.length, 1, 'trimmed to one answer');
    assert.ok(detail.structuredContent.answers[0].citations.length > 0);
    const settings = await a.call('put-answer-tool-monitor-by-id-settings', { id, brandVariations: ['Open Pedia'] });
    assert.equal(settings.isError, undefined, JSON.stringify(settings));
    const theirs = await b.call('get-answer-tool-monitor-by-id', { id });
    assert.equal(theirs.isError, true);
    assert.equal(theirs.structuredContent.status, 404);
    const bad = await a.call('post-answer-tool-monitor', {
      brand: '',
      domain: 'openpedia.org',
      location_id: 2840,
      platform_id: 1,
      models: [1],
      prompts: ['x?'],
    });
    assert.equal(bad.isError, true);
    assert.equal(bad.structuredContent.status, 422);
  } finally {
    await a.close();
    await b.close();
  }
});
