/**
 * The MCP server of one authenticated caller: lists the tools derived from the served
 * OpenAPI document and runs each call as the REST request it stands for, through the app
 * itself (`app.inject`) with the caller's API key and client class `mcp` — so a tool call
 * meets the same validation, pools, burst window (1 s for MCP), cache and histories as
 * the REST API.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { KEY_HEADER } from '../http/context.js';
import { requestOf, resultOf, ToolInputError, toolsOf, type OpenApiDocument, type Tool } from './tools.js';

export const MCP_SERVER_NAME = 'quarry';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Quarry answers keyword, SERP, backlink, site and rank-tracking research (Research API v3). ' +
  'Paid tools draw from daily or monthly quota pools (get-keyword-tool-limits shows what is left) and allow 3 calls per second per pool; ' +
  'on a RateLimit error wait retry_after seconds and call again once; on CreditLimit do not retry. ' +
  'Large answers take an optional limit (rows) and fields (columns) to keep them short; the trim never changes what is charged.';

/** The tools of an app, derived once from its OpenAPI document (after the app is ready). */
export function appTools(app: FastifyInstance): () => Map<string, Tool> {
  let tools: Map<string, Tool> | undefined;
  return () => {
    tools ??= new Map(toolsOf(app.swagger() as unknown as OpenApiDocument).map((t) => [t.definition.name, t]));
    return tools;
  };
}

export function createMcpServer(app: FastifyInstance, tools: () => Map<string, Tool>, apiKey: string): Server {
  // The low-level Server, not McpServer: the input schemas are JSON Schema from the OpenAPI
  // document, where McpServer.registerTool wants zod schemas.
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...tools().values()].map((t) => t.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools().get(request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Error: no tool named ${request.params.name}` }] };
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    let rest;
    try {
      rest = requestOf(tool, args);
    } catch (err) {
      if (!(err instanceof ToolInputError)) throw err;
      return {
        isError: true,
        content: [{ type: 'text', text: `InvalidInput: ${err.message}` }],
        structuredContent: { error: { type: 'InvalidInput', message: err.message } },
      };
    }
    const res = await app.inject({
      method: rest.method as 'GET',
      url: rest.url,
      headers: {
        [KEY_HEADER]: apiKey,
        ...app.internalClientHeaders('mcp'),
        ...(rest.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      payload: rest.body !== undefined ? JSON.stringify(rest.body) : undefined,
    });
    return resultOf(tool, args, {
      statusCode: res.statusCode,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.body,
    }) as CallToolResult;
  });
  return server;
}
