/**
 * Driving a Quarry MCP server with the MCP SDK's own Client, over Streamable HTTP at /mcp or
 * through `quarry mcp` over stdio (test/mcp/mcp.test.ts, test/mcp/mcpStdio.slow.test.ts).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { FakeClock } from '../../src/lib/clock.js';
import type { OpenApiDoc } from './reference.js';
import { exampleRequest, IdBook, operationsOf } from './operationExamples.js';
import { toolsOf, type OpenApiDocument } from '../../src/mcp/tools.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function httpClient(base: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'quarry-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A client of `quarry mcp` started as a child process, relaying to the server at `base`. */
export async function stdioClient(base: string, key: string): Promise<Client> {
  const client = new Client({ name: 'quarry-test-stdio', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/main.ts', 'mcp'],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), QUARRY_API_KEY: key, QUARRY_URL: base, QUARRY_LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

export type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text?: string }[] };
export const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<Result>;

/** Calls every tool once with a plausible request; returns each outcome. */
export async function callEveryTool(client: Client, doc: OpenApiDoc, clock: FakeClock): Promise<Map<string, Result>> {
  const tools = new Map(toolsOf(doc as unknown as OpenApiDocument).map((tool) => [tool.definition.name, tool]));
  const ids = new IdBook();
  const outcomes = new Map<string, Result>();
  for (const op of operationsOf(doc)) {
    const tool = tools.get(op.operationId)!;
    const req = exampleRequest(doc, op, ids);
    const args: Record<string, unknown> = { ...req.path, ...req.query };
    if (tool.plan.bodyArgument) args[tool.plan.bodyArgument] = req.body;
    else if (req.body && typeof req.body === 'object') Object.assign(args, req.body);
    const result = await call(client, op.operationId, args);
    outcomes.set(op.operationId, result);
    if (!result.isError) ids.learn(op, result.structuredContent?.items ?? result.structuredContent);
    // Stay inside the mcp class's window of 3 calls per second per pool.
    if (op.pool) clock.advance(400);
  }
  return outcomes;
}

export function assertEveryToolAnswered(outcomes: Map<string, Result>, doc: OpenApiDoc) {
  const operationIds = operationsOf(doc).map((o) => o.operationId);
  assert.equal(outcomes.size, operationIds.length);
  let succeeded = 0;
  for (const [name, result] of outcomes) {
    if (!result.isError) {
      succeeded++;
      assert.ok(result.content.length > 0, `${name}: content`);
      continue;
    }
    // An error is the contract's: a type and a message, never a server failure.
    const error = result.structuredContent?.error;
    assert.ok(error && typeof error.type === 'string' && typeof error.message === 'string', `${name}: ${JSON.stringify(result)}`);
    assert.ok(result.structuredContent.status === undefined || result.structuredContent.status < 500, `${name}: ${JSON.stringify(result)}`);
    assert.notEqual(error.type, 'RateLimit', `${name} was refused by the burst window`);
  }
  for (const name of [
    'get-keyword-tool-limits',
    'get-keyword-tool-trends',
    'get-keyword-tool-related-keywords',
    'get-shared-locations',
    'post-keyword-tool-lists',
  ]) {
    assert.equal(outcomes.get(name)?.isError, undefined, `${name}: ${JSON.stringify(outcomes.get(name))}`);
  }
  // Most operations find what they need in the sandbox web and the ids of earlier answers.
  assert.ok(succeeded >= operationIds.length * 0.6, `${succeeded} of ${operationIds.length} succeeded`);
}
