/**
 * `quarry mcp`: the same MCP tools over stdio, for an agent that starts a local process.
 *
 * It relays every JSON-RPC message between stdio and a running Quarry's `/mcp` endpoint
 * with the key from `QUARRY_API_KEY`, instead of opening the data directory itself: the
 * tools, the client class `mcp`, the pools and the cache are then exactly the server's,
 * exports are run by the server's worker and downloaded from it, and the process starts at
 * once without loading a second research engine (see docs/decisions.md).
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { MCP_PATH } from './routes.js';

export const API_KEY_ENV = 'QUARRY_API_KEY';
export const URL_ENV = 'QUARRY_URL';

export function mcpCommand(): Command {
  return new Command('mcp')
    .description(`serve the MCP tools over stdio for a local agent, relayed to a running Quarry (key from ${API_KEY_ENV}, server from ${URL_ENV})`)
    .action(async () => {
      const key = process.env[API_KEY_ENV]?.trim();
      if (!key) {
        console.error(`quarry mcp: set ${API_KEY_ENV} to the account's API key`);
        process.exit(2);
      }
      // The server's base URL, as `quarry serve` with the same environment would answer on.
      const base = (process.env[URL_ENV]?.trim() || loadConfig().publicUrl).replace(/\/+$/, '');
      await relay(new URL(`${base}${MCP_PATH}`), key);
    });
}

async function relay(url: URL, key: string): Promise<void> {
  const stdio = new StdioServerTransport();
  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-access-token': key } } });
  // A request the server cannot take (down, refused key, gateway limit) still gets an answer,
  // so the agent sees why instead of waiting for ever.
  const fail = (message: JSONRPCMessage, err: unknown) => {
    if (!isJSONRPCRequest(message)) return;
    void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Quarry at ${url.origin}: ${(err as Error).message}` } });
  };
  stdio.onmessage = (message) => void http.send(message).catch((err: unknown) => fail(message, err));
  http.onmessage = (message) => void stdio.send(message);
  http.onerror = (err) => process.stderr.write(`quarry mcp: ${err.message}\n`);
  // The agent ends the session by closing our stdin.
  const stop = () => void http.close().finally(() => process.exit(0));
  stdio.onclose = stop;
  process.stdin.once('end', stop);
  await http.start();
  await stdio.start();
}
