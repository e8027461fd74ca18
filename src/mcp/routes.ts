/**
 * `/mcp`: the MCP server over Streamable HTTP, on the same server as the REST API.
 *
 * Stateless: every POST carries one JSON-RPC message (or batch) and gets its answer as
 * JSON, with a server built for that request around the caller's API key. The key travels
 * in `x-access-token` or, on this route only, as `Authorization: Bearer <key>` (what MCP
 * clients send). Without a valid key nothing is reachable: 401 with the contract's error.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KEY_HEADER } from '../http/context.js';
import { errors } from '../lib/errors.js';
import { appTools, createMcpServer } from './server.js';

export const MCP_PATH = '/mcp';

/** The caller's API key from `x-access-token`, or from `Authorization: Bearer`. */
export function mcpKeyOf(req: FastifyRequest): string {
  const header = req.headers[KEY_HEADER];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return m ? m[1] : '';
}

export async function mcpRoutes(app: FastifyInstance): Promise<void> {
  const tools = appTools(app);

  const refuse = (reply: FastifyReply, statusCode: number, type: string, message: string) =>
    reply
      .code(statusCode)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ error: { type, message } }));

  app.post(MCP_PATH, { schema: { hide: true } }, async (req, reply) => {
    const key = mcpKeyOf(req);
    if (!key || !(await app.quarry.accounts.byKey(key))) {
      const e = errors.auth();
      return reply.code(e.statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(e.body()));
    }
    const server = createMcpServer(app, tools, key);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });
  // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    refuse(reply.header('allow', 'POST'), 405, 'Error', 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST');
  app.get(MCP_PATH, { schema: { hide: true } }, notAllowed);
  app.delete(MCP_PATH, { schema: { hide: true } }, notAllowed);
}
